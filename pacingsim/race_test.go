//go:build race

package pacingsim

const raceEnabled = true

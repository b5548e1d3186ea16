//go:build !race

package pacingsim

const raceEnabled = false

//go:build !race

package jsoncodec

const raceEnabled = false

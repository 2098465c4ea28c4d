//go:build race

package ops

// raceEnabled: the race detector's shadow memory makes a child of the test
// binary larger than what it touches.
const raceEnabled = true // a child touching 50 MiB peaks near 125 MiB

//go:build race

package pii

// raceEnabled is true under the race detector (see TestConformance).
const raceEnabled = true

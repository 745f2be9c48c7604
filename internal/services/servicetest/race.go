//go:build race

package servicetest

// raceEnabled: the race detector slows code five to tenfold, so the linearity check uses a
// smaller input (quadratic work still stands out: 64x against 8x).
const raceEnabled = true

//go:build !race

package servicetest

const raceEnabled = false

//go:build race

package redistest

// RaceEnabled tells whether the binary was built with -race.
const RaceEnabled = true

//go:build race

package store

// raceEnabled: the race detector changes what the allocator gives small
// objects (no tiny blocks: a 7-byte string takes 16 bytes).
const raceEnabled = true

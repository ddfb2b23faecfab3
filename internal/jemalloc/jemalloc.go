// Package jemalloc knows the size classes of jemalloc 5, Redis's
// allocator, so that floodgate can answer the figures Redis derives from
// zmalloc_size (MEMORY USAGE, script and client-buffer memory).
package jemalloc

// Size is the size class jemalloc 5 gives a request of n bytes on x86-64,
// what zmalloc_size then answers: 8, 16, then multiples of 16 up to 128,
// then four classes per doubling (160, 192, 224, 256, 320, ...), small and
// large classes alike.
func Size(n int) int {
	switch {
	case n <= 8:
		return 8
	case n <= 128:
		return (n + 15) &^ 15
	}
	step := 1
	for step*8 < n {
		step *= 2
	}
	// n is in (4*step, 8*step]: classes are step apart.
	return (n + step - 1) / step * step
}

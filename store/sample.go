package store

import "math/rand/v2"

// Sample returns k distinct positions in [0, n), in random order, for k <=
// n: a partial Fisher-Yates shuffle that records only the positions it
// moves, so it costs O(k) whatever n is (HRANDFIELD, ZRANDMEMBER). It
// draws from rng, the store's generator, so a seeded store repeats itself.
func Sample(rng *rand.Rand, n, k int) []int {
	out := make([]int, k)
	moved := make(map[int]int, k)
	at := func(i int) int {
		if v, ok := moved[i]; ok {
			return v
		}
		return i
	}
	for i := range k {
		j := i + rng.IntN(n-i)
		out[i] = at(j)
		moved[j] = at(i)
	}
	return out
}

package server

import "math"

// maxRandomRepeats bounds the negative count of HRANDFIELD, SRANDMEMBER
// and ZRANDMEMBER, where picks repeat and the key's size bounds nothing.
// Redis 7.0 starts such a reply whatever the count (up to -LONG_MAX) and
// writes it until the client is closed for its output buffer limit; with no
// limit (the normal class's default, and always inside a script) the reply
// grows until the process is killed for want of memory: 2^31 one-byte
// members are already 15 GB of RESP. Past this bound floodgate answers the
// error Redis gives these commands for a count it cannot take, "value is out
// of range", rather than hang the server and exhaust the machine.
const maxRandomRepeats = math.MaxInt32

// randomPickChunk is how many picks randomRepeats asks for at a time, as
// Redis's HRANDFIELD_RANDOM_SAMPLE_LIMIT: a listpack is walked once per
// chunk, not once per pick, and never held whole for a huge count.
const randomPickChunk = 1000

// randomRepeats answers n random picks with repetition (a negative count's
// reply): write(p, k) writes k picks after the header, items of p. As in
// Redis, the loop stops once the client is to be closed for its output
// buffer limit, when the rest of the reply would only be dropped.
func randomRepeats(c *Client, n int64, paired bool, write func(p pairReply, k int)) {
	if n > maxRandomRepeats {
		c.w.Error(errZRandRange)
		return
	}
	p := newPairReply(c, int(n), paired, false)
	for n > 0 && !c.closing {
		k := min(n, randomPickChunk)
		write(p, int(k))
		n -= k
	}
}

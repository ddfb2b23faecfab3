package store

import "github.com/floodgate/floodgate/internal/jemalloc"

// Redis 7.0's MEMORY USAGE of a stream (objectComputeSize, OBJ_STREAM),
// from the sizes of its C structures on x86-64, the rax node counts of
// its node index and PELs, and what jemalloc would hold for each node's
// listpack (streamNode.redisAlloc). floodgate's own accounting (MemSize)
// is a different figure, the Go heap's.
const (
	redisRobj     = 16 // robj
	redisStream   = 80 // stream: rax*, length, three streamIDs, entries_added, cgroups*
	redisStreamID = 16
	// A rax node is a 4-byte header; object.c adds a fixed 30 longs per
	// node for its children and data pointers.
	redisRaxNode   = 4 + 8*30
	redisStreamCG  = 40 // last_id, entries_read, pel*, consumers*
	redisNACK      = 24 // delivery_time, delivery_count, consumer*
	redisConsumer  = 24 // seen_time, name, pel*
	redisDictEntry = 24
)

// RedisMemoryUsage is what Redis 7.0 answers for MEMORY USAGE of a stream
// under key with the given SAMPLES (0 for all): the first samples nodes'
// listpacks, their average standing for all but the last, whose own size
// is added, as objectComputeSize does.
func (s *Stream) RedisMemoryUsage(key string, samples int64) int64 {
	n := redisKeySize(len(key)) + redisRobj + redisStream
	n += redisRaxSize(len(s.nodes), s.RaxNodes())
	if samples == 0 {
		samples = 1<<63 - 1
	}
	lpsize, taken := 0, 0
	for _, nd := range s.nodes {
		if int64(taken) >= samples {
			break
		}
		lpsize += nd.redisAlloc
		taken++
	}
	if len(s.nodes) <= taken {
		n += lpsize
	} else {
		if taken > 0 {
			lpsize /= taken
		}
		n += lpsize*(len(s.nodes)-1) + s.nodes[len(s.nodes)-1].redisAlloc
	}
	for _, g := range s.groups {
		n += redisStreamCG + g.PEL.redisRaxSize() + redisNACK*g.PEL.Len()
		for _, c := range g.consumers {
			n += redisConsumer + len(c.Name) + c.PEL.redisRaxSize()
		}
	}
	return int64(n)
}

// redisRaxSize is streamRadixTreeMemoryUsage of a rax of elements keys in
// nodes nodes.
func redisRaxSize(elements, nodes int) int {
	return elements*redisStreamID + nodes*redisRaxNode
}

// redisRaxSize is the PEL's rax as streamRadixTreeMemoryUsage counts it.
func (p *PEL) redisRaxSize() int {
	keys := make([][16]byte, 0, p.Len())
	p.Each(func(n *StreamNACK) bool {
		keys = append(keys, raxKey(n.ID))
		return true
	})
	return redisRaxSize(len(keys), raxCount(keys, 0))
}

// redisKeySize is what memoryCommand adds for the key itself: its
// dictEntry and the sds dbAdd copies the key into (sdsdup: a type 5
// header below 32 bytes, then 8-, 16- and 32-bit ones), as jemalloc
// allocates it.
func redisKeySize(klen int) int {
	hdr := 1
	switch {
	case klen >= 1<<16:
		hdr = 9
	case klen >= 1<<8:
		hdr = 5
	case klen >= 1<<5:
		hdr = 3
	case klen == 0:
		hdr = 3 // sdsnewlen makes an empty string type 8
	}
	return redisDictEntry + jemalloc.Size(hdr+klen+1)
}

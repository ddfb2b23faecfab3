package store

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
)

// Redis keeps a sorted set in a listpack while it has at most 128 members of
// at most 64 bytes (zset-max-listpack-entries / -value), and converts it to a
// skiplist for good past either limit. We mirror the thresholds so that
// OBJECT ENCODING answers as Redis does.
const (
	ZSetMaxPackedEntries = 128
	ZSetMaxPackedValue   = 64
)

// ZSet is a sorted set: members ordered by score, then by member bytes.
//
// It is built for the sliding-window log: many small sets (tens to hundreds
// of members) trimmed from the low end on every request. A small set is one
// packed buffer (see packed below), about 9 bytes plus the member per entry,
// and every operation is a linear pass over at most 128 entries, which is
// cache-friendly and cheaper than any pointer structure at that size. A large
// set is an order-statistic B+tree plus a member→score map, so ZADD,
// ZREMRANGEBYSCORE and rank queries stay O(log n).
//
// Members passed in are copied; members passed to callbacks alias internal
// memory and are valid only until the set is next modified.
type ZSet struct {
	// packed holds the small form: entries sorted by (score, member), each
	// [8-byte little-endian float64 score][1-byte member length][member].
	packed []byte
	n      int   // members in the packed form
	big    *zbig // the large form; packed is nil once this is set
}

// zbig is the large form. The map gives O(1) score lookups; the tree gives
// order and ranks. Both hold the same member strings (Go strings are
// immutable, so the bytes are stored once).
type zbig struct {
	scores map[string]float64
	tree   ztree
}

// NewZSet returns an empty sorted set in the compact form.
func NewZSet() *ZSet { return &ZSet{} }

// Kind implements Value.
func (z *ZSet) Kind() Kind { return KindZSet }

// Encoding implements Value.
func (z *ZSet) Encoding() string {
	if z.big != nil {
		return "skiplist"
	}
	return "listpack"
}

// Clone implements Value.
func (z *ZSet) Clone() Value {
	c := &ZSet{n: z.n}
	if z.big == nil {
		c.packed = append([]byte(nil), z.packed...)
		return c
	}
	c.big = &zbig{scores: make(map[string]float64, len(z.big.scores))}
	z.Ascend(0, func(m []byte, s float64) bool {
		c.big.insert(string(m), s)
		return true
	})
	return c
}

// Len returns the number of members.
func (z *ZSet) Len() int {
	if z.big != nil {
		return len(z.big.scores)
	}
	return z.n
}

// normScore stores -0 as 0, as Redis replies "0" for a member added at -0.
func normScore(s float64) float64 {
	if s == 0 {
		return 0
	}
	return s
}

// Score returns member's score.
func (z *ZSet) Score(member []byte) (float64, bool) {
	if z.big != nil {
		s, ok := z.big.scores[string(member)]
		return s, ok
	}
	off := z.packedFind(member)
	if off < 0 {
		return 0, false
	}
	return packedScore(z.packed, off), true
}

// Add sets member's score, inserting it if needed, and reports whether it
// was added (false: it existed and only its score may have changed).
func (z *ZSet) Add(member []byte, score float64) bool {
	score = normScore(score)
	if z.big != nil {
		if old, ok := z.big.scores[string(member)]; ok {
			if old != score {
				m := z.big.remove(member, old)
				z.big.insert(m, score)
			}
			return false
		}
		z.big.insert(string(member), score)
		return true
	}
	if off := z.packedFind(member); off >= 0 {
		if packedScore(z.packed, off) != score {
			z.packedDelete(off)
			z.packedInsert(member, score)
		}
		return false
	}
	if z.n+1 > ZSetMaxPackedEntries || len(member) > ZSetMaxPackedValue {
		z.convert()
		z.big.insert(string(member), score)
		return true
	}
	z.packedInsert(member, score)
	return true
}

// Remove deletes member and reports whether it was there.
func (z *ZSet) Remove(member []byte) bool {
	if z.big != nil {
		s, ok := z.big.scores[string(member)]
		if ok {
			z.big.remove(member, s)
		}
		return ok
	}
	off := z.packedFind(member)
	if off < 0 {
		return false
	}
	z.packedDelete(off)
	return true
}

// Rank returns member's 0-based position in ascending order.
func (z *ZSet) Rank(member []byte) (int, bool) {
	if z.big != nil {
		s, ok := z.big.scores[string(member)]
		if !ok {
			return 0, false
		}
		return z.big.tree.countWhile(func(it *zitem) bool { return itemLess(it.score, it.member, s, member) }), true
	}
	rank := 0
	for off := 0; off < len(z.packed); off = packedNext(z.packed, off) {
		if bytes.Equal(packedMember(z.packed, off), member) {
			return rank, true
		}
		rank++
	}
	return 0, false
}

// ScoreBound returns how many members score below s, or at most s if
// inclusive. A score range [min, max] covers the ranks
// [ScoreBound(min, false), ScoreBound(max, true)); an exclusive bound flips
// the flag.
func (z *ZSet) ScoreBound(s float64, inclusive bool) int {
	below := func(score float64) bool { return score < s || inclusive && score == s }
	if z.big != nil {
		return z.big.tree.countWhile(func(it *zitem) bool { return below(it.score) })
	}
	n := 0
	for off := 0; off < len(z.packed) && below(packedScore(z.packed, off)); off = packedNext(z.packed, off) {
		n++
	}
	return n
}

// LexBound is ScoreBound for member order. Like Redis, it assumes all
// members have the same score; otherwise the result is only well defined
// for the order the set is in.
func (z *ZSet) LexBound(m []byte, inclusive bool) int {
	below := func(member string) bool {
		c := strings.Compare(member, string(m))
		return c < 0 || inclusive && c == 0
	}
	if z.big != nil {
		return z.big.tree.countWhile(func(it *zitem) bool { return below(it.member) })
	}
	n := 0
	for off := 0; off < len(z.packed) && below(string(packedMember(z.packed, off))); off = packedNext(z.packed, off) {
		n++
	}
	return n
}

// At returns the member and score at rank (0 <= rank < Len).
func (z *ZSet) At(rank int) ([]byte, float64) {
	if z.big != nil {
		it := z.big.tree.at(rank)
		return []byte(it.member), it.score
	}
	off := z.packedOffset(rank)
	return packedMember(z.packed, off), packedScore(z.packed, off)
}

// Ascend calls fn for the members from rank from upwards until fn returns false.
func (z *ZSet) Ascend(from int, fn func(member []byte, score float64) bool) {
	if z.big != nil {
		z.big.tree.ascend(from, func(it *zitem) bool { return fn([]byte(it.member), it.score) })
		return
	}
	for off := z.packedOffset(from); off < len(z.packed); off = packedNext(z.packed, off) {
		if !fn(packedMember(z.packed, off), packedScore(z.packed, off)) {
			return
		}
	}
}

// Descend calls fn for the members from rank from downwards until fn
// returns false.
func (z *ZSet) Descend(from int, fn func(member []byte, score float64) bool) {
	if from >= z.Len() {
		from = z.Len() - 1
	}
	if z.big != nil {
		for r := from; r >= 0; r-- {
			it := z.big.tree.at(r)
			if !fn([]byte(it.member), it.score) {
				return
			}
		}
		return
	}
	// Entries can only be walked forwards: collect the offsets first.
	var stack [ZSetMaxPackedEntries]int
	k := 0
	for off := 0; k <= from && off < len(z.packed); off = packedNext(z.packed, off) {
		stack[k] = off
		k++
	}
	for k--; k >= 0; k-- {
		if !fn(packedMember(z.packed, stack[k]), packedScore(z.packed, stack[k])) {
			return
		}
	}
}

// RemoveRange deletes the members at ranks [lo, hi) and returns how many it
// deleted.
func (z *ZSet) RemoveRange(lo, hi int) int {
	lo, hi = max(lo, 0), min(hi, z.Len())
	if lo >= hi {
		return 0
	}
	if z.big != nil {
		for i := lo; i < hi; i++ {
			it := z.big.tree.deleteAt(lo)
			delete(z.big.scores, it.member)
		}
		return hi - lo
	}
	start := z.packedOffset(lo)
	end := start
	for i := lo; i < hi; i++ {
		end = packedNext(z.packed, end)
	}
	z.packed = append(z.packed[:start], z.packed[end:]...)
	z.n -= hi - lo
	z.packedShrink()
	return hi - lo
}

// convert moves a packed set to the large form.
func (z *ZSet) convert() {
	big := &zbig{scores: make(map[string]float64, z.n+1)}
	for off := 0; off < len(z.packed); off = packedNext(z.packed, off) {
		big.insert(string(packedMember(z.packed, off)), packedScore(z.packed, off))
	}
	z.big, z.packed, z.n = big, nil, 0
}

func (b *zbig) insert(member string, score float64) {
	b.scores[member] = score
	b.tree.insert(zitem{member: member, score: score})
}

// remove deletes member (whose score is s) and returns the stored string.
func (b *zbig) remove(member []byte, s float64) string {
	rank := b.tree.countWhile(func(it *zitem) bool { return itemLess(it.score, it.member, s, member) })
	it := b.tree.deleteAt(rank)
	delete(b.scores, it.member)
	return it.member
}

// itemLess orders members by score, then by member bytes.
func itemLess(s1 float64, m1 string, s2 float64, m2 []byte) bool {
	if s1 != s2 {
		return s1 < s2
	}
	return m1 < string(m2)
}

// The packed form.

func packedScore(p []byte, off int) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(p[off:]))
}

func packedMember(p []byte, off int) []byte {
	n := int(p[off+8])
	return p[off+9 : off+9+n : off+9+n]
}

func packedNext(p []byte, off int) int { return off + 9 + int(p[off+8]) }

// packedOffset returns the offset of the entry at rank (len(packed) if rank
// is Len).
func (z *ZSet) packedOffset(rank int) int {
	off := 0
	for ; rank > 0 && off < len(z.packed); rank-- {
		off = packedNext(z.packed, off)
	}
	return off
}

func (z *ZSet) packedFind(member []byte) int {
	for off := 0; off < len(z.packed); off = packedNext(z.packed, off) {
		if bytes.Equal(packedMember(z.packed, off), member) {
			return off
		}
	}
	return -1
}

func (z *ZSet) packedInsert(member []byte, score float64) {
	off := 0
	for ; off < len(z.packed); off = packedNext(z.packed, off) {
		if itemLess(score, string(member), packedScore(z.packed, off), packedMember(z.packed, off)) {
			break
		}
	}
	size := 9 + len(member)
	n := len(z.packed)
	if n+size > cap(z.packed) {
		// Grow by an eighth rather than doubling: a sliding window adds
		// about as much as it trims, so the buffer soon stops growing and
		// every spare byte would be kept for good in each of many keys.
		grown := make([]byte, n, n+size+(n+size)/8)
		copy(grown, z.packed)
		z.packed = grown
	}
	z.packed = z.packed[:n+size]
	copy(z.packed[off+size:], z.packed[off:n])
	binary.LittleEndian.PutUint64(z.packed[off:], math.Float64bits(score))
	z.packed[off+8] = byte(len(member))
	copy(z.packed[off+9:], member)
	z.n++
}

func (z *ZSet) packedDelete(off int) {
	z.packed = append(z.packed[:off], z.packed[packedNext(z.packed, off):]...)
	z.n--
	z.packedShrink()
}

// packedShrink gives memory back once a trimmed set uses under half its buffer.
func (z *ZSet) packedShrink() {
	if cap(z.packed) > 64 && len(z.packed) < cap(z.packed)/2 {
		z.packed = append(make([]byte, 0, len(z.packed)+len(z.packed)/8), z.packed...)
	}
}

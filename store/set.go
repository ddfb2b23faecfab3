package store

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/floodgate/floodgate/internal/number"
)

// A set of integers stays an intset up to set-max-intset-entries members
// (512 by default, Encodings). Redis 7.0 has no listpack sets (they came in
// 7.2), so past the limit, or with one member that is not a canonical
// integer, a set is a hashtable for good.

// Set is a set value, in one of Redis 7.0's two encodings:
//
//   - an intset: the members as sorted integers of one width (2, 4 or 8
//     bytes, the narrowest that holds them all, widened as needed and never
//     narrowed, as Redis's intset), so SMEMBERS answers in numeric order as
//     Redis does and a set of small ids costs 2 or 4 bytes a member;
//   - a hashtable (setTable, see denseTable): the members in a dense slice,
//     found through an open-addressing index of 4-byte positions.
type Set struct {
	ints  intset
	table *setTable // the hashtable encoding; ints is empty once this is set
}

// NewSet returns an empty set (an intset).
func NewSet() *Set { return &Set{} }

// Kind returns KindSet.
func (*Set) Kind() Kind { return KindSet }

// Encoding returns "intset" or "hashtable", as OBJECT ENCODING does in 7.0.
func (s *Set) Encoding() string {
	if s.table != nil {
		return "hashtable"
	}
	return "intset"
}

// Clone returns a copy.
func (s *Set) Clone() Value {
	c := &Set{ints: intset{data: slices.Clone(s.ints.data)}}
	if s.table != nil {
		c.table = s.table.clone()
	}
	return c
}

// Len returns the number of members.
func (s *Set) Len() int {
	if s.table != nil {
		return len(s.table.entries)
	}
	return s.ints.len()
}

// Has reports whether m is a member.
func (s *Set) Has(m []byte) bool {
	if s.table != nil {
		_, ok := s.table.find(m)
		return ok
	}
	n, ok := number.ParseInt(m)
	if !ok {
		return false // an intset holds only canonical integers
	}
	_, found := s.ints.search(n)
	return found
}

// Add adds m and reports whether it is new. An intset converts when m is
// not an integer or it would pass enc's set-max-intset-entries.
func (s *Set) Add(m []byte, enc *Encodings) bool {
	if s.table == nil {
		if n, ok := number.ParseInt(m); ok {
			i, found := s.ints.search(n)
			if found {
				return false
			}
			s.ints.insert(i, n)
			if s.ints.len() > enc.intsetMax() {
				s.convert()
			}
			return true
		}
		s.convert()
	}
	return addMember(s.table, m)
}

// Unpack makes an intset a hashtable for good, as RDB loading does to a
// set with more members than set-max-intset-entries.
func (s *Set) Unpack() {
	if s.table == nil {
		s.convert()
	}
}

// Rebuild builds the set anew, as SPOP with a count does with the
// remainder once it pops most of a set (Redis's spopWithCountCommand, case
// 3): a hashtable whose members are all integers, at most enc's
// set-max-intset-entries, becomes an intset again, and an intset takes the
// narrowest width its members allow.
func (s *Set) Rebuild(enc *Encodings) {
	var ints intset
	if s.table == nil {
		for i := range s.ints.len() {
			ints.insert(i, s.ints.at(i))
		}
		s.ints = ints
		return
	}
	if len(s.table.entries) > enc.intsetMax() {
		return
	}
	for _, m := range s.table.entries {
		n, ok := number.ParseInt([]byte(m))
		if !ok {
			return
		}
		i, _ := ints.search(n)
		ints.insert(i, n)
	}
	s.table, s.ints = nil, ints
}

// convert moves an intset to the hashtable encoding.
func (s *Set) convert() {
	t := &setTable{}
	t.grow(s.ints.len() + 1)
	// The digits go through one buffer: a fresh one per member would be
	// allocated between the member strings and keep half of each 16-byte
	// block they share alive.
	var buf [20]byte
	for i := range s.ints.len() {
		addMember(t, strconv.AppendInt(buf[:0], s.ints.at(i), 10))
	}
	s.table, s.ints = t, intset{}
}

// Remove removes m and reports whether it was a member.
func (s *Set) Remove(m []byte) bool {
	if s.table != nil {
		return s.table.remove(m)
	}
	n, ok := number.ParseInt(m)
	if !ok {
		return false
	}
	i, found := s.ints.search(n)
	if found {
		s.ints.remove(i)
	}
	return found
}

// Member returns the member at position i (0 <= i < Len): numeric order
// for an intset, the dense slice's order for a hashtable.
func (s *Set) Member(i int) string {
	if s.table != nil {
		return s.table.entries[i]
	}
	return strconv.FormatInt(s.ints.at(i), 10)
}

// Members returns every member: in numeric order for an intset, in no
// particular order for a hashtable.
func (s *Set) Members() []string {
	out := make([]string, s.Len())
	for i := range out {
		out[i] = s.Member(i)
	}
	return out
}

// Random returns count members picked at random (SRANDMEMBER): distinct
// ones when distinct is set (at most Len(); the whole set in its own order
// when count covers it, as Redis answers), otherwise exactly count, with
// repetitions. Every member is equally likely.
func (s *Set) Random(count int, distinct bool) []string {
	n := s.Len()
	if n == 0 || count <= 0 {
		return nil
	}
	if !distinct {
		out := make([]string, count)
		for i := range out {
			out[i] = s.Member(rand.IntN(n))
		}
		return out
	}
	if count >= n {
		return s.Members()
	}
	out := make([]string, count)
	for i, pos := range Sample(n, count) {
		out[i] = s.Member(pos)
	}
	return out
}

// Pop removes and returns a member picked uniformly at random (SPOP).
// The set must not be empty.
func (s *Set) Pop() string {
	i := rand.IntN(s.Len())
	m := s.Member(i)
	if s.table != nil {
		s.table.removeAt(i)
	} else {
		s.ints.remove(i)
	}
	return m
}

// Scan visits members for SSCAN and returns the cursor to continue from.
// An intset is visited whole with cursor 0, as Redis does. A hashtable is
// walked from the end of its dense slice, count members at a time, as
// Hash.Scan: a removal moves the last member, already visited, into the
// hole, so a member that lives through the whole scan is always returned.
func (s *Set) Scan(cursor uint64, count int, visit func(m string)) uint64 {
	if s.table == nil {
		for i := range s.ints.len() {
			visit(strconv.FormatInt(s.ints.at(i), 10))
		}
		return 0
	}
	return scanDense(s.table.entries, cursor, count, visit)
}

// intset is Redis's intset: sorted integers stored little-endian in the
// narrowest width (2, 4 or 8 bytes) that holds every one of them. The width
// is the first byte (nil: empty, never used), so a Set header stays 32 bytes.
type intset struct {
	data []byte
}

func (is *intset) width() int {
	if len(is.data) == 0 {
		return 0
	}
	return int(is.data[0])
}

func (is *intset) len() int {
	if len(is.data) == 0 {
		return 0
	}
	return (len(is.data) - 1) / is.width()
}

func (is *intset) at(i int) int64 {
	switch w := is.width(); w {
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(is.data[1+2*i:])))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(is.data[1+4*i:])))
	}
	return int64(binary.LittleEndian.Uint64(is.data[1+8*i:]))
}

func (is *intset) put(i int, n int64) {
	switch w := is.width(); w {
	case 2:
		binary.LittleEndian.PutUint16(is.data[1+2*i:], uint16(n))
	case 4:
		binary.LittleEndian.PutUint32(is.data[1+4*i:], uint32(n))
	default:
		binary.LittleEndian.PutUint64(is.data[1+8*i:], uint64(n))
	}
}

// search returns n's position, or where it belongs, and whether it is there.
func (is *intset) search(n int64) (int, bool) {
	lo, hi := 0, is.len()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if is.at(mid) < n {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < is.len() && is.at(lo) == n
}

func widthOf(n int64) int {
	switch {
	case n >= math.MinInt16 && n <= math.MaxInt16:
		return 2
	case n >= math.MinInt32 && n <= math.MaxInt32:
		return 4
	}
	return 8
}

// insert puts n, which is not a member, at position i.
func (is *intset) insert(i int, n int64) {
	if w := widthOf(n); w > is.width() {
		is.widen(w)
	}
	w := is.width()
	size := len(is.data) + w
	if size > cap(is.data) {
		// Exactly what is needed, rounded up to the allocator's size class:
		// many small sets must not each keep spare room for good.
		grown := slices.Grow([]byte(nil), size)[:len(is.data)]
		copy(grown, is.data)
		is.data = grown
	}
	is.data = is.data[:size]
	copy(is.data[1+(i+1)*w:], is.data[1+i*w:])
	is.put(i, n)
}

// widen re-encodes every member at width w (Redis's intsetUpgradeAndAdd).
func (is *intset) widen(w int) {
	old := *is
	n := old.len()
	is.data = make([]byte, 1+n*w, 1+(n+1)*w)
	is.data[0] = byte(w)
	for i := range n {
		is.put(i, old.at(i))
	}
}

func (is *intset) remove(i int) {
	w := is.width()
	is.data = append(is.data[:1+i*w], is.data[1+(i+1)*w:]...)
	if cap(is.data) > 64 && len(is.data) < cap(is.data)/2 {
		is.data = append([]byte(nil), is.data...)
	}
}

// setTable is a set's hashtable encoding.
type setTable = denseTable[wholeKey]

// addMember adds m to t and reports whether it is new.
func addMember(t *setTable, m []byte) bool {
	if _, ok := t.find(m); ok {
		return false
	}
	t.append(hashMember(m), string(m))
	return true
}

// IntsetWidth returns the byte width of an intset's integers (2, 4 or 8;
// like Redis's, it only grows), or 0 for a hashtable.
func (s *Set) IntsetWidth() int {
	if s.table != nil {
		return 0
	}
	return s.ints.width()
}

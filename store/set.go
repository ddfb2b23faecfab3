package store

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"strconv"
	"unsafe"

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
	// p is nil while the set is empty, else an intset's block or a
	// *setTable, told apart by their first byte: the intset's width (2, 4
	// or 8) or the table's form (0). One pointer keeps the header at 8
	// bytes: many small sets pay it once per key.
	p unsafe.Pointer
}

// setTable is a set's hashtable encoding. Its leading zero byte is what
// tells it from an intset (Set.p); that makes it a 64-byte object rather
// than 48, paid once per hashtable set, against 24 bytes saved per set.
type setTable struct {
	form uint8 // always 0, where an intset has its width
	denseTable[wholeKey]
}

// table returns the hashtable encoding, or nil while an intset.
func (s *Set) table() *setTable {
	if s.p == nil || *(*uint8)(s.p) != 0 {
		return nil
	}
	return (*setTable)(s.p)
}

// ints returns the intset (empty once a hashtable).
func (s *Set) ints() intset {
	if s.p == nil || *(*uint8)(s.p) == 0 {
		return nil
	}
	return intsetAt(s.p)
}

func (s *Set) setInts(is intset) { s.p = unsafe.Pointer(unsafe.SliceData(is)) }

// NewSet returns an empty set (an intset).
func NewSet() *Set { return &Set{} }

// Kind returns KindSet.
func (*Set) Kind() Kind { return KindSet }

// Encoding returns "intset" or "hashtable", as OBJECT ENCODING does in 7.0.
func (s *Set) Encoding() string {
	if s.table() != nil {
		return "hashtable"
	}
	return "intset"
}

// Clone returns a copy.
func (s *Set) Clone() Value {
	if t := s.table(); t != nil {
		return &Set{p: unsafe.Pointer(&setTable{denseTable: *t.clone()})}
	}
	c := &Set{}
	if is := s.ints(); len(is) > 0 {
		c.setInts(append(make(intset, 0, sizeClass(len(is))), is...))
	}
	return c
}

// Len returns the number of members.
func (s *Set) Len() int {
	if t := s.table(); t != nil {
		return len(t.entries)
	}
	return s.ints().len()
}

// Has reports whether m is a member.
func (s *Set) Has(m []byte) bool {
	if t := s.table(); t != nil {
		_, ok := t.find(m)
		return ok
	}
	n, ok := number.ParseInt(m)
	if !ok {
		return false // an intset holds only canonical integers
	}
	_, found := s.ints().search(n)
	return found
}

// Add adds m and reports whether it is new. An intset converts when m is
// not an integer or it would pass enc's set-max-intset-entries.
func (s *Set) Add(m []byte, enc *Encodings) bool {
	if s.table() == nil {
		if n, ok := number.ParseInt(m); ok {
			is := s.ints()
			i, found := is.search(n)
			if found {
				return false
			}
			is = is.insert(i, n)
			s.setInts(is)
			if is.len() > enc.intsetMax() {
				s.convert()
			}
			return true
		}
		s.convert()
	}
	return addMember(s.table(), m)
}

// AddAll adds members, as SADD does, and returns how many are new. Once
// the set is a hashtable that must grow, it grows once for every member
// still to come (see reserve).
func (s *Set) AddAll(members [][]byte, enc *Encodings) int {
	added, reserved := 0, false
	for i, m := range members {
		if t := s.table(); !reserved && t != nil && len(t.entries) == cap(t.entries) {
			t.reserve(len(members) - i)
			reserved = true
		}
		if s.Add(m, enc) {
			added++
		}
	}
	if reserved {
		s.table().fit()
	}
	return added
}

// AddSet adds every member of src, as Redis's SUNION and SDIFF add a
// source set to their result member by member, and leaves the same
// encoding that would. Into an empty set, a hashtable source with more
// members than set-max-intset-entries is copied whole: it would convert
// the result anyway, and copying its entries and index skips hashing and
// probing for each member (SUNIONSTORE of a 1M-member set: most of its
// CPU). Members go in as src's strings, shared, not copied: a member
// string is never changed in place.
func (s *Set) AddSet(src *Set, enc *Encodings) {
	st := src.table()
	if st == nil {
		var buf [20]byte
		is := src.ints()
		for i := range is.len() {
			s.Add(strconv.AppendInt(buf[:0], is.at(i), 10), enc)
		}
		return
	}
	if s.p == nil && len(st.entries) > enc.intsetMax() {
		s.p = unsafe.Pointer(&setTable{denseTable: *st.clone()})
		return
	}
	reserved := false
	for i, m := range st.entries {
		t := s.table()
		if t == nil {
			s.Add(unsafe.Slice(unsafe.StringData(m), len(m)), enc)
			continue
		}
		if !reserved {
			t.reserve(len(st.entries) - i)
			reserved = true
		}
		h := maphash.String(setSeed, m)
		if _, ok := t.findHashed(unsafe.Slice(unsafe.StringData(m), len(m)), h); !ok {
			t.append(h, m)
		}
	}
	if reserved {
		s.table().fit()
	}
}

// Unpack makes an intset a hashtable for good, as RDB loading does to a
// set with more members than set-max-intset-entries.
func (s *Set) Unpack() {
	if s.table() == nil {
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
	t := s.table()
	if t == nil {
		old := s.ints()
		for i := range old.len() {
			ints = ints.insert(i, old.at(i))
		}
		s.setInts(ints)
		return
	}
	if len(t.entries) > enc.intsetMax() {
		return
	}
	for _, m := range t.entries {
		n, ok := number.ParseInt([]byte(m))
		if !ok {
			return
		}
		i, _ := ints.search(n)
		ints = ints.insert(i, n)
	}
	s.setInts(ints)
}

// convert moves an intset to the hashtable encoding.
func (s *Set) convert() {
	is := s.ints()
	t := &setTable{}
	t.grow(is.len() + 1)
	// The digits go through one buffer: a fresh one per member would be
	// allocated between the member strings and keep half of each 16-byte
	// block they share alive.
	var buf [20]byte
	for i := range is.len() {
		addMember(t, strconv.AppendInt(buf[:0], is.at(i), 10))
	}
	s.p = unsafe.Pointer(t)
}

// Remove removes m and reports whether it was a member.
func (s *Set) Remove(m []byte) bool {
	if t := s.table(); t != nil {
		return t.remove(m)
	}
	n, ok := number.ParseInt(m)
	if !ok {
		return false
	}
	is := s.ints()
	i, found := is.search(n)
	if found {
		s.setInts(is.remove(i))
	}
	return found
}

// Member returns the member at position i (0 <= i < Len): numeric order
// for an intset, the dense slice's order for a hashtable.
func (s *Set) Member(i int) string {
	if t := s.table(); t != nil {
		return t.entries[i]
	}
	return strconv.FormatInt(s.ints().at(i), 10)
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
func (s *Set) Random(rng *rand.Rand, count int, distinct bool) []string {
	n := s.Len()
	if n == 0 || count <= 0 {
		return nil
	}
	if !distinct {
		out := make([]string, count)
		for i := range out {
			out[i] = s.Member(rng.IntN(n))
		}
		return out
	}
	if count >= n {
		return s.Members()
	}
	out := make([]string, count)
	for i, pos := range Sample(rng, n, count) {
		out[i] = s.Member(pos)
	}
	return out
}

// Pop removes and returns a member picked uniformly at random (SPOP).
// The set must not be empty.
func (s *Set) Pop(rng *rand.Rand) string {
	i := rng.IntN(s.Len())
	m := s.Member(i)
	if t := s.table(); t != nil {
		t.removeAt(i)
	} else {
		s.setInts(s.ints().remove(i))
	}
	return m
}

// Scan visits members for SSCAN and returns the cursor to continue from.
// An intset is visited whole with cursor 0, as Redis does. A hashtable is
// walked from the end of its dense slice, count members at a time, as
// Hash.Scan: a removal moves the last member, already visited, into the
// hole, so a member that lives through the whole scan is always returned.
func (s *Set) Scan(cursor uint64, count int, visit func(m string)) uint64 {
	t := s.table()
	if t == nil {
		is := s.ints()
		for i := range is.len() {
			visit(strconv.FormatInt(is.at(i), 10))
		}
		return 0
	}
	return scanDense(t.entries, cursor, count, visit)
}

// intset is Redis's intset: sorted integers stored little-endian in the
// narrowest width (2, 4 or 8 bytes) that holds every one of them, after a
// header of the width (one byte) and the count (a uint32). An intset is
// the view of its block's used bytes (nil: empty). The block is
// sizeClass(len) bytes, what is needed rounded only by Go's size class (as
// Redis's intsetResize reallocates on every change), so no capacity need
// be kept: it grows or shrinks in place within its class and moves when it
// crosses to another one.
type intset []byte

const intsetHeader = 5

// intsetAt returns the intset whose block starts at p.
func intsetAt(p unsafe.Pointer) intset {
	hdr := intset(unsafe.Slice((*byte)(p), intsetHeader))
	return unsafe.Slice((*byte)(p), intsetHeader+hdr.len()*hdr.width())
}

func (is intset) width() int {
	if len(is) == 0 {
		return 0
	}
	return int(is[0])
}

func (is intset) len() int {
	if len(is) == 0 {
		return 0
	}
	return int(binary.LittleEndian.Uint32(is[1:]))
}

func (is intset) at(i int) int64 {
	switch is.width() {
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(is[intsetHeader+2*i:])))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(is[intsetHeader+4*i:])))
	}
	return int64(binary.LittleEndian.Uint64(is[intsetHeader+8*i:]))
}

func (is intset) put(i int, n int64) {
	switch is.width() {
	case 2:
		binary.LittleEndian.PutUint16(is[intsetHeader+2*i:], uint16(n))
	case 4:
		binary.LittleEndian.PutUint32(is[intsetHeader+4*i:], uint32(n))
	default:
		binary.LittleEndian.PutUint64(is[intsetHeader+8*i:], uint64(n))
	}
}

// search returns n's position, or where it belongs, and whether it is there.
// The width is read once, as SISMEMBER and SADD both come through here.
func (is intset) search(n int64) (int, bool) {
	lo, hi := 0, is.len()
	if hi == 0 {
		return 0, false
	}
	w, members := int(is[0]), is[intsetHeader:]
	at := func(i int) int64 {
		switch w {
		case 2:
			return int64(int16(binary.LittleEndian.Uint16(members[2*i:])))
		case 4:
			return int64(int32(binary.LittleEndian.Uint32(members[4*i:])))
		}
		return int64(binary.LittleEndian.Uint64(members[8*i:]))
	}
	count := hi
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if at(mid) < n {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < count && at(lo) == n
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

// resized returns the intset's bytes at length size, the block reused while
// size stays in its size class, else copied into a new block.
func (is intset) resized(size int) intset {
	if len(is) > 0 && sizeClass(size) == sizeClass(len(is)) {
		return unsafe.Slice(unsafe.SliceData(is), size)
	}
	b := make([]byte, size, sizeClass(size))
	copy(b, is)
	return b
}

// insert puts n, which is not a member, at position i, and returns the
// intset (its block may have moved).
func (is intset) insert(i int, n int64) intset {
	count := is.len()
	if w := widthOf(n); w > is.width() {
		is = is.widened(w, count+1)
	} else {
		is = is.resized(intsetHeader + (count+1)*is.width())
	}
	w := is.width()
	copy(is[intsetHeader+(i+1)*w:], is[intsetHeader+i*w:])
	is.put(i, n)
	binary.LittleEndian.PutUint32(is[1:], uint32(count+1))
	return is
}

// widened returns a new block of width w with room for size members, the
// members re-encoded (Redis's intsetUpgradeAndAdd).
func (is intset) widened(w, size int) intset {
	count := is.len()
	b := make(intset, intsetHeader+size*w, sizeClass(intsetHeader+size*w))
	b[0] = byte(w)
	for i := range count {
		b.put(i, is.at(i))
	}
	binary.LittleEndian.PutUint32(b[1:], uint32(count))
	return b
}

// remove deletes the member at position i and returns the intset (nil
// once empty; its block may have moved).
func (is intset) remove(i int) intset {
	w, count := is.width(), is.len()
	if count == 1 {
		return nil
	}
	copy(is[intsetHeader+i*w:], is[intsetHeader+(i+1)*w:])
	is = is.resized(intsetHeader + (count-1)*w)
	binary.LittleEndian.PutUint32(is[1:], uint32(count-1))
	return is
}

// addMember adds m to t and reports whether it is new.
func addMember(t *setTable, m []byte) bool {
	h := hashMember(m)
	if _, ok := t.findHashed(m, h); ok {
		return false
	}
	t.append(h, string(m))
	return true
}

// IntsetWidth returns the byte width of an intset's integers (2, 4 or 8;
// like Redis's, it only grows), or 0 for a hashtable.
func (s *Set) IntsetWidth() int {
	return s.ints().width()
}

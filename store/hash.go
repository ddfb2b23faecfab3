package store

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
	"iter"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"unsafe"

	"github.com/floodgate/floodgate/internal/number"
)

// A hash stays a listpack while it has at most hash-max-listpack-entries
// fields (512 by default) and no field or value written to it is longer than
// hash-max-listpack-value (64); past either it becomes a hashtable for good
// (Encodings).

// Errors of the hash increments, with Redis 7.0's text.
var (
	ErrHashNotInteger = errors.New("ERR hash value is not an integer")
	ErrHashNotFloat   = errors.New("ERR hash value is not a float")
)

// HashField is one field of a hash and its value.
type HashField struct {
	Name, Value string
}

// Hash is a hash value, in one of Redis 7.0's two encodings:
//
//   - a listpack (lp): one byte slice, a 2-byte field count and then each
//     field's name and value as packed entries (see appendLPEntry), in
//     insertion order, found by a linear scan as Redis's listpack, so
//     HGETALL answers in Redis's order and a small hash costs one
//     allocation;
//   - a hashtable (hashTable): each field's name and value in one string of
//     a dense slice, found through an open-addressing index of 4-byte
//     positions, as setTable; deletion swap-removes.
type Hash struct {
	// p is the listpack's bytes (nil while empty), n and c their length and
	// capacity; once a hashtable, c is tableForm and p the *hashTable. That
	// keeps the header at 16 bytes: with many small hashes it is paid per key.
	p    unsafe.Pointer
	n, c uint32
}

// tableForm in Hash.c marks the hashtable encoding.
const tableForm = math.MaxUint32

// lp returns the listpack (nil once a hashtable).
func (h *Hash) lp() []byte {
	if h.p == nil || h.c == tableForm {
		return nil
	}
	return unsafe.Slice((*byte)(h.p), h.c)[:h.n]
}

func (h *Hash) setLP(b []byte) {
	if cap(b) == 0 {
		h.p, h.n, h.c = nil, 0, 0
		return
	}
	h.p, h.n, h.c = unsafe.Pointer(unsafe.SliceData(b)), uint32(len(b)), uint32(cap(b))
}

// table returns the hashtable encoding, or nil while a listpack.
func (h *Hash) table() *hashTable {
	if h.c != tableForm {
		return nil
	}
	return (*hashTable)(h.p)
}

// NewHash returns an empty hash (a listpack).
func NewHash() *Hash { return &Hash{} }

// Kind returns KindHash.
func (*Hash) Kind() Kind { return KindHash }

// Encoding returns "listpack" or "hashtable", as OBJECT ENCODING does.
func (h *Hash) Encoding() string {
	if h.table() != nil {
		return "hashtable"
	}
	return "listpack"
}

// Clone returns a copy.
func (h *Hash) Clone() Value {
	c := &Hash{}
	if t := h.table(); t != nil {
		c.p, c.c = unsafe.Pointer(t.clone()), tableForm
	} else {
		c.setLP(slices.Clip(slices.Clone(h.lp())))
	}
	return c
}

// Size returns the approximate heap bytes of the value.
func (h *Hash) Size() int {
	n := 16 + allocSize(cap(h.lp()))
	if t := h.table(); t != nil {
		// Sampled, as this runs after every change (see sampleLen).
		avg := sampleLen(len(t.entries), func(i int) int { return allocSize(len(t.entries[i])) })
		n += 48 + allocSizeScan(16*cap(t.entries)) + allocSize(4*cap(t.index)) + len(t.entries)*avg
	}
	return n
}

// Len returns the number of fields.
func (h *Hash) Len() int {
	if h.table() != nil {
		return len(h.table().entries)
	}
	lp := h.lp()
	if len(lp) == 0 {
		return 0
	}
	if n := binary.LittleEndian.Uint16(lp); n < lpCountMax {
		return int(n)
	}
	return lpFields(lp)
}

// lpFields counts a listpack's fields.
func lpFields(lp []byte) int {
	n := 0
	for off := lpStart(lp); off < len(lp); n++ {
		off = lpSkip(lp, off)
	}
	return n / 2
}

// lpCountMax is where the listpack's 2-byte field count saturates, as
// Redis's listpack count does at 65535 (a raised hash-max-listpack-entries):
// past it Len counts the entries.
const lpCountMax = 1<<16 - 1

// lpAddCount moves the listpack's field count by d.
func (h *Hash) lpAddCount(d int) {
	lp := h.lp()
	n := int(binary.LittleEndian.Uint16(lp))
	if n == lpCountMax {
		n = lpFields(lp)
	} else {
		n += d
	}
	binary.LittleEndian.PutUint16(lp, uint16(min(n, lpCountMax)))
}

// All yields every field and its value in iteration order (insertion order
// while a listpack). The hash must not change during the iteration.
func (h *Hash) All() iter.Seq2[string, string] {
	return func(yield func(name, value string) bool) {
		if h.table() != nil {
			for _, e := range h.table().entries {
				if !yield(splitHashEntry(e)) {
					return
				}
			}
			return
		}
		lp := h.lp()
		for off := lpStart(lp); off < len(lp); {
			name, vo := lpString(lp, off)
			value, next := lpString(lp, vo)
			if !yield(name, value) {
				return
			}
			off = next
		}
	}
}

// Fields returns a copy of the fields in iteration order.
func (h *Hash) Fields() []HashField {
	out := make([]HashField, 0, h.Len())
	for name, value := range h.All() {
		out = append(out, HashField{name, value})
	}
	return out
}

// field returns the field at position i of the iteration order.
func (h *Hash) field(i int) HashField {
	if h.table() != nil {
		name, value := splitHashEntry(h.table().entries[i])
		return HashField{name, value}
	}
	lp := h.lp()
	off := lpStart(lp)
	for ; i > 0; i-- {
		off = lpSkip(lp, lpSkip(lp, off))
	}
	name, vo := lpString(lp, off)
	value, _ := lpString(lp, vo)
	return HashField{name, value}
}

// Get returns the value of field name.
func (h *Hash) Get(name []byte) (string, bool) {
	if h.table() != nil {
		if pos, ok := h.table().find(name); ok {
			_, v := splitHashEntry(h.table().entries[pos])
			return v, true
		}
		return "", false
	}
	if vo, ok := h.lpFind(name); ok {
		v, _ := lpString(h.lp(), vo)
		return v, true
	}
	return "", false
}

// Has reports whether field name exists.
func (h *Hash) Has(name []byte) bool {
	if h.table() != nil {
		_, ok := h.table().find(name)
		return ok
	}
	_, ok := h.lpFind(name)
	return ok
}

// Set sets field name to value and reports whether the field is new. As
// Redis's hashTypeSet, a field or value longer than enc's
// hash-max-listpack-value converts a listpack to a hashtable first, and a
// field count past hash-max-listpack-entries after the write (an update
// too) converts it then.
func (h *Hash) Set(name, value []byte, enc *Encodings) (added bool) {
	return h.set(name, value, enc)
}

// SetAll sets fields from field, value pairs, as HSET does, and returns
// how many are new. Once the hash is a hashtable that must grow, it grows
// once for every pair still to come (see reserve).
func (h *Hash) SetAll(fieldValues [][]byte, enc *Encodings) int {
	added, reserved := 0, false
	for i := 0; i+1 < len(fieldValues); i += 2 {
		if t := h.table(); !reserved && t != nil && len(t.entries) == cap(t.entries) {
			t.reserve((len(fieldValues) - i) / 2)
			reserved = true
		}
		if h.set(fieldValues[i], fieldValues[i+1], enc) {
			added++
		}
	}
	if reserved {
		h.table().fit()
	}
	return added
}

func (h *Hash) set(name, value []byte, enc *Encodings) bool {
	if h.table() == nil && (int64(len(name)) > enc.HashMaxListpackValue || int64(len(value)) > enc.HashMaxListpackValue ||
		len(h.lp())+len(name)+len(value) > packedMaxBytes) {
		h.convert()
	}
	if h.table() != nil {
		return setField(h.table(), name, value)
	}
	added := false
	if vo, ok := h.lpFind(name); ok {
		var buf [16 + 64]byte
		h.lpReplace(vo, lpSkip(h.lp(), vo), appendLPEntry(buf[:0], value))
	} else {
		var buf [2 + 2*(16+64)]byte
		b := buf[:0]
		if len(h.lp()) == 0 {
			b = buf[:2] // the count, set below
		}
		h.lpReplace(len(h.lp()), len(h.lp()), appendLPEntry(appendLPEntry(b, name), value))
		h.lpAddCount(1)
		added = true
	}
	if int64(h.Len()) > enc.HashMaxListpackEntries {
		h.convert()
	}
	return added
}

// Unpack makes a listpack a hashtable for good, as RDB loading does to a
// hash with more fields than hash-max-listpack-entries.
func (h *Hash) Unpack() {
	if h.table() == nil {
		h.convert()
	}
}

// convert makes the hash a hashtable.
func (h *Hash) convert() {
	t := &hashTable{entries: make([]string, 0, h.Len()+1)}
	t.grow(h.Len() + 1)
	for name, value := range h.All() {
		t.append(maphash.String(setSeed, name), makeHashEntry(name, value))
	}
	h.p, h.n, h.c = unsafe.Pointer(t), 0, tableForm
}

// Delete removes field name and reports whether it existed.
func (h *Hash) Delete(name []byte) bool {
	if h.table() != nil {
		return h.table().remove(name)
	}
	vo, ok := h.lpFind(name)
	if !ok {
		return false
	}
	off := h.lpNameBefore(vo)
	h.lpReplace(off, lpSkip(h.lp(), vo), nil)
	if len(h.lp()) <= 2 {
		h.setLP(nil)
		return true
	}
	h.lpAddCount(-1)
	return true
}

// IncrBy adds delta to the integer in field name (created at 0) and returns
// the result (HINCRBY).
func (h *Hash) IncrBy(name []byte, delta int64, enc *Encodings) (int64, error) {
	var n int64
	vo, inLP := -1, false
	if h.table() == nil {
		vo, inLP = h.lpFind(name)
	}
	if inLP {
		// A listpack keeps an integer as one: no parsing, and the new value
		// goes straight where the old one was.
		var ok bool
		if n, ok = lpInt(h.lp(), vo); !ok {
			v, _ := lpString(h.lp(), vo)
			if n, ok = number.ParseInt(v); !ok {
				return 0, ErrHashNotInteger
			}
		}
	} else if v, ok := h.Get(name); ok {
		if n, ok = number.ParseInt(v); !ok {
			return 0, ErrHashNotInteger
		}
	}
	if (delta < 0 && n < 0 && delta < math.MinInt64-n) || (delta > 0 && n > 0 && delta > math.MaxInt64-n) {
		return 0, ErrOverflow
	}
	n += delta
	var buf [20]byte
	digits := strconv.AppendInt(buf[:0], n, 10)
	if inLP && int64(len(name)) <= enc.HashMaxListpackValue && int64(len(digits)) <= enc.HashMaxListpackValue &&
		int64(h.Len()) <= enc.HashMaxListpackEntries {
		h.lpReplace(vo, lpSkip(h.lp(), vo), appendLPInt(buf[:0], n))
	} else {
		h.set(name, digits, enc)
	}
	return n, nil
}

// IncrByFloat adds delta to the number in field name (created at 0) in
// long double arithmetic, stores the result formatted as Redis does, and
// returns it (HINCRBYFLOAT). delta must be finite.
func (h *Hash) IncrByFloat(name []byte, delta *big.Float, enc *Encodings) (string, error) {
	value := new(big.Float).SetPrec(number.LongDoublePrec)
	if v, ok := h.Get(name); ok {
		if value, ok = number.ParseLongDouble(v); !ok {
			return "", ErrHashNotFloat
		}
	}
	sum, ok := number.AddLongDouble(value, delta)
	if !ok {
		return "", ErrNaNOrInf
	}
	s := number.FormatLongDouble(sum)
	h.set(name, []byte(s), enc)
	return s, nil
}

// Random returns count fields picked at random (HRANDFIELD): distinct ones,
// at most Len(), when distinct is set (the whole hash, in order, when count
// covers it, as Redis does); otherwise exactly count, with repetitions.
// Every field is equally likely.
func (h *Hash) Random(rng *rand.Rand, count int, distinct bool) []HashField {
	n := h.Len()
	if n == 0 || count <= 0 {
		return nil
	}
	if distinct && count >= n {
		return h.Fields()
	}
	at := h.field
	if h.table() == nil && count > 1 {
		fields := h.Fields() // one walk instead of one per pick
		at = func(i int) HashField { return fields[i] }
	}
	out := make([]HashField, count)
	if !distinct {
		for i := range out {
			out[i] = at(rng.IntN(n))
		}
		return out
	}
	for i, pos := range Sample(rng, n, count) {
		out[i] = at(pos)
	}
	return out
}

// Scan visits fields for HSCAN and returns the cursor to continue from. A
// listpack is visited whole with cursor 0, as Redis does. A hashtable is
// walked from the end of its dense slice, count fields at a time, as
// Set.Scan: swap-removal moves an already visited field into a hole, so a
// field that lives through the whole scan is always returned.
func (h *Hash) Scan(cursor uint64, count int, visit func(f HashField)) uint64 {
	if h.table() == nil {
		for name, value := range h.All() {
			visit(HashField{name, value})
		}
		return 0
	}
	return scanDense(h.table().entries, cursor, count, func(e string) {
		name, value := splitHashEntry(e)
		visit(HashField{name, value})
	})
}

// A listpack entry is a string or, for a string that is a canonical
// integer, the integer (as Redis's listpack also stores them, so a 13-digit
// millisecond timestamp takes 7 bytes). Its first byte b says which:
//
//   - b even: a string; its length*2 as a uvarint, then its bytes;
//   - b odd, under 0x80: a small integer, zigzag-encoded in b>>1 (-32..31);
//   - b odd, 0x80 and up: an integer whose zigzag encoding follows in
//     (b>>1)&7+1 little-endian bytes, so it is skipped in one step.
//
// The encoding of a string is unique, so entries compare as bytes.
func appendLPEntry(dst, s []byte) []byte {
	if len(s) <= 20 {
		if n, ok := number.ParseInt(s); ok {
			return appendLPInt(dst, n)
		}
	}
	dst = binary.AppendUvarint(dst, uint64(len(s))<<1)
	return append(dst, s...)
}

func appendLPInt(dst []byte, n int64) []byte {
	z := uint64(n<<1 ^ n>>63)
	if z < 64 {
		return append(dst, byte(z<<1|1))
	}
	k := (bits.Len64(z) + 7) / 8
	dst = append(dst, byte(0x80|(k-1)<<1|1))
	for ; k > 0; k, z = k-1, z>>8 {
		dst = append(dst, byte(z))
	}
	return dst
}

func lpStart(lp []byte) int { return min(len(lp), 2) }

// lpSkip returns the offset of the entry after the one at off.
func lpSkip(lp []byte, off int) int {
	b := lp[off]
	switch {
	case b&1 == 1 && b < 0x80:
		return off + 1
	case b&1 == 1:
		return off + 2 + int(b>>1&7)
	case b < 0x80: // a short string: most entries
		return off + 1 + int(b>>1)
	}
	hdr, n := binary.Uvarint(lp[off:])
	return off + n + int(hdr>>1)
}

// lpInt returns the entry at off if it is an integer.
func lpInt(lp []byte, off int) (int64, bool) {
	b := lp[off]
	if b&1 == 0 {
		return 0, false
	}
	z := uint64(b >> 1)
	if b >= 0x80 {
		z = 0
		for i := int(b >> 1 & 7); i >= 0; i-- {
			z = z<<8 | uint64(lp[off+1+i])
		}
	}
	return int64(z>>1) ^ -int64(z&1), true
}

// lpString returns the entry at off as a string, and the next entry's offset.
func lpString(lp []byte, off int) (string, int) {
	next := lpSkip(lp, off)
	if n, ok := lpInt(lp, off); ok {
		return strconv.FormatInt(n, 10), next
	}
	_, k := binary.Uvarint(lp[off:])
	return string(lp[off+k : next]), next
}

// lpFind returns the offset of field name's value entry.
func (h *Hash) lpFind(name []byte) (int, bool) {
	lp := h.lp()
	if len(lp) == 0 {
		return 0, false
	}
	var buf [16 + 64]byte
	want := appendLPEntry(buf[:0], name)
	for off := lpStart(lp); off < len(lp); {
		next := lpSkip(lp, off)
		if lp[off] == want[0] && next-off == len(want) && string(lp[off:next]) == string(want) {
			return next, true
		}
		off = lpSkip(lp, next)
	}
	return 0, false
}

// lpNameBefore returns the offset of the name entry whose value is at vo.
func (h *Hash) lpNameBefore(vo int) int {
	lp := h.lp()
	for off := lpStart(lp); ; {
		next := lpSkip(lp, off)
		if next == vo {
			return off
		}
		off = lpSkip(lp, next)
	}
}

// lpReplace replaces lp[from:to] with b. The listpack grows to what it
// needs (plus an eighth once large, so building a big one is not
// quadratic), and shrinks once mostly empty: many small hashes must not
// each keep spare room.
func (h *Hash) lpReplace(from, to int, b []byte) {
	lp := h.lp()
	size := len(lp) - (to - from) + len(b)
	if size > cap(lp) {
		want := size
		if want > 256 {
			want += want / 8
		}
		grown := slices.Grow([]byte(nil), want)[:len(lp)]
		copy(grown, lp)
		lp = grown
	}
	tail := len(lp)
	lp = lp[:max(size, tail)]
	copy(lp[from+len(b):], lp[to:tail])
	copy(lp[from:], b)
	lp = lp[:size]
	if cap(lp) > 64 && size < cap(lp)/2 {
		lp = slices.Clip(slices.Clone(lp))
	}
	h.setLP(lp)
}

// A hashTable entry holds a field's name and value in one string: the
// name's length as a uvarint, the name, the value.
func makeHashEntry[T ~string | ~[]byte](name, value T) string {
	// Exactly the bytes needed (the accounting charges the length's size
	// class): room for a longest varint would put a 21-byte entry in the
	// 32-byte class.
	var hdr [binary.MaxVarintLen64]byte
	h := binary.PutUvarint(hdr[:], uint64(len(name)))
	b := make([]byte, 0, h+len(name)+len(value))
	b = append(b, hdr[:h]...)
	b = append(append(b, name...), value...)
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is never written again
}

func splitHashEntry(e string) (name, value string) {
	n, k := uvarintString(e)
	return e[k : k+int(n)], e[k+int(n):]
}

func uvarintString(s string) (uint64, int) {
	var x uint64
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b < 0x80 {
			return x | uint64(b)<<(7*i), i + 1
		}
		x |= uint64(b&0x7f) << (7 * i)
	}
	return 0, 0
}

func hashEntryName(e string) string {
	name, _ := splitHashEntry(e)
	return name
}

// hashTable is a hash's hashtable encoding, keyed by field name.
type hashTable = denseTable[nameKey]

// nameKey keys a hash's entries by their field name.
type nameKey struct{}

func (nameKey) key(e string) string { return hashEntryName(e) }

// setField sets field name of t to value and reports whether it is new.
func setField(t *hashTable, name, value []byte) bool {
	h := hashMember(name)
	if pos, ok := t.findHashed(name, h); ok {
		t.entries[pos] = makeHashEntry(name, value)
		return false
	}
	t.append(h, makeHashEntry(name, value))
	return true
}

// View returns the value of field name without copying it where it can:
// a view into the hash, or the integer formatted into scratch. The bytes
// must not be modified and are valid until the hash changes (HGET's reply
// copies them at once).
func (h *Hash) View(name []byte, scratch *[20]byte) ([]byte, bool) {
	if h.table() != nil {
		v, ok := h.Get(name)
		return unsafe.Slice(unsafe.StringData(v), len(v)), ok
	}
	vo, ok := h.lpFind(name)
	if !ok {
		return nil, false
	}
	lp := h.lp()
	if n, isInt := lpInt(lp, vo); isInt {
		return strconv.AppendInt(scratch[:0], n, 10), true
	}
	_, k := binary.Uvarint(lp[vo:])
	return lp[vo+k : lpSkip(lp, vo)], true
}

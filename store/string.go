package store

import (
	"math"
	"strconv"
	"unsafe"

	"github.com/floodgate/floodgate/internal/number"
)

// String is a string value. A value that is the canonical decimal form of an
// int64 is kept as the integer (Redis's "int" encoding), so INCR on a
// rate-limit counter neither parses nor allocates.
//
// It is two words, 32 bytes, the smallest allocation that holds them: the
// flags live in the words (a byte string's b is never nil, and its n is
// rawBytes once modified in place), as a million counters pay for every
// byte of it. A byte string of up to 8 bytes that is not raw keeps them in
// n itself, b pointing there (embedded): a million short values then cost
// 32 MB, not 40 and a million allocations more, as Redis's embstr holds
// its bytes in the object.
type String struct {
	b []byte // the bytes; nil when the value is the integer n
	n int64  // the integer; for bytes, rawBytes or 0, or the bytes themselves (embedded)
}

// embedMax is the most bytes a String holds in n.
const embedMax = int(unsafe.Sizeof(int64(0)))

// rawBytes marks a byte string modified in place (APPEND, SETRANGE): Redis
// reports "raw" for it.
const rawBytes = 1

// byteString returns a String of b, which it owns; b may be nil (empty).
// A short one that is not raw holds a copy of b instead (embedded).
func byteString(b []byte, raw bool) *String {
	if b == nil {
		b = []byte{} // non-nil, no allocation: nil means an integer
	}
	if !raw && len(b) > 0 && len(b) <= embedMax {
		s := &String{}
		s.embed(b)
		return s
	}
	s := &String{b: b}
	if raw {
		s.n = rawBytes
	}
	return s
}

// embed makes s the byte string b, 1 to embedMax bytes held in s.n; b may
// be s's own bytes.
func (s *String) embed(b []byte) {
	var tmp [embedMax]byte
	copy(tmp[:], b)
	s.n = *(*int64)(unsafe.Pointer(&tmp))
	s.b = unsafe.Slice((*byte)(unsafe.Pointer(&s.n)), embedMax)[:len(b)]
}

// embedded reports whether s holds its bytes in s.n (embed). Any copy of
// a String that may be embedded must embed again (Clone, SetBytes): the
// copy's b would point into the original.
func (s *String) embedded() bool {
	return len(s.b) > 0 && unsafe.SliceData(s.b) == (*byte)(unsafe.Pointer(&s.n))
}

// copiedInt marks an integer made by COPY: Redis duplicates the object, so
// even a small integer is then an object of its own rather than one of the
// shared ones (OBJECT REFCOUNT). Such a value's b is an empty slice of this
// array, which no byte string has.
var copiedInt [1]byte

func (s *String) isInt() bool {
	return s.b == nil || len(s.b) == 0 && cap(s.b) == 1 && unsafe.SliceData(s.b) == &copiedInt[0]
}

// Kind returns KindString.
func (*String) Kind() Kind { return KindString }

// Clone returns a copy.
func (s *String) Clone() Value {
	switch {
	case s.isInt():
		return &String{n: s.n, b: copiedInt[:0:1]}
	case s.embedded():
		c := &String{}
		c.embed(s.b)
		return c
	}
	return &String{b: append([]byte{}, s.b...), n: s.n}
}

// Shared reports whether Redis would hold the value as one of its shared
// integer objects (0..9999, OBJECT REFCOUNT 2147483647).
func (s *String) Shared() bool { return s.b == nil && s.n >= 0 && s.n < sharedIntCount }

// sharedIntCount is Redis's OBJ_SHARED_INTEGERS.
const sharedIntCount = 10000

// sharedInts are the values of every key holding an integer 0..9999, as
// Redis's shared.integers: a million counters at 1 then cost no value of
// their own. Nothing may change one in place: the mutators check
// (mustOwn), and the DB's writers replace a shared value instead
// (UnshareString, IncrBy). As Redis, the store makes integers of their own
// instead (ownInt) when maxmemory is set under an LRU or LFU policy, which
// OBJECT REFCOUNT shows (Store.sharing).
var sharedInts = func() *[sharedIntCount]String {
	var a [sharedIntCount]String
	for i := range a {
		a[i].n = int64(i)
	}
	return &a
}()

// ownInt returns a String holding n that is an object of its own even for
// 0..9999, as Redis makes when it shares no integers (OBJECT REFCOUNT 1).
func ownInt(n int64) *String { return &String{n: n, b: copiedInt[:0:1]} }

// intString returns a String holding n: a shared one for 0..9999.
func intString(n int64) *String {
	if n >= 0 && n < sharedIntCount {
		return &sharedInts[n]
	}
	return &String{n: n}
}

// isShared reports whether s is one of the shared integers.
func (s *String) isShared() bool {
	off := uintptr(unsafe.Pointer(s)) - uintptr(unsafe.Pointer(&sharedInts[0]))
	return off < unsafe.Sizeof(*sharedInts)
}

// mustOwn panics before an in-place change of a shared integer, which
// would change every key holding it.
func (s *String) mustOwn() {
	if s.isShared() {
		panic("store: changing a shared integer in place")
	}
}

// Encoding returns "int", "embstr" (up to 44 bytes) or "raw", as Redis does.
func (s *String) Encoding() string {
	switch {
	case s.isInt():
		return "int"
	case s.n == rawBytes && !s.embedded() || len(s.b) > 44:
		return "raw"
	}
	return "embstr"
}

// NewString returns a String holding a copy of b.
func NewString(b []byte) *String {
	if n, ok := number.ParseInt(b); ok {
		return intString(n)
	}
	if len(b) <= embedMax {
		return byteString(b, false) // embedded: a copy
	}
	return byteString(append([]byte{}, b...), false)
}

// StringOf returns a String holding b itself, which the caller gives up
// (SET of a big argument keeps the connection's buffer, as Redis keeps its
// query buffer as the value).
func StringOf(b []byte) *String {
	if n, ok := number.ParseInt(b); ok {
		return intString(n)
	}
	return byteString(b[:len(b):len(b)], false)
}

// NewInt returns a String holding n.
func NewInt(n int64) *String { return intString(n) }

// IsInt reports whether the value is held as an integer (OBJECT ENCODING "int").
func (s *String) IsInt() bool { return s.isInt() }

// Int returns the value as an integer, if it is one.
func (s *String) Int() (int64, bool) { return s.n, s.isInt() }

// AppendTo appends the value's bytes to dst.
func (s *String) AppendTo(dst []byte) []byte {
	if s.isInt() {
		return strconv.AppendInt(dst, s.n, 10)
	}
	return append(dst, s.b...)
}

// Bytes returns the value's bytes. The caller must not modify them.
func (s *String) Bytes() []byte {
	if s.isInt() {
		return strconv.AppendInt(nil, s.n, 10)
	}
	return s.b
}

// Len returns the length in bytes.
func (s *String) Len() int {
	if s.isInt() {
		var buf [24]byte
		return len(strconv.AppendInt(buf[:0], s.n, 10))
	}
	return len(s.b)
}

// SetBytes replaces the value with a copy of b.
func (s *String) SetBytes(b []byte) {
	s.mustOwn()
	switch n := NewString(b); {
	case n.embedded():
		s.embed(b)
	default:
		*s = *n
	}
}

// SetInt replaces the value with n.
func (s *String) SetInt(n int64) {
	s.mustOwn()
	*s = String{n: n}
}

// mutable makes the value a byte string that may be modified in place.
func (s *String) mutable() []byte {
	s.mustOwn()
	switch {
	case s.isInt():
		s.b = strconv.AppendInt(nil, s.n, 10)
	case s.embedded():
		s.b = append([]byte(nil), s.b...) // out of n, which becomes the flag
	}
	s.n = rawBytes
	return s.b
}

// Append appends b and returns the new length (APPEND).
func (s *String) Append(b []byte) int {
	s.b = append(s.mutable(), b...)
	return len(s.b)
}

// SetRange overwrites the value at offset with b, zero-padding as needed,
// and returns the new length (SETRANGE).
func (s *String) SetRange(offset int, b []byte) int {
	v := s.mutable()
	if need := offset + len(b); need > len(v) {
		v = append(v, make([]byte, need-len(v))...)
	}
	copy(v[offset:], b)
	s.b = v
	return len(v)
}

// IncrBy adds delta to an integer value (INCRBY); the value must hold a
// canonical integer. A byte string that spells one (after APPEND or
// SETRANGE) counts too, and becomes int-encoded again, as in Redis. It
// changes s in place, which must not be shared (see DB.IncrBy).
func (s *String) IncrBy(delta int64) (int64, error) {
	n, err := s.plus(delta)
	if err != nil {
		return 0, err
	}
	s.SetInt(n)
	return n, nil
}

// plus returns the value plus delta, for IncrBy.
func (s *String) plus(delta int64) (int64, error) {
	n, ok := s.n, s.isInt()
	if !ok {
		n, ok = number.ParseInt(s.b)
	}
	if !ok {
		return 0, ErrNotInteger
	}
	if (delta > 0 && n > math.MaxInt64-delta) || (delta < 0 && n < math.MinInt64-delta) {
		return 0, ErrOverflow
	}
	return n + delta, nil
}

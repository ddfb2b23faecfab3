package store

import (
	"math"
	"strconv"

	"github.com/floodgate/floodgate/internal/number"
)

// String is a string value. A value that is the canonical decimal form of an
// int64 is kept as the integer (Redis's "int" encoding), so INCR on a
// rate-limit counter neither parses nor allocates.
type String struct {
	b     []byte
	n     int64
	isInt bool
	raw   bool // modified in place (APPEND, SETRANGE): Redis reports "raw"
	// copied marks a COPY's value: Redis duplicates the object, so even
	// a small integer is then an object of its own rather than shared.
	copied bool
}

// Kind returns KindString.
func (*String) Kind() Kind { return KindString }

// Clone returns a copy.
func (s *String) Clone() Value {
	c := *s
	c.b = append([]byte(nil), s.b...)
	c.copied = true
	return &c
}

// Shared reports whether Redis would hold the value as one of its shared
// integer objects (0..9999, OBJECT REFCOUNT 2147483647).
func (s *String) Shared() bool { return s.isInt && s.n >= 0 && s.n < 10000 && !s.copied }

// Encoding returns "int", "embstr" (up to 44 bytes) or "raw", as Redis does.
func (s *String) Encoding() string {
	switch {
	case s.isInt:
		return "int"
	case s.raw || len(s.b) > 44:
		return "raw"
	}
	return "embstr"
}

// NewString returns a String holding a copy of b.
func NewString(b []byte) *String {
	if n, ok := number.ParseInt(b); ok {
		return &String{n: n, isInt: true}
	}
	return &String{b: append([]byte(nil), b...)}
}

// NewInt returns a String holding n.
func NewInt(n int64) *String { return &String{n: n, isInt: true} }

// IsInt reports whether the value is held as an integer (OBJECT ENCODING "int").
func (s *String) IsInt() bool { return s.isInt }

// Int returns the value as an integer, if it is one.
func (s *String) Int() (int64, bool) { return s.n, s.isInt }

// AppendTo appends the value's bytes to dst.
func (s *String) AppendTo(dst []byte) []byte {
	if s.isInt {
		return strconv.AppendInt(dst, s.n, 10)
	}
	return append(dst, s.b...)
}

// Bytes returns the value's bytes. The caller must not modify them.
func (s *String) Bytes() []byte {
	if s.isInt {
		return strconv.AppendInt(nil, s.n, 10)
	}
	return s.b
}

// Len returns the length in bytes.
func (s *String) Len() int {
	if s.isInt {
		var buf [24]byte
		return len(strconv.AppendInt(buf[:0], s.n, 10))
	}
	return len(s.b)
}

// SetBytes replaces the value with a copy of b.
func (s *String) SetBytes(b []byte) {
	*s = *NewString(b)
}

// SetInt replaces the value with n.
func (s *String) SetInt(n int64) { *s = String{n: n, isInt: true} }

// raw makes the value a byte string that may be modified in place.
func (s *String) mutable() []byte {
	if s.isInt {
		s.b = strconv.AppendInt(nil, s.n, 10)
		s.isInt = false
	}
	s.raw = true
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
// SETRANGE) counts too, and becomes int-encoded again, as in Redis.
func (s *String) IncrBy(delta int64) (int64, error) {
	n, ok := s.n, s.isInt
	if !ok {
		n, ok = number.ParseInt(s.b)
	}
	if !ok {
		return 0, ErrNotInteger
	}
	if (delta > 0 && n > math.MaxInt64-delta) || (delta < 0 && n < math.MinInt64-delta) {
		return 0, ErrOverflow
	}
	s.SetInt(n + delta)
	return s.n, nil
}

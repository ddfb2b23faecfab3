package store

import (
	"encoding/binary"
	"math/bits"
)

// Bit operations on String values (SETBIT, GETBIT, BITCOUNT, BITPOS,
// BITOP, BITFIELD). Bit 0 is the most significant bit of byte 0, as in
// Redis.

// NewRawString returns a String that owns b and is not integer-encoded,
// as the strings Redis builds in place (BITOP, SETBIT on a new key,
// PFADD) report OBJECT ENCODING "raw" whatever they hold.
func NewRawString(b []byte) *String { return byteString(b, true) }

// GrowZero makes the value a raw byte string of at least n bytes, padding
// with zero bytes (Redis's sdsgrowzero), and reports whether it grew.
func (s *String) GrowZero(n int) bool {
	b := s.mutable()
	if len(b) >= n {
		return false
	}
	s.b = append(b, make([]byte, n-len(b))...)
	return true
}

// Mutable returns the value's bytes as a raw string that may be modified
// in place; an integer-encoded value becomes raw (Redis's
// dbUnshareStringValue).
func (s *String) Mutable() []byte { return s.mutable() }

// GetBit returns the bit at offset of b; bits past the end are 0.
func GetBit(b []byte, offset uint64) bool {
	i := offset >> 3
	return i < uint64(len(b)) && b[i]&(0x80>>(offset&7)) != 0
}

// SetBit sets or clears the bit at offset of b, which must be long enough,
// and returns its previous value.
func SetBit(b []byte, offset uint64, on bool) bool {
	i, mask := offset>>3, byte(0x80>>(offset&7))
	old := b[i]&mask != 0
	if on {
		b[i] |= mask
	} else {
		b[i] &^= mask
	}
	return old
}

// BitRange turns BITCOUNT/BITPOS start and end indexes (bytes, or bits
// when isBit) into a byte range and the masks of the bits outside the
// range in its first and last bytes, as Redis's bitcountCommand does:
// negative indexes count from the end, and both are clamped. ok is false
// for an empty range.
func BitRange(length int, start, end int64, isBit bool) (from, to int, firstMask, lastMask byte, ok bool) {
	total := int64(length)
	if isBit {
		total <<= 3
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start, end = max(start, 0), max(end, 0)
	if end >= total {
		end = total - 1
	}
	if start > end {
		return 0, 0, 0, 0, false
	}
	if isBit {
		firstMask = ^byte(0xff >> (start & 7)) // bits before start
		lastMask = byte((1 << (7 - (end & 7))) - 1)
		start >>= 3
		end >>= 3
	}
	return int(start), int(end), firstMask, lastMask, true
}

// BitCount counts the set bits of b[from:to+1], leaving out the bits the
// masks select in the first and last bytes.
func BitCount(b []byte, from, to int, firstMask, lastMask byte) int64 {
	var n int
	r := b[from : to+1]
	for ; len(r) >= 8; r = r[8:] {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(r))
	}
	for _, c := range r {
		n += bits.OnesCount8(c)
	}
	n -= bits.OnesCount8(b[from]&firstMask) + bits.OnesCount8(b[to]&lastMask)
	return int64(n)
}

// BitPos returns the position of the first bit equal to bit in
// b[from:to+1], ignoring the masked bits of the first and last bytes, or
// -1. Looking for a 0 in a range of ones answers the first bit after the
// range unless endGiven, as Redis does when it pads the string with zeros.
func BitPos(b []byte, from, to int, firstMask, lastMask byte, bit bool, endGiven bool) int64 {
	for i := from; i <= to; i++ {
		c := b[i]
		var outside byte
		if i == from {
			outside |= firstMask
		}
		if i == to {
			outside |= lastMask
		}
		if !bit {
			c = ^c
		}
		c &^= outside
		if c != 0 {
			return int64(i)<<3 + int64(bits.LeadingZeros8(c))
		}
	}
	if bit || endGiven {
		return -1
	}
	return int64(to+1) << 3
}

// BitOp names BITOP's operations.
type BitOp int

// The operations of BITOP.
const (
	BitAnd BitOp = iota
	BitOr
	BitXor
	BitNot
)

// BitOperation computes BITOP over srcs (a missing key is an empty
// string): the result is as long as the longest source, shorter sources
// read as zero-padded. It returns nil when every source is empty.
func BitOperation(op BitOp, srcs [][]byte) []byte {
	maxLen := 0
	for _, s := range srcs {
		maxLen = max(maxLen, len(s))
	}
	if maxLen == 0 {
		return nil
	}
	res := make([]byte, maxLen)
	at := func(s []byte, i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	for i := range res {
		out := at(srcs[0], i)
		switch op {
		case BitNot:
			out = ^out
		case BitAnd:
			for _, s := range srcs[1:] {
				out &= at(s, i)
			}
		case BitOr:
			for _, s := range srcs[1:] {
				out |= at(s, i)
			}
		case BitXor:
			for _, s := range srcs[1:] {
				out ^= at(s, i)
			}
		}
		res[i] = out
	}
	return res
}

// Bitfield is one integer field of BITFIELD: width bits at a bit offset,
// signed or not.
type Bitfield struct {
	Offset uint64
	Bits   int // 1..64 signed, 1..63 unsigned
	Signed bool
}

// Overflow is BITFIELD's overflow policy.
type Overflow int

// The overflow policies of BITFIELD.
const (
	OverflowWrap Overflow = iota
	OverflowSat
	OverflowFail
)

// GetUnsigned reads the field from b as an unsigned integer; bits past the
// end of b read as 0.
func (f Bitfield) GetUnsigned(b []byte) uint64 {
	var v uint64
	for i := 0; i < f.Bits; i++ {
		v <<= 1
		if GetBit(b, f.Offset+uint64(i)) {
			v |= 1
		}
	}
	return v
}

// Get reads the field's value, sign-extended for a signed field.
func (f Bitfield) Get(b []byte) int64 {
	v := f.GetUnsigned(b)
	if f.Signed && f.Bits < 64 && v&(1<<(f.Bits-1)) != 0 {
		v |= ^uint64(0) << f.Bits
	}
	return int64(v)
}

// Set writes the low Bits bits of v into b, which must be long enough.
func (f Bitfield) Set(b []byte, v uint64) {
	for i := 0; i < f.Bits; i++ {
		SetBit(b, f.Offset+uint64(i), v&(1<<(f.Bits-1-i)) != 0)
	}
}

// Add returns value+incr as the field would hold it under the overflow
// policy, and whether it overflowed (Redis's checkSignedBitfieldOverflow
// and checkUnsignedBitfieldOverflow, whose arithmetic this follows).
func (f Bitfield) Add(value, incr int64, ow Overflow) (int64, bool) {
	if f.Signed {
		return f.addSigned(value, incr, ow)
	}
	return f.addUnsigned(uint64(value), incr, ow)
}

func (f Bitfield) addUnsigned(value uint64, incr int64, ow Overflow) (int64, bool) {
	maxV := uint64(1)<<f.Bits - 1
	maxIncr := int64(maxV - value)
	minIncr := -int64(value)
	wrap := func() int64 { return int64((value + uint64(incr)) &^ (^uint64(0) << f.Bits)) }
	switch {
	case value > maxV || (incr > 0 && incr > maxIncr):
		if ow == OverflowSat {
			return int64(maxV), true
		}
		return wrap(), true
	case incr < 0 && incr < minIncr:
		if ow == OverflowSat {
			return 0, true
		}
		return wrap(), true
	}
	return int64(value + uint64(incr)), false
}

func (f Bitfield) addSigned(value, incr int64, ow Overflow) (int64, bool) {
	maxV := int64(1)<<(f.Bits-1) - 1
	if f.Bits == 64 {
		maxV = 1<<63 - 1
	}
	minV := -maxV - 1
	maxIncr := int64(uint64(maxV) - uint64(value))
	minIncr := minV - value
	wrap := func() int64 {
		c := uint64(value) + uint64(incr)
		if f.Bits < 64 {
			mask := ^uint64(0) << f.Bits
			if c&(1<<(f.Bits-1)) != 0 {
				c |= mask
			} else {
				c &^= mask
			}
		}
		return int64(c)
	}
	switch {
	case value > maxV || (f.Bits != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr):
		if ow == OverflowSat {
			return maxV, true
		}
		return wrap(), true
	case value < minV || (f.Bits != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr):
		if ow == OverflowSat {
			return minV, true
		}
		return wrap(), true
	}
	return value + incr, false
}

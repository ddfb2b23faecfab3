package listpack

import (
	"encoding/binary"
	"strconv"
)

// Functions on a finished listpack (header, entries, end byte), for the
// stream nodes that live as listpacks and change in place, as Redis's
// lpAppend, lpReplaceInteger, lpNext and lpPrev do.

// Empty returns a finished listpack with no entries.
func Empty(capacity int) []byte { return EmptyIn(make([]byte, 0, max(capacity, HeaderSize))) }

// EmptyIn returns a finished listpack with no entries in b's storage (a
// new one if it has too little).
func EmptyIn(b []byte) []byte {
	if cap(b) < HeaderSize {
		b = make([]byte, 0, HeaderSize)
	}
	b = b[:HeaderSize]
	b[HeaderSize-1] = 0xFF
	binary.LittleEndian.PutUint32(b, HeaderSize)
	binary.LittleEndian.PutUint16(b[4:], 0)
	return b
}

// First is the offset of the first entry (the end byte when it is empty).
const First = HeaderSize - 1

// IsEnd reports whether off is the end byte.
func IsEnd(lp []byte, off int) bool { return lp[off] == 0xFF }

func finish(lp []byte, delta int) []byte {
	binary.LittleEndian.PutUint32(lp, uint32(len(lp)))
	if n := binary.LittleEndian.Uint16(lp[4:]); n != 65535 {
		n2 := int(n) + delta
		if n2 >= 65535 {
			n2 = 65535
		}
		binary.LittleEndian.PutUint16(lp[4:], uint16(n2))
	}
	return lp
}

// Append adds s at the end as lpAppend does (a canonical integer is stored
// as one).
func Append(lp []byte, s []byte) []byte {
	w := Writer{buf: lp[:len(lp)-1]}
	w.AppendString(s)
	return finish(append(w.buf, 0xFF), 1)
}

// AppendInteger adds n at the end, as lpAppendInteger does.
func AppendInteger(lp []byte, n int64) []byte {
	w := Writer{buf: lp[:len(lp)-1]}
	w.AppendInt(n)
	return finish(append(w.buf, 0xFF), 1)
}

// ReplaceInteger replaces the entry at off with the integer n, moving the
// entries after it when the size changes, as lpReplaceInteger does.
func ReplaceInteger(lp []byte, off int, n int64) []byte {
	old := Next(lp, off) - off
	var scratch [16]byte
	repl := appendIntEntry(scratch[:0], n)
	if len(repl) == old {
		copy(lp[off:], repl)
		return lp
	}
	tail := append([]byte(nil), lp[off+old:]...)
	lp = append(append(lp[:off], repl...), tail...)
	binary.LittleEndian.PutUint32(lp, uint32(len(lp)))
	return lp
}

// Next returns the offset of the entry after the one at off.
func Next(lp []byte, off int) int {
	n := encodedLen(lp[off:])
	return off + n + backlenSize(n)
}

// Prev returns the offset of the entry before the one at off (off may be
// the end byte); First has none.
func Prev(lp []byte, off int) int {
	// The back length's bytes are read from the last one back: each byte
	// but the first written carries 128.
	p := off - 1
	l, shift := 0, 0
	for {
		b := lp[p]
		l |= int(b&127) << shift
		if b&128 == 0 {
			break
		}
		shift += 7
		p--
	}
	return p - l
}

// encodedLen is the entry's encoding and data bytes, without its back
// length.
func encodedLen(b []byte) int {
	c := b[0]
	switch {
	case c&0x80 == 0:
		return 1
	case c&0xC0 == 0x80:
		return 1 + int(c&0x3f)
	case c&0xE0 == 0xC0:
		return 2
	case c&0xF0 == 0xE0:
		return 2 + (int(c&0x0f)<<8 | int(b[1]))
	case c == 0xF0:
		return 5 + int(binary.LittleEndian.Uint32(b[1:]))
	case c == 0xF1:
		return 3
	case c == 0xF2:
		return 4
	case c == 0xF3:
		return 5
	case c == 0xF4:
		return 9
	}
	panic("listpack: bad entry encoding")
}

// Get returns the entry at off: its bytes for a string, or the integer
// (isInt true) for an integer entry.
func Get(lp []byte, off int) (s []byte, n int64, isInt bool) {
	b := lp[off:]
	c := b[0]
	switch {
	case c&0x80 == 0:
		return nil, int64(c), true
	case c&0xC0 == 0x80:
		return b[1 : 1+int(c&0x3f)], 0, false
	case c&0xE0 == 0xC0:
		u := uint64(c&0x1f)<<8 | uint64(b[1])
		return nil, int64(u<<51) >> 51, true
	case c&0xF0 == 0xE0:
		l := int(c&0x0f)<<8 | int(b[1])
		return b[2 : 2+l], 0, false
	case c == 0xF0:
		l := int(binary.LittleEndian.Uint32(b[1:]))
		return b[5 : 5+l], 0, false
	case c == 0xF1:
		return nil, int64(int16(binary.LittleEndian.Uint16(b[1:]))), true
	case c == 0xF2:
		return nil, int64(int32(uint32(b[1])<<8|uint32(b[2])<<16|uint32(b[3])<<24) >> 8), true
	case c == 0xF3:
		return nil, int64(int32(binary.LittleEndian.Uint32(b[1:]))), true
	case c == 0xF4:
		return nil, int64(binary.LittleEndian.Uint64(b[1:])), true
	}
	panic("listpack: bad entry encoding")
}

// GetInteger returns the entry at off as an integer (a string entry that
// is a number is parsed, as lpGetInteger's callers expect integers).
func GetInteger(lp []byte, off int) int64 {
	s, n, isInt := Get(lp, off)
	if isInt {
		return n
	}
	v, _ := strconv.ParseInt(string(s), 10, 64)
	return v
}

// AppendValue appends the entry at off to dst as a string (an integer in
// decimal).
func AppendValue(dst []byte, lp []byte, off int) []byte {
	s, n, isInt := Get(lp, off)
	if isInt {
		return strconv.AppendInt(dst, n, 10)
	}
	return append(dst, s...)
}

// Equal reports whether the entry at off is s.
func Equal(lp []byte, off int, s []byte) bool {
	e, n, isInt := Get(lp, off)
	if !isInt {
		return string(e) == string(s)
	}
	var buf [20]byte
	return string(strconv.AppendInt(buf[:0], n, 10)) == string(s)
}

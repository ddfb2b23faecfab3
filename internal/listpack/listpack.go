// Package listpack writes Redis 7.0's listpack encoding (list nodes, small
// hashes and sorted sets) and sizes its entries, so that floodgate's bytes
// and node sizes are Redis's.
package listpack

import (
	"encoding/binary"

	"github.com/floodgate/floodgate/internal/number"
)

// Writer builds a listpack. Entries are encoded as Redis's
// lpAppend does (an entry that is a canonical integer is stored as one, in
// the narrowest form), so the bytes equal Redis's for the same entries.
type Writer struct {
	buf   []byte
	Count int // entries appended
}

// New returns an empty listpack.
func New() *Writer { return &Writer{buf: make([]byte, HeaderSize-1, 64)} }

// HeaderSize is an empty listpack's size: the total-bytes and count header
// and the end byte.
const HeaderSize = 7

// EntrySize is the bytes s takes as a listpack entry (encoding, data and
// back-length), as lpAppend would store it.
func EntrySize(s []byte) int {
	var n int
	if v, ok := parseInt(s); ok {
		switch {
		case v >= 0 && v <= 127:
			n = 1
		case v >= -4096 && v <= 4095:
			n = 2
		case v >= -32768 && v <= 32767:
			n = 3
		case v >= -(1<<23) && v < 1<<23:
			n = 4
		case v >= -(1<<31) && v < 1<<31:
			n = 5
		default:
			n = 9
		}
	} else {
		switch l := len(s); {
		case l < 64:
			n = 1 + l
		case l < 4096:
			n = 2 + l
		default:
			n = 5 + l
		}
	}
	return n + backlenSize(n)
}

// parseInt is lpStringToInt64: a canonical decimal integer of at most 20
// bytes. The first byte rules most strings out before a full parse.
func parseInt(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 20 || (s[0] < '0' || s[0] > '9') && s[0] != '-' {
		return 0, false
	}
	return number.ParseInt(s)
}

func backlenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// AppendString appends s as lpAppend does.
func (lp *Writer) AppendString(s []byte) {
	if n, ok := parseInt(s); ok {
		lp.AppendInt(n)
		return
	}
	lp.AppendText(s)
}

// AppendText appends s as a string entry even if it reads as an integer:
// an entry a loaded listpack held so (Redis keeps those as they are).
func (lp *Writer) AppendText(s []byte) {
	start := len(lp.buf)
	switch l := len(s); {
	case l < 64:
		lp.buf = append(lp.buf, 0x80|byte(l))
	case l < 4096:
		lp.buf = append(lp.buf, 0xE0|byte(l>>8), byte(l))
	default:
		lp.buf = append(lp.buf, 0xF0)
		lp.buf = binary.LittleEndian.AppendUint32(lp.buf, uint32(l))
	}
	lp.buf = append(lp.buf, s...)
	lp.buf = AppendBacklen(lp.buf, len(lp.buf)-start)
	lp.Count++
}

// IsInteger reports whether lpAppend writes s as an integer entry.
func IsInteger(s []byte) bool {
	_, ok := parseInt(s)
	return ok
}

// AppendInt appends an integer entry, as lpAppendInteger does.
func (lp *Writer) AppendInt(n int64) {
	lp.buf = appendIntEntry(lp.buf, n)
	lp.Count++
}

// appendIntEntry appends n's entry, its encoding and back length, to b. A
// function of the slice alone, so that a caller's scratch array can stay
// on its stack (ReplaceInteger's did not through a Writer).
func appendIntEntry(b []byte, n int64) []byte {
	start := len(b)
	switch {
	case n >= 0 && n <= 127:
		b = append(b, byte(n))
	case n >= -4096 && n <= 4095:
		u := uint64(n) & 0x1fff
		b = append(b, 0xC0|byte(u>>8), byte(u))
	case n >= -32768 && n <= 32767:
		b = append(b, 0xF1)
		b = binary.LittleEndian.AppendUint16(b, uint16(n))
	case n >= -(1<<23) && n < 1<<23:
		u := uint32(n)
		b = append(b, 0xF2, byte(u), byte(u>>8), byte(u>>16))
	case n >= -(1<<31) && n < 1<<31:
		b = append(b, 0xF3)
		b = binary.LittleEndian.AppendUint32(b, uint32(n))
	default:
		b = append(b, 0xF4)
		b = binary.LittleEndian.AppendUint64(b, uint64(n))
	}
	return AppendBacklen(b, len(b)-start)
}

// AppendBacklen writes an entry's length so the listpack can be walked
// backwards: 7 bits per byte, the first byte written holding the top bits,
// every byte but the last read (the first written) flagged with 128.
func AppendBacklen(b []byte, l int) []byte {
	switch {
	case l <= 127:
		return append(b, byte(l))
	case l < 16383:
		return append(b, byte(l>>7), byte(l&127)|128)
	case l < 2097151:
		return append(b, byte(l>>14), byte(l>>7&127)|128, byte(l&127)|128)
	case l < 268435455:
		return append(b, byte(l>>21), byte(l>>14&127)|128, byte(l>>7&127)|128, byte(l&127)|128)
	}
	return append(b, byte(l>>28), byte(l>>21&127)|128, byte(l>>14&127)|128, byte(l>>7&127)|128, byte(l&127)|128)
}

// Len is the listpack's size so far, without its end byte.
func (lp *Writer) Len() int { return len(lp.buf) }

// Bytes finishes the listpack and returns it.
func (lp *Writer) Bytes() []byte {
	lp.buf = append(lp.buf, 0xFF)
	binary.LittleEndian.PutUint32(lp.buf, uint32(len(lp.buf)))
	binary.LittleEndian.PutUint16(lp.buf[4:], uint16(min(lp.Count, 65535)))
	return lp.buf
}

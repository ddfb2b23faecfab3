package rdb

import (
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/floodgate/floodgate/internal/listpack"
)

// The packed encodings Redis stores as one string inside an RDB value:
// listpack (7.0's small hashes, sorted sets and list nodes), intset, and the
// older ziplist, which 7.0 still reads.

var errPacked = errors.New("corrupt packed encoding")

// listpackEntries returns a listpack's entries as strings (integers in
// decimal), checking every length against the blob.
func listpackEntries(b []byte) ([][]byte, error) { return listpackEntryKinds(b, nil) }

// listpackEntryKinds is listpackEntries that also appends to ints, unless
// nil, whether each entry is an integer one.
func listpackEntryKinds(b []byte, ints *[]bool) ([][]byte, error) {
	if len(b) < 7 || int(binary.LittleEndian.Uint32(b)) != len(b) || b[len(b)-1] != 0xFF {
		return nil, errPacked
	}
	count := int(binary.LittleEndian.Uint16(b[4:]))
	var out [][]byte
	if ints != nil {
		*ints = make([]bool, 0, min(count, len(b))) // one allocation, however many entries
	}
	p := 6
	for p < len(b)-1 {
		start := p
		c := b[p]
		var v []byte
		var n int64
		isInt := true
		need := func(k int) bool { return p+k <= len(b)-1 }
		switch {
		case c&0x80 == 0:
			n, p = int64(c), p+1
		case c&0xC0 == 0x80:
			l := int(c & 0x3f)
			if !need(1 + l) {
				return nil, errPacked
			}
			v, p, isInt = b[p+1:p+1+l], p+1+l, false
		case c&0xE0 == 0xC0:
			if !need(2) {
				return nil, errPacked
			}
			u := uint64(c&0x1f)<<8 | uint64(b[p+1])
			n = int64(u<<51) >> 51
			p += 2
		case c&0xF0 == 0xE0:
			if !need(2) {
				return nil, errPacked
			}
			l := int(c&0x0f)<<8 | int(b[p+1])
			if !need(2 + l) {
				return nil, errPacked
			}
			v, p, isInt = b[p+2:p+2+l], p+2+l, false
		case c == 0xF0:
			if !need(5) {
				return nil, errPacked
			}
			l := int(binary.LittleEndian.Uint32(b[p+1:]))
			if l < 0 || !need(5+l) {
				return nil, errPacked
			}
			v, p, isInt = b[p+5:p+5+l], p+5+l, false
		case c == 0xF1 && need(3):
			n, p = int64(int16(binary.LittleEndian.Uint16(b[p+1:]))), p+3
		case c == 0xF2 && need(4):
			n, p = int64(int32(uint32(b[p+1])<<8|uint32(b[p+2])<<16|uint32(b[p+3])<<24)>>8), p+4
		case c == 0xF3 && need(5):
			n, p = int64(int32(binary.LittleEndian.Uint32(b[p+1:]))), p+5
		case c == 0xF4 && need(9):
			n, p = int64(binary.LittleEndian.Uint64(b[p+1:])), p+9
		default:
			return nil, errPacked
		}
		// The back length must match the entry.
		want := listpack.AppendBacklen(nil, p-start)
		if p+len(want) > len(b)-1 || string(b[p:p+len(want)]) != string(want) {
			return nil, errPacked
		}
		p += len(want)
		if isInt {
			v = strconv.AppendInt(nil, n, 10)
		}
		if ints != nil {
			*ints = append(*ints, isInt)
		}
		out = append(out, v)
	}
	if p != len(b)-1 || (count != 65535 && count != len(out)) {
		return nil, errPacked
	}
	return out, nil
}

// intsetBytes encodes sorted integers as Redis's intset: encoding (byte
// width) and length as 32-bit little-endian, then the values.
func intsetBytes(vals []int64, width int) []byte {
	b := make([]byte, 8, 8+width*len(vals))
	binary.LittleEndian.PutUint32(b, uint32(width))
	binary.LittleEndian.PutUint32(b[4:], uint32(len(vals)))
	for _, v := range vals {
		switch width {
		case 2:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 4:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

// intsetValues decodes an intset, which must be strictly ascending.
func intsetValues(b []byte) ([]int64, error) {
	if len(b) < 8 {
		return nil, errPacked
	}
	w := int(binary.LittleEndian.Uint32(b))
	n := int(binary.LittleEndian.Uint32(b[4:]))
	if (w != 2 && w != 4 && w != 8) || n < 0 || len(b) != 8+w*n {
		return nil, errPacked
	}
	out := make([]int64, n)
	for i := range out {
		p := b[8+w*i:]
		switch w {
		case 2:
			out[i] = int64(int16(binary.LittleEndian.Uint16(p)))
		case 4:
			out[i] = int64(int32(binary.LittleEndian.Uint32(p)))
		default:
			out[i] = int64(binary.LittleEndian.Uint64(p))
		}
		if i > 0 && out[i] <= out[i-1] {
			return nil, errPacked
		}
	}
	return out, nil
}

// ziplistEntries decodes a ziplist (RDB types before 7.0's listpacks),
// checking it as ziplistValidateIntegrity does in depth (Redis converts
// every ziplist it loads, so it always checks deeply): the header's size,
// tail offset and count, and every entry's length and back-link.
func ziplistEntries(b []byte) ([][]byte, error) {
	if len(b) < 11 || int(binary.LittleEndian.Uint32(b)) != len(b) || b[len(b)-1] != 0xFF {
		return nil, errPacked
	}
	end := len(b) - 1
	tail := int(binary.LittleEndian.Uint32(b[4:]))
	if tail > end {
		return nil, errPacked
	}
	count := int(binary.LittleEndian.Uint16(b[8:]))
	var out [][]byte
	p, prev, prevSize := 10, -1, 0
	for p < end {
		start := p
		if b[p] == 0xFF { // the end, before the last byte
			return nil, errPacked
		}
		prevLen := int(b[p])
		if b[p] == 0xFE { // prevlen: 1 byte, or 0xFE and 4 bytes
			if p+5 > end {
				return nil, errPacked
			}
			prevLen = int(binary.LittleEndian.Uint32(b[p+1:]))
			p += 5
		} else {
			p++
		}
		if p >= end || prevLen != prevSize {
			return nil, errPacked
		}
		c := b[p]
		var v []byte
		var n int64
		isInt := true
		take := func(k int) bool { return p+k <= end }
		switch {
		case c>>6 == 0:
			l := int(c & 0x3f)
			if !take(1 + l) {
				return nil, errPacked
			}
			v, p, isInt = b[p+1:p+1+l], p+1+l, false
		case c>>6 == 1:
			if !take(2) {
				return nil, errPacked
			}
			l := int(c&0x3f)<<8 | int(b[p+1])
			if !take(2 + l) {
				return nil, errPacked
			}
			v, p, isInt = b[p+2:p+2+l], p+2+l, false
		case c>>6 == 2: // 0x80, and whatever the low bits say
			if !take(5) {
				return nil, errPacked
			}
			l := int(binary.BigEndian.Uint32(b[p+1:]))
			if l < 0 || !take(5+l) {
				return nil, errPacked
			}
			v, p, isInt = b[p+5:p+5+l], p+5+l, false
		case c == 0xC0 && take(3):
			n, p = int64(int16(binary.LittleEndian.Uint16(b[p+1:]))), p+3
		case c == 0xD0 && take(5):
			n, p = int64(int32(binary.LittleEndian.Uint32(b[p+1:]))), p+5
		case c == 0xE0 && take(9):
			n, p = int64(binary.LittleEndian.Uint64(b[p+1:])), p+9
		case c == 0xF0 && take(4):
			n, p = int64(int32(uint32(b[p+1])<<8|uint32(b[p+2])<<16|uint32(b[p+3])<<24)>>8), p+4
		case c == 0xFE && take(2):
			n, p = int64(int8(b[p+1])), p+2
		case c >= 0xF1 && c <= 0xFD:
			n, p = int64(c&0x0f)-1, p+1
		default:
			return nil, errPacked
		}
		if isInt {
			v = strconv.AppendInt(nil, n, 10)
		}
		out = append(out, v)
		prev, prevSize = start, p-start
	}
	if prev >= 0 && prev != tail || count != 65535 && count != len(out) {
		return nil, errPacked
	}
	return out, nil
}

// zipmapEntries decodes a zipmap (Redis 2.4's small hashes) into field,
// value pairs, checking it as zipmapValidateIntegrity does in depth: a
// zipmap is [count] then per entry [len]field[len][free]value[free bytes],
// a length being one byte below 254, or 254 and 4 bytes, then 255.
func zipmapEntries(b []byte) ([][]byte, error) {
	if len(b) < 2 || b[len(b)-1] != 0xFF {
		return nil, errPacked
	}
	last := len(b) - 1
	inRange := func(p int) bool { return p >= 2 && p <= last }
	length := func(p int) (l, size int) {
		if b[p] < 254 {
			return int(b[p]), 1
		}
		return int(binary.LittleEndian.Uint32(b[p+1:])), 5
	}
	var out [][]byte
	p := 1
	for b[p] != 0xFF {
		size := 1
		if b[p] >= 254 {
			size = 5
		}
		if !inRange(p + size) {
			return nil, errPacked
		}
		l, _ := length(p)
		field := p + size
		p = field + l
		if l < 0 || !inRange(p) {
			return nil, errPacked
		}
		size = 1
		if b[p] >= 254 {
			size = 5
		}
		if !inRange(p + size) {
			return nil, errPacked
		}
		vl, _ := length(p)
		free := int(b[p+size])
		value := p + size + 1
		p = value + vl + free
		if vl < 0 || !inRange(p) {
			return nil, errPacked
		}
		out = append(out, b[field:field+l], b[value:value+vl])
	}
	if len(out) == 0 || b[0] != 254 && int(b[0]) != len(out)/2 {
		return nil, errPacked
	}
	return out, nil
}

package luaengine

import (
	"encoding/binary"
	"math"
	"strconv"

	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// The struct library is Roberto Ierusalimschy's struct 1.4 as Redis 7.0
// bundles it, compiled for x86-64: native order is little endian, 'l',
// 'L' and 'T' are 8 bytes, 'i' is 4, '!' aligns to at most 8, integers
// are converted through a 64-bit long, and integral sizes go up to 32.

const (
	structMaxIntSize = 32
	structMaxAlign   = 8
)

type structHeader struct {
	little bool
	align  int
}

type structFormat struct {
	L   *lua.LState
	fmt string
	pos int
}

// getnum reads the optional decimal size after an option; Redis's patch
// refuses sizes that overflow an int.
func (f *structFormat) getnum(def int) int {
	if f.pos >= len(f.fmt) || !isDigit(f.fmt[f.pos]) {
		return def
	}
	a := 0
	for f.pos < len(f.fmt) && isDigit(f.fmt[f.pos]) {
		d := int(f.fmt[f.pos] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			raiseLibError(f.L, "integral size overflow")
		}
		a = a*10 + d
		f.pos++
	}
	return a
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// optsize is the size in bytes of option opt, reading its number if any.
func (f *structFormat) optsize(opt byte) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'x':
		return 1
	case 'c':
		return f.getnum(1)
	case 'i', 'I':
		sz := f.getnum(4)
		if sz > structMaxIntSize {
			raiseLibError(f.L, "integral size "+strconv.Itoa(sz)+" is larger than limit of "+strconv.Itoa(structMaxIntSize))
		}
		return sz
	}
	return 0
}

// toalign is gettoalign: the padding before an element of size at len.
func (h *structHeader) toalign(length int, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > h.align {
		size = h.align
	}
	return (size - (length & (size - 1))) & (size - 1)
}

// control handles the options that only change the header.
func (f *structFormat) control(opt byte, h *structHeader) {
	switch opt {
	case ' ':
	case '>':
		h.little = false
	case '<':
		h.little = true
	case '!':
		a := f.getnum(structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			raiseLibError(f.L, "alignment "+strconv.Itoa(a)+" is not a power of 2")
		}
		h.align = a
	default:
		libArgError(f.L, 1, "invalid format option '"+string(opt)+"'")
	}
}

func newStructLib(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 3)
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

func structPack(L *lua.LState) int {
	f := structFormat{L: L, fmt: libCheckString(L, 1)}
	// b_pack pushes a nil mark after the arguments, so a missing argument
	// is reported as "got nil", not "got no value".
	L.Push(lua.LNil)
	h := structHeader{little: true, align: 1}
	arg := 2
	var out []byte
	for f.pos < len(f.fmt) {
		opt := f.fmt[f.pos]
		f.pos++
		size := f.optsize(opt)
		for pad := h.toalign(len(out), opt, size); pad > 0; pad-- {
			out = append(out, 0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			out = structPutInteger(out, libCheckNumber(L, arg), h.little, size)
			arg++
		case 'x':
			out = append(out, 0)
		case 'f':
			bits := math.Float32bits(float32(libCheckNumber(L, arg)))
			arg++
			if h.little {
				out = binary.LittleEndian.AppendUint32(out, bits)
			} else {
				out = binary.BigEndian.AppendUint32(out, bits)
			}
		case 'd':
			bits := math.Float64bits(libCheckNumber(L, arg))
			arg++
			if h.little {
				out = binary.LittleEndian.AppendUint64(out, bits)
			} else {
				out = binary.BigEndian.AppendUint64(out, bits)
			}
		case 'c', 's':
			s := libCheckString(L, arg)
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				// The original reports the argument after the string.
				libArgError(L, arg, "string too short")
			}
			out = append(out, s[:size]...)
			if opt == 's' {
				out = append(out, 0)
			}
		default:
			f.control(opt, &h)
		}
	}
	L.Push(lua.LString(unsafeString(out)))
	return 1
}

// structPutInteger writes n through C's (unsigned long) conversion; bytes
// beyond the eighth of a wider integer are zero, as in the original.
func structPutInteger(out []byte, n float64, little bool, size int) []byte {
	var v uint64
	if n < 0 {
		v = uint64(cLong(n))
	} else {
		v = cUlong(n)
	}
	start := len(out)
	for i := 0; i < size; i++ {
		out = append(out, 0)
	}
	for i := 0; i < size; i++ {
		b := byte(v)
		v >>= 8
		if little {
			out[start+i] = b
		} else {
			out[start+size-1-i] = b
		}
	}
	return out
}

// cLong is C's (long)d on x86-64: the "integer indefinite" value for NaN
// and out-of-range numbers.
func cLong(d float64) int64 { return toInteger(d) }

// cUlong is gcc's (unsigned long)d on x86-64: below 2^63 (and for NaN,
// which fails the comparison) a signed conversion, above it a conversion
// of d-2^63 with the top bit flipped.
func cUlong(d float64) uint64 {
	if !(d >= 9223372036854775808.0) {
		return uint64(toInteger(d))
	}
	return uint64(toInteger(d-9223372036854775808.0)) ^ 1<<63
}

// structGetInteger reads size bytes; as in the original only the last
// eight count, and the sign mask of a wider integer is computed with the
// shift count masked to 6 bits as x86 does.
func structGetInteger(b string, little, signed bool, size int) float64 {
	var l uint64
	if little {
		for i := size - 1; i >= 0; i-- {
			l = l<<8 | uint64(b[i])
		}
	} else {
		for i := 0; i < size; i++ {
			l = l<<8 | uint64(b[i])
		}
	}
	if !signed {
		return float64(l)
	}
	if size == 0 {
		// ~0 << -1: x86 masks the count to 63.
		size = 8
	}
	mask := ^uint64(0) << (uint(size*8-1) & 63)
	if l&mask != 0 {
		l |= mask
	}
	return float64(int64(l))
}

func structUnpack(L *lua.LState) int {
	f := structFormat{L: L, fmt: libCheckString(L, 1)}
	data := libCheckString(L, 2)
	start := libOptInteger(L, 3, 1)
	if start == 0 {
		libArgError(L, 3, "offset must be 1 or greater")
	}
	pos := uint64(int64(start) - 1) // size_t, as in C: negative starts wrap
	h := structHeader{little: true, align: 1}
	L.SetTop(2)
	ld := uint64(len(data))
	for f.pos < len(f.fmt) {
		opt := f.fmt[f.pos]
		f.pos++
		size := f.optsize(opt)
		pos += uint64(h.toalign(int(pos), opt, size))
		if pos+uint64(size) > ld || pos > ld {
			libArgError(L, 2, "data string too short")
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			signed := opt >= 'a'
			L.Push(lua.LNumber(structGetInteger(data[pos:pos+uint64(size)], h.little, signed, size)))
		case 'x':
		case 'f':
			u := binary.LittleEndian.Uint32([]byte(data[pos : pos+4]))
			if !h.little {
				u = binary.BigEndian.Uint32([]byte(data[pos : pos+4]))
			}
			L.Push(lua.LNumber(math.Float32frombits(u)))
		case 'd':
			u := binary.LittleEndian.Uint64([]byte(data[pos : pos+8]))
			if !h.little {
				u = binary.BigEndian.Uint64([]byte(data[pos : pos+8]))
			}
			L.Push(lua.LNumber(math.Float64frombits(u)))
		case 'c':
			if size == 0 {
				top := L.Get(-1)
				n, ok := top.(lua.LNumber)
				if s, isStr := top.(lua.LString); isStr {
					var f float64
					f, ok = parseNumber(string(s))
					n = lua.LNumber(f)
				}
				if !ok || L.GetTop() <= 2 { // no result yet: fmt and data only
					raiseLibError(L, "format 'c0' needs a previous size")
				}
				size = int(cUlong(float64(n)))
				L.Pop(1)
				if pos+uint64(size) > ld || size < 0 {
					libArgError(L, 2, "data string too short")
				}
			}
			L.Push(lua.LString(data[pos : pos+uint64(size)]))
		case 's':
			end := -1
			for i := pos; i < ld; i++ {
				if data[i] == 0 {
					end = int(i)
					break
				}
			}
			if end < 0 {
				raiseLibError(L, "unfinished string in data")
			}
			size = end - int(pos) + 1
			L.Push(lua.LString(data[pos:end]))
		default:
			f.control(opt, &h)
		}
		pos += uint64(size)
	}
	L.Push(lua.LNumber(float64(int64(pos + 1))))
	return L.GetTop() - 2
}

func structSize(L *lua.LState) int {
	f := structFormat{L: L, fmt: libCheckString(L, 1)}
	h := structHeader{little: true, align: 1}
	pos := 0
	for f.pos < len(f.fmt) {
		opt := f.fmt[f.pos]
		f.pos++
		size := f.optsize(opt)
		pos += h.toalign(pos, opt, size)
		if opt == 's' {
			libArgError(L, 1, "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			libArgError(L, 1, "option 'c0' has no fixed size")
		}
		if !isAlnum(opt) {
			f.control(opt, &h)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}

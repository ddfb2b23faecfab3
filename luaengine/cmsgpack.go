package luaengine

import (
	"encoding/binary"
	"math"
	"strconv"

	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// The cmsgpack library is lua-cmsgpack 0.4.0 as Redis 7.0 bundles it. A
// number that a 64-bit integer holds exactly is packed as the smallest
// integer; other numbers as a float32 when that is exact, else a float64.
// A table whose keys are exactly 1..n is an array (so {} is an empty
// array), anything else a map; tables nested 16 deep, functions and
// userdata pack as nil. Strings use fixstr/str8/str16/str32.

const msgpackMaxNesting = 16

// luaMaxCStack is Lua 5.1's LUAI_MAXCSTACK: the stack slots a C function
// may use. cmsgpack.unpack checks it for every value it pushes.
const luaMaxCStack = 8000

func newCMsgpackLib(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 8)
	t.RawSetString("pack", L.NewFunction(msgpackPack))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int {
		return msgpackUnpack(L, 0, 0)
	}))
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		offset := libOptInteger(L, 2, 0)
		L.SetTop(1)
		return msgpackUnpack(L, 1, offset)
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		limit := toInteger(libCheckNumber(L, 2))
		offset := libOptInteger(L, 3, 0)
		L.SetTop(1)
		return msgpackUnpack(L, limit, offset)
	}))
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

func msgpackPack(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		libArgError(L, 0, "MessagePack pack needs input.")
	}
	var buf []byte
	for i := 1; i <= n; i++ {
		buf = msgpackEncode(buf, L.Get(i), 0)
	}
	L.Push(lua.LString(unsafeString(buf)))
	return 1
}

func msgpackEncode(buf []byte, v lua.LValue, level int) []byte {
	switch v := v.(type) {
	case lua.LString:
		return msgpackString(buf, string(v))
	case lua.LBool:
		if v {
			return append(buf, 0xc3)
		}
		return append(buf, 0xc2)
	case lua.LNumber:
		f := float64(v)
		// IS_INT64_EQUIVALENT: (int64_t)f == f, with x86's conversion.
		if !math.IsInf(f, 0) && float64(toInteger(f)) == f {
			return msgpackInt(buf, toInteger(f))
		}
		if float64(float32(f)) == f {
			return binary.BigEndian.AppendUint32(append(buf, 0xca), math.Float32bits(float32(f)))
		}
		return binary.BigEndian.AppendUint64(append(buf, 0xcb), math.Float64bits(f))
	case *lua.LTable:
		if level == msgpackMaxNesting {
			return append(buf, 0xc0)
		}
		if n, ok := msgpackArrayLen(v); ok {
			buf = msgpackHeader(buf, 0x90, 0xdc, n)
			for i := 1; i <= n; i++ {
				buf = msgpackEncode(buf, v.RawGetInt(i), level+1)
			}
			return buf
		}
		// lua_cmsgpack walks the table with lua_next: tablePairs gives
		// Lua 5.1's order for string keys.
		keys, vals := tablePairs(v)
		buf = msgpackHeader(buf, 0x80, 0xde, len(keys))
		for i, k := range keys {
			buf = msgpackEncode(buf, k, level+1)
			buf = msgpackEncode(buf, vals[i], level+1)
		}
		return buf
	}
	return append(buf, 0xc0)
}

// msgpackArrayLen is table_is_an_array: every key a number that a C int
// holds, > 0, and the largest equal to the count.
func msgpackArrayLen(t *lua.LTable) (int, bool) {
	count, max := 0, 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		if !ok || n <= 0 || n > math.MaxInt32 || float64(n) != math.Trunc(float64(n)) {
			return 0, false
		}
		if int(n) > max {
			max = int(n)
		}
		count++
	}
	return max, max == count
}

func msgpackHeader(buf []byte, fix, b16 byte, n int) []byte {
	switch {
	case n <= 15:
		return append(buf, fix|byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(buf, b16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(buf, b16+1), uint32(n))
}

func msgpackString(buf []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		buf = append(buf, 0xa0|byte(n))
	case n <= 0xff:
		buf = append(buf, 0xd9, byte(n))
	case n <= 0xffff:
		buf = binary.BigEndian.AppendUint16(append(buf, 0xda), uint16(n))
	default:
		buf = binary.BigEndian.AppendUint32(append(buf, 0xdb), uint32(n))
	}
	return append(buf, s...)
}

func msgpackInt(buf []byte, n int64) []byte {
	switch {
	case n >= 0 && n <= 127:
		return append(buf, byte(n))
	case n >= 0 && n <= 0xff:
		return append(buf, 0xcc, byte(n))
	case n >= 0 && n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(buf, 0xcd), uint16(n))
	case n >= 0 && n <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(buf, 0xce), uint32(n))
	case n >= 0:
		return binary.BigEndian.AppendUint64(append(buf, 0xcf), uint64(n))
	case n >= -32:
		return append(buf, byte(n))
	case n >= -128:
		return append(buf, 0xd0, byte(n))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(buf, 0xd1), uint16(n))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(buf, 0xd2), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(buf, 0xd3), uint64(n))
}

type msgpackDecoder struct {
	L     *lua.LState
	data  string
	pos   int
	slots int // Lua stack slots the C decoder would be using
	err   string
}

const (
	msgpackErrEOF    = "Missing bytes in input."
	msgpackErrFormat = "Bad data format in input."
)

// msgpackUnpack is mp_unpack_full: limit 0 with offset 0 decodes every
// value; otherwise at most limit values from offset, preceded by the
// offset to continue from (-1 at the end).
func msgpackUnpack(L *lua.LState, limit, offset int64) int {
	s := libCheckString(L, 1)
	all := limit == 0 && offset == 0
	if offset < 0 || limit < 0 {
		// The original prints the input length as the limit.
		raiseLibError(L, "Invalid request to unpack with offset of "+strconv.Itoa(int(int32(offset)))+" and limit of "+strconv.Itoa(int(int32(len(s))))+".")
	}
	if offset > int64(len(s)) {
		raiseLibError(L, "Start offset "+strconv.Itoa(int(int32(offset)))+" greater than input length "+strconv.Itoa(int(int32(len(s))))+".")
	}
	if all {
		limit = math.MaxInt32
	}
	d := msgpackDecoder{L: L, data: s, pos: int(offset), slots: 1}
	var values []lua.LValue
	for cnt := int64(0); d.pos < len(s) && cnt < limit; cnt++ {
		v := d.decode()
		if d.err != "" {
			raiseLibError(L, d.err)
		}
		values = append(values, v)
		d.slots++
	}
	if !all {
		next := int64(-1)
		if d.pos < len(s) {
			next = int64(d.pos)
		}
		L.Push(lua.LNumber(next))
	}
	for _, v := range values {
		L.Push(v)
	}
	if all {
		return len(values)
	}
	return len(values) + 1
}

func (d *msgpackDecoder) need(n int) bool {
	if len(d.data)-d.pos < n {
		d.err = msgpackErrEOF
		return false
	}
	return true
}

// checkStack is luaL_checkstack(L, 1, msg) in the C decoder.
func (d *msgpackDecoder) checkStack(msg string) {
	if d.slots+1 > luaMaxCStack {
		raiseLibError(d.L, "stack overflow ("+msg+")")
	}
}

func (d *msgpackDecoder) decode() lua.LValue {
	if !d.need(1) {
		return lua.LNil
	}
	d.checkStack("too many return values at once; use unpack_one or unpack_limit instead.")
	p := d.data[d.pos:]
	c := p[0]
	be16 := func() int { return int(p[1])<<8 | int(p[2]) }
	be32 := func() uint32 { return binary.BigEndian.Uint32([]byte(p[1:5])) }
	be64 := func() uint64 { return binary.BigEndian.Uint64([]byte(p[1:9])) }
	switch c {
	case 0xcc:
		if d.need(2) {
			d.pos += 2
			return luaInt(int64(p[1]))
		}
	case 0xd0:
		if d.need(2) {
			d.pos += 2
			return luaInt(int64(int8(p[1])))
		}
	case 0xcd:
		if d.need(3) {
			d.pos += 3
			return luaInt(int64(be16()))
		}
	case 0xd1:
		if d.need(3) {
			d.pos += 3
			return luaInt(int64(int16(be16())))
		}
	case 0xce:
		if d.need(5) {
			d.pos += 5
			return luaInt(int64(be32()))
		}
	case 0xd2:
		if d.need(5) {
			d.pos += 5
			return luaInt(int64(int32(be32())))
		}
	case 0xcf, 0xd3:
		// uint 64 goes through lua_pushinteger (a signed 64-bit
		// lua_Integer) in Redis, so values above 2^63 come out negative.
		if d.need(9) {
			d.pos += 9
			return lua.LNumber(float64(int64(be64())))
		}
	case 0xc0:
		d.pos++
		return lua.LNil
	case 0xc3:
		d.pos++
		return lua.LTrue
	case 0xc2:
		d.pos++
		return lua.LFalse
	case 0xca:
		if d.need(5) {
			d.pos += 5
			return lua.LNumber(math.Float32frombits(be32()))
		}
	case 0xcb:
		if d.need(9) {
			d.pos += 9
			return lua.LNumber(math.Float64frombits(be64()))
		}
	case 0xd9:
		if d.need(2) {
			return d.str(2, int(p[1]))
		}
	case 0xda:
		if d.need(3) {
			return d.str(3, be16())
		}
	case 0xdb:
		if d.need(5) {
			return d.str(5, int(be32()))
		}
	case 0xdc:
		if d.need(3) {
			d.pos += 3
			return d.array(be16())
		}
	case 0xdd:
		if d.need(5) {
			d.pos += 5
			return d.array(int(be32()))
		}
	case 0xde:
		if d.need(3) {
			d.pos += 3
			return d.hash(be16())
		}
	case 0xdf:
		if d.need(5) {
			d.pos += 5
			return d.hash(int(be32()))
		}
	default:
		switch {
		case c&0x80 == 0:
			d.pos++
			return luaInt(int64(c))
		case c&0xe0 == 0xe0:
			d.pos++
			return luaInt(int64(int8(c)))
		case c&0xe0 == 0xa0:
			if d.need(1) {
				return d.str(1, int(c&0x1f))
			}
		case c&0xf0 == 0x90:
			d.pos++
			return d.array(int(c & 0xf))
		case c&0xf0 == 0x80:
			d.pos++
			return d.hash(int(c & 0xf))
		default:
			d.err = msgpackErrFormat
		}
	}
	return lua.LNil
}

func (d *msgpackDecoder) str(hdr, n int) lua.LValue {
	if !d.need(hdr + n) {
		return lua.LNil
	}
	s := d.data[d.pos+hdr : d.pos+hdr+n]
	d.pos += hdr + n
	return lua.LString(s)
}

func (d *msgpackDecoder) array(n int) lua.LValue {
	t := d.L.CreateTable(min(n, 1024), 0)
	d.slots++ // the table
	d.checkStack("in function mp_decode_to_lua_array")
	for i := 1; i <= n; i++ {
		d.slots++ // the index
		v := d.decode()
		d.slots--
		if d.err != "" {
			break
		}
		t.RawSetInt(i, v)
	}
	d.slots--
	return t
}

func (d *msgpackDecoder) hash(n int) lua.LValue {
	t := d.L.NewTable()
	d.slots++ // the table
	for ; n > 0; n-- {
		k := d.decode()
		if d.err != "" {
			break
		}
		d.slots++ // the key
		v := d.decode()
		d.slots--
		if d.err != "" {
			break
		}
		// lua_settable with a nil or NaN key raises a runtime error, which
		// carries no position from a C function; a nil value deletes.
		if k == lua.LNil {
			d.L.Error(lua.LString("table index is nil"), 0)
		}
		if f, ok := k.(lua.LNumber); ok && f != f {
			d.L.Error(lua.LString("table index is NaN"), 0)
		}
		t.RawSet(k, v)
	}
	d.slots--
	return t
}

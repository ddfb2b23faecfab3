package luaengine

import (
	"encoding/binary"
	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

func (e *Engine) installStringOverrides(s *lua.LTable) {
	L := e.L
	// The whole library is replaced: gopher-lua's differs from Lua 5.1's
	// in coercions, pattern errors and out-of-range positions (lstrlib.go).
	for name, fn := range map[string]lua.LGFunction{
		"byte": strByte, "char": strChar, "find": strFind, "format": strFormat,
		"gmatch": strGmatch, "gsub": strGsub, "len": strLen, "lower": strLower,
		"match": strMatch, "rep": strRep(e.opts.MaxStringSize), "reverse": strReverse,
		"sub": strSub, "upper": strUpper,
	} {
		s.RawSetString(name, L.NewFunction(fn))
	}
	s.RawSetString("gfind", s.RawGetString("gmatch"))
	s.RawSetString("dump", L.NewFunction(e.strDump))
}

// lua51DumpHeader is the header of a Lua 5.1 binary chunk (ldump.c,
// lundump.c's luaU_header on x86-64): ESC "Lua", version 0x51, format 0,
// little endian, sizes of int, size_t, Instruction and lua_Number, and
// lua_Number not integral.
const lua51DumpHeader = "\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00"

// strDump is string.dump as far as a script can use it on Redis: a
// binary chunk, which Redis's loadstring refuses (it parses text only).
// gopher-lua has no Lua 5.1 bytecode to dump, so the chunk is the header
// and the function's description (source, lines, upvalues, parameters,
// registers) without its code.
func (e *Engine) strDump(L *lua.LState) int {
	fn, ok := L.Get(1).(*lua.LFunction)
	if !ok {
		L.TypeError(1, lua.LTFunction)
	}
	if fn.IsG {
		L.RaiseError("unable to dump given function")
	}
	p := fn.Proto
	source := e.sourceName(p.SourceName)
	b := []byte(lua51DumpHeader)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(source)+1))
	b = append(append(b, source...), 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(p.LineDefined))
	b = binary.LittleEndian.AppendUint32(b, uint32(p.LastLineDefined))
	b = append(b, p.NumUpvalues, p.NumParameters, p.IsVarArg, p.NumUsedRegisters)
	L.Push(lua.LString(b))
	return 1
}

// luaCheckString is luaL_checklstring.
func luaCheckString(L *lua.LState, n int) string { return checkLString(L, n) }

// luaCheckNumber is luaL_checknumber.
func luaCheckNumber(L *lua.LState, n int) float64 { return checkNumber(L, n) }

func (e *Engine) installTableOverrides(t *lua.LTable) {
	L := e.L
	t.RawSetString("concat", L.NewFunction(tableConcat))
	t.RawSetString("insert", L.NewFunction(e.tableInsert))
	t.RawSetString("sort", L.NewFunction(tableSort))
	t.RawSetString("remove", L.NewFunction(tableRemove))
	t.RawSetString("getn", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(getn(L.CheckTable(1))))
		return 1
	}))
	t.RawSetString("setn", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("'setn' is obsolete")
		return 0
	}))
	t.RawSetString("foreach", L.NewFunction(func(L *lua.LState) int {
		tb := L.CheckTable(1)
		fn := L.CheckFunction(2)
		for k, v := tb.Next(lua.LNil); k != lua.LNil; k, v = tb.Next(k) {
			L.Push(fn)
			L.Push(k)
			L.Push(v)
			L.Call(2, 1)
			if r := L.Get(-1); r != lua.LNil {
				return 1
			}
			L.Pop(1)
		}
		return 0
	}))
	t.RawSetString("foreachi", L.NewFunction(func(L *lua.LState) int {
		tb := L.CheckTable(1)
		fn := L.CheckFunction(2)
		n := getn(tb)
		for i := 1; i <= n; i++ {
			L.Push(fn)
			L.Push(lua.LNumber(i))
			L.Push(tb.RawGetInt(i))
			L.Call(2, 1)
			if r := L.Get(-1); r != lua.LNil {
				return 1
			}
			L.Pop(1)
		}
		return 0
	}))
}

// tableRemove is Lua 5.1's table.remove: positions within luaL_getn's
// border, shifted down one rawseti at a time (gopher-lua cut its array
// slice, past a hole too).
func tableRemove(L *lua.LState) int {
	tb := L.CheckTable(1)
	e := int32(getn(tb))
	pos := optInt(L, 2, e)
	if pos < 1 || pos > e {
		return 0
	}
	L.Push(tb.RawGetInt(int(pos)))
	for ; pos < e; pos++ {
		tb.RawSetInt(int(pos), tb.RawGetInt(int(pos)+1))
	}
	tb.RawSetInt(int(e), lua.LNil)
	return 1
}

// tableConcat is Lua 5.1's table.concat with "%.14g" numbers.
func tableConcat(L *lua.LState) int {
	sep := optLString(L, 2, "")
	tb := L.CheckTable(1)
	i := optInt(L, 3, 1)
	var last int32
	if L.Get(4) == lua.LNil {
		last = int32(getn(tb))
	} else {
		last = checkInt(L, 4)
	}
	var b []byte
	for k := int64(i); k <= int64(last); k++ {
		switch v := tb.RawGetInt(int(k)).(type) {
		case lua.LString:
			b = append(b, v...)
		case lua.LNumber:
			b = appendNumber(b, float64(v), 14)
		default:
			L.RaiseError("invalid value (%s) at index %d in table for 'concat'", v.Type().String(), k)
		}
		if k != int64(last) {
			b = append(b, sep...)
		}
	}
	L.Push(lua.LString(b))
	return 1
}

func appendQuoted(out []byte, s string) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			out = append(out, '\\', c)
		case '\r':
			out = append(out, '\\', 'r')
		case 0:
			out = append(out, '\\', '0', '0', '0')
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

// tableInsert is Lua 5.1's table.insert: two or three arguments, a
// numeric-string position, and Redis's error for a read-only table (whose
// view gopher-lua's would have written into, for every later script).
func (e *Engine) tableInsert(L *lua.LState) int {
	t := L.CheckTable(1)
	top := L.GetTop()
	last := getn(t) + 1
	pos := last
	switch top {
	case 2:
	case 3:
		pos = int(luaCheckNumber(L, 2))
		if pos > last {
			last = pos
		}
	default:
		L.RaiseError("wrong number of arguments to 'insert'")
	}
	if t.ReadOnly() {
		return errReadonly(L)
	}
	for i := last; i > pos; i-- {
		t.RawSetInt(i, t.RawGetInt(i-1))
	}
	t.RawSetInt(pos, L.Get(top))
	return 0
}

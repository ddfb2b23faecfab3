package luaengine

import (
	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// Lua 5.1's argument checks (lauxlib.c) as Redis's Lua has them: numbers
// and numeric strings are interchangeable (lua_tonumber runs strtod on a
// string), integers are C casts of the number on x86-64, and an absent
// argument is "no value". gopher-lua's own checks refuse numeric strings
// and name an absent argument "nil".

// argType is luaL_typename: "no value" past the top of the stack.
func argType(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// argTypeError is luaL_typerror.
func argTypeError(L *lua.LState, n int, expected string) {
	L.ArgError(n, expected+" expected, got "+argType(L, n))
}

// checkNumber is luaL_checknumber.
func checkNumber(L *lua.LState, n int) float64 {
	f, ok := toNumber(L.Get(n))
	if !ok {
		argTypeError(L, n, "number")
	}
	return f
}

// optNumber is luaL_optnumber: nil or absent is def.
func optNumber(L *lua.LState, n int, def float64) float64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkNumber(L, n)
}

// checkInteger is luaL_checkinteger: lua_Integer is ptrdiff_t, and the
// cast from double is cvttsd2si (INT64_MIN when out of range or NaN).
func checkInteger(L *lua.LState, n int) int64 {
	return toInteger(checkNumber(L, n))
}

// optInteger64 is luaL_optinteger.
func optInteger64(L *lua.LState, n int, def int64) int64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkInteger(L, n)
}

// checkInt is luaL_checkint: the lua_Integer cut to a C int.
func checkInt(L *lua.LState, n int) int32 { return int32(checkInteger(L, n)) }

// optInt is luaL_optint.
func optInt(L *lua.LState, n int, def int32) int32 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkInt(L, n)
}

// checkLString is luaL_checklstring: strings, and numbers as "%.14g".
func checkLString(L *lua.LState, n int) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return formatNumber(float64(v))
	}
	argTypeError(L, n, "string")
	return ""
}

// optLString is luaL_optlstring.
func optLString(L *lua.LState, n int, def string) string {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkLString(L, n)
}

// toBoolean is lua_toboolean.
func toBoolean(v lua.LValue) bool { return v != lua.LNil && v != lua.LFalse }

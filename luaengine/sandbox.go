package luaengine

import (
	"math"

	"github.com/floodgate/floodgate/internal/number"
	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// setupSandbox builds Redis 7.0's script environment: base, table, string,
// math, coroutine and Redis's own libraries, no os/io/debug/package, and
// read-only globals.
func (e *Engine) setupSandbox() {
	L := e.L
	for _, open := range []lua.LGFunction{lua.OpenBase, lua.OpenTable, lua.OpenString, lua.OpenMath, lua.OpenCoroutine} {
		L.Push(L.NewFunction(open))
		L.Call(0, 0)
	}
	g := L.G.Global
	e.globals = g
	for _, name := range []string{"dofile", "loadfile", "print", "require", "module", "_printregs", "_GOPHER_LUA_VERSION", "package", "newproxy", "getfenv", "setfenv"} {
		g.RawSetString(name, lua.LNil)
	}
	e.installBaseOverrides(g)
	e.installStringOverrides(g.RawGetString("string").(*lua.LTable))
	e.installMathOverrides(g.RawGetString("math").(*lua.LTable))
	e.installTableOverrides(g.RawGetString("table").(*lua.LTable))
	g.RawSetString("redis", e.newRedisLib())
	g.RawSetString("bit", newBitLib(L))
	g.RawSetString("cjson", newCJSONLib(L))
	g.RawSetString("struct", newStructLib(L))
	g.RawSetString("cmsgpack", newCMsgpackLib(L))
	for _, lib := range []string{"cjson", "struct", "cmsgpack"} {
		g.RawGetString(lib).(*lua.LTable).ForEach(func(_, v lua.LValue) {
			if fn, ok := v.(*lua.LFunction); ok {
				e.setRole(fn, roleOwnArgs)
			}
		})
	}

	// gopher-lua makes the string library its own metatable; Lua 5.1's is
	// a table of its own whose __index is the library, and ours also
	// holds the arithmetic events (arith.go), which scripts do not see.
	strlib := g.RawGetString("string").(*lua.LTable)
	strlib.RawSetString("__index", lua.LNil)
	stringMeta := L.NewTable()
	stringMeta.RawSetString("__index", strlib)
	e.installStringArith(stringMeta)
	L.SetMetatable(lua.LString(""), stringMeta)
	e.errFn = L.NewFunction(e.luaErrorHandler)
	e.pcallErrFn = L.NewFunction(e.pcallErrorHandler)
	// A coroutine's runtime error names its variable as the main thread's
	// do (Lua 5.1 names it wherever the error is raised).
	L.G.ThreadErrorFunc = L.NewFunction(func(L *lua.LState) int {
		obj := e.renameError(L, L.Get(1))
		L.SetTop(0)
		L.Push(obj)
		return 1
	})
	e.guardFn = L.NewFunction(e.guardedPCall)

	missing := L.NewTable()
	missing.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Script attempted to access nonexistent global variable '%s'", L.ToString(2))
		return 0
	}))
	L.SetMetatable(g, missing)
	// As Redis's scriptingInit: every table reachable from the globals,
	// their metatables included, becomes readonly, so that no script can
	// change what the next one runs (the libraries are shared by all
	// clients and outlive SCRIPT FLUSH). The string metatable is not
	// reachable from the globals but is readonly on Redis too.
	e.stringMeta = L.NewTable()
	e.stringMeta.RawSetString("__index", strlib)
	protectTables(g)
	protectTables(stringMeta)
	protectTables(e.stringMeta)

	// KEYS and ARGV are the caller's, refilled every call (Redis makes
	// new ones): scripts may change them.
	e.keys = L.NewTable()
	e.argv = L.NewTable()
	g.RawSetString("KEYS", e.keys)
	g.RawSetString("ARGV", e.argv)
	// gopher-lua gives functions made by loadstring and load the state's
	// environment rather than the caller's.
	L.Env = g
}

// protectTables sets Redis's readonly flag on t, the tables among its
// values and their metatables, recursively, as Redis's
// luaSetTableProtectionRecursively (keys are not followed).
func protectTables(t *lua.LTable) {
	if t.ReadOnly() {
		return // _G holds itself
	}
	t.SetReadOnly(true)
	t.ForEach(func(_, v lua.LValue) {
		if sub, ok := v.(*lua.LTable); ok {
			protectTables(sub)
		}
	})
	if mt, ok := t.Metatable.(*lua.LTable); ok {
		protectTables(mt)
	}
}

func (e *Engine) setRole(fn *lua.LFunction, role fnRole) {
	if e.fnRoles == nil {
		e.fnRoles = make(map[*lua.LFunction]fnRole)
	}
	e.fnRoles[fn] = role
}

// errReadonly is raised without a position, like the C API errors of the
// Redis readonly-table patch (rawset, setmetatable).
func errReadonly(L *lua.LState) int {
	L.Error(lua.LString(lua.ErrReadOnlyTable), 0)
	return 0
}

func (e *Engine) installBaseOverrides(g *lua.LTable) {
	L := e.L
	set := func(name string, fn lua.LGFunction) { g.RawSetString(name, L.NewFunction(fn)) }
	g.RawSetString("unpack", L.NewFunction(e.luaUnpack))
	set("error", func(L *lua.LState) int {
		obj := L.Get(1)
		level := L.OptInt(2, 1)
		if n, ok := obj.(lua.LNumber); ok {
			obj = lua.LString(formatNumber(float64(n)))
		}
		// Level 1 is error's caller, 2 its caller...; Lua adds no position
		// when that function is a C function, as in pcall(error, 'x'), or
		// when there is none (error('x', 2) in the script's body). The
		// engine's hidden frames (pcall's guard) are not levels.
		if msg, ok := obj.(lua.LString); ok && level > 0 {
			obj = lua.LString(levelWhere(L, level, e.isHiddenFrame) + string(msg))
		}
		L.Error(obj, 0)
		return 0
	})
	set("assert", e.luaAssert)
	// error and assert raise the script's own text, which is never
	// rewritten as an argument error.
	for _, name := range []string{"error", "assert"} {
		e.setRole(g.RawGetString(name).(*lua.LFunction), roleTransparent)
	}
	set("tostring", luaTostring)
	set("select", luaSelect)
	set("tonumber", e.luaTonumber)
	set("pcall", e.luaPcall)
	set("loadstring", e.luaLoadstring)
	e.errHandlerFn = L.NewFunction(e.luaErrHandler)
	// Its own errors carry Redis's position of them.
	e.setRole(e.errHandlerFn, roleTransparent)
	g.RawSetString("__redis__err__handler", e.errHandlerFn)
	set("xpcall", e.luaXpcall)
	rawset := g.RawGetString("rawset").(*lua.LFunction)
	set("rawset", func(L *lua.LState) int {
		t := L.CheckTable(1)
		L.CheckAny(2)
		L.CheckAny(3)
		if t.ReadOnly() {
			return errReadonly(L)
		}
		return rawset.GFunction(L)
	})
	set("setmetatable", func(L *lua.LState) int {
		// luaB_setmetatable's checks come first; gopher-lua's accepts a
		// missing metatable and silently ignores a non-table.
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			L.TypeError(1, lua.LTTable)
		}
		mt := L.Get(2)
		if L.GetTop() < 2 || mt.Type() != lua.LTNil && mt.Type() != lua.LTTable {
			L.ArgError(2, "nil or table expected")
		}
		if L.GetMetaField(t, "__metatable") != lua.LNil {
			L.RaiseError("cannot change a protected metatable")
		}
		if t.ReadOnly() {
			return errReadonly(L)
		}
		t.Metatable = mt
		L.SetTop(1)
		return 1
	})
	getmt := g.RawGetString("getmetatable").(*lua.LFunction)
	set("getmetatable", func(L *lua.LState) int {
		switch L.Get(1).Type() {
		case lua.LTString:
			// The string metatable scripts see is Lua 5.1's (setupSandbox).
			L.Push(e.stringMeta)
			return 1
		case lua.LTUserData:
			// The only userdata scripts meet on Redis are light ones
			// (cjson.null), which have no metatable.
			L.Push(lua.LNil)
			return 1
		}
		return getmt.GFunction(L)
	})
	set("gcinfo", func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	})
	set("collectgarbage", func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	})
}

// luaAssert is Lua 5.1's luaB_assert: the message is luaL_optstring's (a
// number is formatted, anything but nil refused) and luaL_error's position
// is the caller's, none when a Go function (pcall) called it. gopher-lua's
// refused numbers and always gave a position.
func (e *Engine) luaAssert(L *lua.LState) int {
	transparent := func(fn *lua.LFunction) bool { return e.fnRole(fn) == roleTransparent }
	if L.GetTop() == 0 {
		raiseArgError(L, 1, "assert", "value expected", e.isHiddenFrame, transparent)
	}
	if lua.LVAsBool(L.Get(1)) {
		return L.GetTop()
	}
	msg := "assertion failed!"
	switch v := L.Get(2).(type) {
	case *lua.LNilType:
	case lua.LString:
		msg = string(v)
	case lua.LNumber:
		msg = formatNumber(float64(v))
	default:
		raiseArgError(L, 2, "assert", "string expected, got "+v.Type().String(), e.isHiddenFrame, transparent)
	}
	L.Error(lua.LString(levelWhere(L, 1, e.isHiddenFrame)+msg), 0)
	return 0
}

// luaTostring is Lua 5.1's tostring with "%.14g" numbers.
func luaTostring(L *lua.LState) int {
	v := L.CheckAny(1)
	switch v := v.(type) {
	case lua.LNumber:
		L.Push(lua.LString(formatNumber(float64(v))))
		return 1
	case lua.LString:
		L.Push(v)
		return 1
	}
	if fn := L.GetMetaField(v, "__tostring"); fn != lua.LNil {
		L.Push(fn)
		L.Push(v)
		L.Call(1, 1)
		return 1
	}
	L.Push(lua.LString(v.String()))
	return 1
}

// tostringValue is tostring(v) for Go code.
func tostringValue(L *lua.LState, v lua.LValue) string {
	top := L.GetTop()
	L.Push(L.NewFunction(luaTostring))
	L.Push(v)
	L.Call(1, 1)
	s := lua.LVAsString(L.Get(-1))
	L.SetTop(top)
	return s
}

// luaTonumber is Lua 5.1's tonumber: luaO_str2d (C's strtod) for base 10,
// C's strtoul for the others.
func (e *Engine) luaTonumber(L *lua.LState) int {
	base := int32(10)
	if L.GetTop() > 1 { // optInt costs more than the common call's parse
		base = optInt(L, 2, 10)
	}
	if base == 10 {
		switch v := L.CheckAny(1).(type) {
		case lua.LNumber:
			L.Push(v)
			return 1
		case lua.LString:
			if n, ok := parseNumber(string(v)); ok {
				L.Push(e.numbers.float(n))
				return 1
			}
		}
		L.Push(lua.LNil)
		return 1
	}
	// luaB_tonumber: strtoul over a C string, then only white space.
	str := cString(checkLString(L, 1))
	if base < 2 || base > 36 {
		L.ArgError(2, "base out of range")
	}
	n, used, _ := number.Strtoul(str, int(base)) // an overflow is ULONG_MAX, no error
	if used == 0 {
		L.Push(lua.LNil)
		return 1
	}
	for ; used < len(str); used++ {
		if !number.IsSpace(str[used]) {
			L.Push(lua.LNil)
			return 1
		}
	}
	L.Push(lua.LNumber(float64(n)))
	return 1
}

// luaPcall is Redis 7.0's pcall: an error table raised by redis.call is
// handed to the script as its err string, and runtime errors get Lua 5.1's
// wording, as they do when they end the script.
func (e *Engine) luaPcall(L *lua.LState) int {
	if !isCallable(L, L.CheckAny(1)) {
		// Lua 5.1 raises this inside pcall, where no position is known.
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + L.Get(1).Type().String() + " value"))
		return 2
	}
	nargs := L.GetTop() - 1
	outer := e.pcallBase
	e.pcallBase = frameBase(L)
	err := e.protectedCall(L, nargs, e.pcallErrFn)
	e.pcallBase = outer
	if err != nil {
		L.Push(lua.LFalse)
		L.Push(pcallErrorValue(err))
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// protectedCall is L.PCall(nargs, MultRet, errFn) for the function below
// its nargs arguments, run inside a PCall without handler: when the
// registry is full, gopher-lua's PCall cannot push the handler and its
// panic would escape, leaving the state broken; the outer PCall restores
// the stack and reports it as an error.
func (e *Engine) protectedCall(L *lua.LState, nargs int, errFn *lua.LFunction) error {
	e.guardErrFn = errFn
	L.Insert(e.guardFn, L.GetTop()-nargs)
	err := L.PCall(nargs+1, lua.MultRet, nil)
	if err == nil {
		err = e.guardErr
	}
	e.guardErr = nil
	return err
}

// guardedPCall is protectedCall's inner function.
func (e *Engine) guardedPCall(L *lua.LState) int {
	errFn := e.guardErrFn
	if err := L.PCall(L.GetTop()-1, lua.MultRet, errFn); err != nil {
		e.guardErr = err
		return 0
	}
	e.guardErr = nil
	return L.GetTop()
}

// maxCStack is Lua 5.1's LUAI_MAXCSTACK: lua_checkstack refuses to grow a
// C function's stack past it.
const maxCStack = 8000

// luaUnpack is Lua 5.1's unpack, which refuses more results than
// lua_checkstack allows; gopher-lua's fills the registry instead.
func (e *Engine) luaUnpack(L *lua.LState) int {
	t := L.CheckTable(1)
	i := optInt(L, 2, 1)
	var last int32
	if L.Get(3) == lua.LNil {
		last = int32(getn(t))
	} else {
		last = checkInt(L, 3)
	}
	if i > last {
		return 0
	}
	n := last - i + 1 // a C int: it may wrap
	if n <= 0 || L.GetTop()+int(n) > maxCStack {
		L.RaiseError("too many results to unpack")
	}
	for k := int(i); k <= int(last); k++ {
		L.Push(t.RawGetInt(k))
	}
	return int(n)
}

// luaLoadstring is Lua 5.1's loadstring: the chunk is checked and
// compiled as a script is (Lua 5.1's syntax errors, "%.14g" in '..'), and
// named as luaO_chunkid names it: [string "<its first line>"] by default.
// gopher-lua's said "<string>" and printed its own parser's errors.
func (e *Engine) luaLoadstring(L *lua.LState) int {
	src := L.CheckString(1)
	name := L.OptString(2, src)
	chunk, err := parseChunk(src, chunkID(name, compileIDSize))
	var proto *lua.FunctionProto
	if err == nil {
		proto, err = lua.Compile(wrapChunk(chunk), chunkID(name, runtimeIDSize))
	}
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(compileMessage(err, chunkID(name, compileIDSize))))
		return 2
	}
	outer := L.NewFunctionFromProto(proto)
	outer.Env = e.globals
	L.Push(outer)
	L.Call(0, 1)
	if proto.SourceName != chunkName {
		if e.chunkNames == nil {
			e.chunkNames = make(map[string]string)
		}
		e.chunkNames[proto.SourceName] = name
	}
	return 1
}

func isCallable(L *lua.LState, v lua.LValue) bool {
	return v.Type() == lua.LTFunction || L.GetMetaField(v, "__call").Type() == lua.LTFunction
}

// luaXpcall is Lua 5.1's xpcall (which Redis does not wrap, so error
// tables reach the script as tables): the script's handler sees the error
// in Lua 5.1's wording, before the stack unwinds, and an error in the
// handler itself is "error in error handling".
func (e *Engine) luaXpcall(L *lua.LState) int {
	handler := L.CheckAny(2)
	fn := L.Get(1)
	L.SetTop(0)
	callHandler := func(L *lua.LState, msg lua.LValue) lua.LValue {
		L.Push(handler)
		L.Push(msg)
		if L.PCall(1, 1, nil) != nil {
			return lua.LString("error in error handling")
		}
		ret := L.Get(-1)
		L.Pop(1)
		return ret
	}
	if !isCallable(L, fn) {
		msg := callHandler(L, lua.LString("attempt to call a "+fn.Type().String()+" value"))
		L.Push(lua.LFalse)
		L.Push(msg)
		return 2
	}
	L.Push(fn)
	errFn := L.NewFunction(func(L *lua.LState) int {
		e.pcallErrorHandler(L)
		msg := L.Get(1)
		L.SetTop(0)
		L.Push(callHandler(L, msg))
		return 1
	})
	outer := e.pcallBase
	e.pcallBase = frameBase(L)
	err := e.protectedCall(L, 0, errFn)
	e.pcallBase = outer
	if err != nil {
		var obj lua.LValue = lua.LString(err.Error())
		if aerr, ok := err.(*lua.ApiError); ok {
			obj = aerr.Object
		}
		L.Push(lua.LFalse)
		L.Push(obj)
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// errorObject is the value a script raised, from PCall's error.
func errorObject(err error) lua.LValue {
	if aerr, ok := err.(*lua.ApiError); ok {
		return aerr.Object
	}
	return lua.LString(err.Error())
}

func pcallErrorValue(err error) lua.LValue {
	obj := errorObject(err)
	if t, ok := obj.(*lua.LTable); ok {
		// luaRedisPcall hands out an err that lua_isstring accepts, a
		// number included (as a number).
		switch s := t.RawGetString("err").(type) {
		case lua.LString, lua.LNumber:
			obj = s
		}
	}
	return obj
}

// renameError rewrites gopher-lua's text of an error raised on L, whose
// failed frames still exist, as Lua 5.1's: argument errors, bare messages,
// and runtime errors with the failing variable named.
func (e *Engine) renameError(L *lua.LState, obj lua.LValue) lua.LValue {
	s, ok := obj.(lua.LString)
	if !ok {
		return obj
	}
	if arg, ok := argErrorMessage(L, string(s), e.fnRole); ok {
		return lua.LString(arg)
	}
	if bare, ok := unpositioned(L, string(s), e.fnRole); ok {
		return lua.LString(bare)
	}
	name, named := nameFailure(L, e.transparent)
	return lua.LString(runtimeMessage(string(s), name, named))
}

// pcallErrorHandler runs where a pcall'd function failed, while its frames
// still exist: it names the failing variable and rewrites gopher-lua's
// runtime error text as Lua 5.1's.
func (e *Engine) pcallErrorHandler(L *lua.LState) int {
	obj := e.renameError(L, L.Get(1))
	closeUpvalues(L, e.pcallBase)
	L.SetTop(0)
	L.Push(obj)
	return 1
}

func (e *Engine) installMathOverrides(m *lua.LTable) {
	L := e.L
	m.RawSetString("huge", lua.LNumber(math.Inf(1)))
	m.RawSetString("random", L.NewFunction(e.luaRandom))
	m.RawSetString("randomseed", L.NewFunction(func(L *lua.LState) int {
		e.rand.seed(checkInt(L, 1))
		return 0
	}))
	e.installMathLibrary(m)
}

// luaSelect is Lua 5.1's select: "#" or any string starting with it
// counts, else the index is luaL_checkint's (a numeric string will do).
func luaSelect(L *lua.LState) int {
	n := L.GetTop()
	if s, ok := L.Get(1).(lua.LString); ok && len(s) > 0 && s[0] == '#' {
		L.Push(lua.LNumber(n - 1))
		return 1
	}
	i := int(checkInt(L, 1))
	if i < 0 {
		i = n + i
	} else if i > n {
		i = n
	}
	if i < 1 {
		L.ArgError(1, "index out of range")
	}
	return n - i
}

func (e *Engine) luaRandom(L *lua.LState) int {
	r := float64(e.rand.next()%rand48Max) / float64(rand48Max)
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := int(checkInt(L, 1))
		if u < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
	case 2:
		l, u := int(checkInt(L, 1)), int(checkInt(L, 2))
		if l > u {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u-l+1)) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

// rand48 is Redis's redisLrand48, so that math.randomseed(n) gives the
// same sequence as Redis. Like Redis 7.0 the state carries over from one
// call to the next.
type rand48 struct{ x uint64 }

const rand48Max = math.MaxInt32

func (r *rand48) seed(s int32) { r.x = uint64(uint32(s))<<16 | 0x330e }

func (r *rand48) next() int64 {
	r.x = (0x5deece66d*r.x + 0xb) & (1<<48 - 1)
	return int64(r.x >> 17)
}

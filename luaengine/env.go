package luaengine

import lua "github.com/floodgate/floodgate/third_party/gopher-lua"

// Every global a script reads goes through its function's environment.
// The proxy scripts see as _G is empty, so that every write reaches its
// __newindex and fails; a read then costs a miss on the proxy, a metatable
// lookup and the lookup in the real globals (a fifth of an EVALSHA of seed
// 001 went to global reads).
//
// A script that never assigns a global (no OP_SETGLOBAL in any of its
// functions, which is nearly every script: Redis refuses such writes) runs
// on the direct environment instead: a table holding the same globals, with
// the proxy's metatable. Reads find the name on the first lookup; a missing
// name falls through to the real globals and fails as before. Writes cannot
// happen: the table is reachable only as the environment of those
// functions (getfenv and setfenv are gone, _G is the proxy, and loadstring
// gives its chunks the proxy), and they contain no instruction that writes
// to it.

// newDirectEnv builds the direct environment from the real globals; call it
// once they are complete.
func (e *Engine) newDirectEnv() {
	env := e.L.CreateTable(0, 64)
	e.globals.ForEach(func(k, v lua.LValue) { env.RawSet(k, v) })
	env.Metatable = e.proxy.Metatable
	e.direct = env
}

// setGlobal changes a global the engine itself maintains (KEYS, ARGV) in
// both environments.
func (e *Engine) setGlobal(name string, v lua.LValue) {
	e.globals.RawSetString(name, v)
	e.direct.RawSetString(name, v)
}

// envFor returns the environment a compiled chunk runs on.
func (e *Engine) envFor(proto *lua.FunctionProto) *lua.LTable {
	if assignsGlobal(proto) {
		return e.proxy
	}
	return e.direct
}

// assignsGlobal reports whether proto or any function nested in it
// contains OP_SETGLOBAL.
func assignsGlobal(proto *lua.FunctionProto) bool {
	for _, inst := range proto.Code {
		if int(inst>>26) == lua.OP_SETGLOBAL {
			return true
		}
	}
	for _, p := range proto.FunctionPrototypes {
		if assignsGlobal(p) {
			return true
		}
	}
	return false
}

// KEYS and ARGV are refilled in place every call, and the refill checks
// that the last script left them as it found them (no field, no metatable;
// see fillTable), which costs a table walk. Most scripts cannot have
// changed any table: changesTables says when one might, so that the check
// runs only after such a script.

// tableSafeGlobals are the globals through which a script reaches no
// function that changes a table passed to it (table.insert, rawset,
// setmetatable and loadstring'd code can; _G leads to all of them).
var tableSafeGlobals = map[string]bool{
	"redis": true, "KEYS": true, "ARGV": true, "tonumber": true, "tostring": true,
	"type": true, "math": true, "string": true, "pairs": true, "ipairs": true,
	"next": true, "select": true, "unpack": true, "pcall": true, "xpcall": true,
	"error": true, "assert": true, "rawget": true, "rawequal": true,
	"getmetatable": true, "cjson": true, "cmsgpack": true, "struct": true,
	"bit": true, "coroutine": true, "_VERSION": true, "gcinfo": true,
}

// changesTables reports whether proto or a function nested in it may change
// a table it did not create: it stores into a table (OP_SETTABLE,
// OP_SETTABLEKS) or reads a global not in tableSafeGlobals.
func changesTables(proto *lua.FunctionProto) bool {
	for _, inst := range proto.Code {
		switch int(inst >> 26) {
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
			return true
		case lua.OP_GETGLOBAL:
			name, ok := proto.Constants[inst&0x3ffff].(lua.LString)
			if !ok || !tableSafeGlobals[string(name)] {
				return true
			}
		}
	}
	for _, p := range proto.FunctionPrototypes {
		if changesTables(p) {
			return true
		}
	}
	return false
}

package luaengine

import lua "github.com/yuin/gopher-lua"

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

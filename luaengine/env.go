package luaengine

import lua "github.com/floodgate/floodgate/third_party/gopher-lua"

// setGlobal changes a global the engine itself maintains (KEYS, ARGV):
// the globals are readonly to scripts only.
func (e *Engine) setGlobal(name string, v lua.LValue) {
	e.globals.RawSetString(name, v)
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

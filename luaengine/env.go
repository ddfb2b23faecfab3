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

// A function gets its keys and arguments as two new tables, as Redis's
// luaCreateArray builds them, since it may keep them (in a table of its
// library's) or change them. Most functions only read KEYS[i] and #ARGV:
// for those (keepsArgs false) FCALL refills two tables the engine keeps,
// which cost FCALL four allocations and about half its CPU over EVALSHA.

// keepsArgs reports whether the function of proto, called with a keys and
// an arguments table, may let either reach anything that outlives the call
// or change it: any use of its first two parameters but as the table of an
// index read (t[k], t.k) or of a length (#t) counts, as does any write to
// their registers, a vararg function that receives them in ..., and a
// closure (its upvalues are captured by MOVE pseudo-instructions whose A
// is 0). The analysis reads every instruction word, the operands of
// SETLIST and MOVEN included, so it can only err towards true.
func keepsArgs(proto *lua.FunctionProto) bool {
	np := min(int(proto.NumParameters), 2)
	if np < 2 && proto.IsVarArg != 0 {
		return true
	}
	reg := func(r int) bool { return r < np }
	rk := func(x int) bool { return x&opBitRK == 0 && x < np }
	for _, inst := range proto.Code {
		op := int(inst >> 26)
		a, b, c := int(inst>>18)&0xff, int(inst&0x1ff), int(inst>>9)&0x1ff
		var uses bool
		switch op {
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
			uses = reg(a) || rk(c) // R(B) may be KEYS or ARGV: read only
		case lua.OP_LEN:
			uses = reg(a)
		case lua.OP_MOVE, lua.OP_MOVEN, lua.OP_UNM, lua.OP_NOT, lua.OP_TESTSET:
			uses = reg(a) || reg(b)
		case lua.OP_LOADK, lua.OP_LOADBOOL, lua.OP_GETUPVAL, lua.OP_GETGLOBAL,
			lua.OP_NEWTABLE, lua.OP_CLOSURE, lua.OP_SETGLOBAL, lua.OP_SETUPVAL, lua.OP_TEST:
			uses = reg(a)
		case lua.OP_LOADNIL, lua.OP_CONCAT:
			uses = reg(a) || reg(b) // a range from A or B up
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS, lua.OP_ADD, lua.OP_SUB, lua.OP_MUL,
			lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
			uses = reg(a) || rk(b) || rk(c)
		case lua.OP_SELF:
			uses = reg(a) || reg(b) || rk(c)
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE:
			uses = rk(b) || rk(c) // A is a flag
		case lua.OP_RETURN:
			uses = b != 1 && reg(a) // B 1 returns nothing
		case lua.OP_CALL, lua.OP_TAILCALL, lua.OP_FORLOOP, lua.OP_FORPREP,
			lua.OP_TFORLOOP, lua.OP_SETLIST, lua.OP_VARARG:
			uses = reg(a) // registers from A up
		case lua.OP_JMP, lua.OP_CLOSE, lua.OP_NOP:
		default:
			uses = true
		}
		if uses {
			return true
		}
	}
	return false
}

// opBitRK marks a constant in an RK operand (gopher-lua's opBitRk).
const opBitRK = 1 << 8

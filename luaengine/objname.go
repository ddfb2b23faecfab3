package luaengine

import (
	"strconv"
	"strings"

	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// Lua 5.1 names the variable in a runtime error ("attempt to index field
// 'a' (a nil value)", "... local 'x' ..."), from the failing instruction
// and its function's debug information (ldebug.c's getobjname). gopher-lua
// raises the same errors without names. The engine's error handler runs
// before gopher-lua unwinds the stack, so it can read the failing frame and
// name the operand the same way; where it cannot be sure (a register set on
// another branch), the unnamed form stays, as before.

// frameBase is the registry index of the first argument of the Go
// function running on L, or -1.
func frameBase(L *lua.LState) int {
	f := L.CurrentFrame()
	if f == nil {
		return -1
	}
	return f.LocalBase
}

// closeUpvalues closes L's open upvalues at registry index from and above:
// those of the frames a caught error unwinds. gopher-lua closes upvalues
// when it raises an error only while no error handler is set, and then all
// of them, also those of live frames below the pcall; Lua 5.1 closes those
// above the pcall (luaD_pcall's luaF_close).
func closeUpvalues(L *lua.LState, from int) {
	if from < 0 {
		return
	}
	L.CloseUpvalues(from)
}

// failingFrame returns the Lua frame that raised the error being handled
// by the Go error handler now running on L; for an error inside a string
// arithmetic event, the Lua frame that called it.
func failingFrame(L *lua.LState, transparent func(*lua.LFunction) bool) *lua.CallFrame {
	handler := L.CurrentFrame()
	if handler == nil || handler.Fn == nil || !handler.Fn.IsG {
		return nil
	}
	f := handler.Parent
	if f != nil && transparent(f.Fn) {
		f = f.Parent
	}
	if f == nil || f.Fn == nil || f.Fn.IsG || f.Fn.Proto == nil || f.Pc < 1 || f.Pc > len(f.Fn.Proto.Code) {
		return nil
	}
	return f
}

func opcode(inst uint32) int { return int(inst >> 26) }
func argA(inst uint32) int   { return int(inst>>18) & 0xff }
func argB(inst uint32) int   { return int(inst & 0x1ff) }
func argC(inst uint32) int   { return int(inst>>9) & 0x1ff }
func argBx(inst uint32) int  { return int(inst & 0x3ffff) }

const rkConstant = 1 << 8 // gopher-lua's RK bit, as Lua 5.1's BITRK

// runtimeName is the variable a runtime error is about, as Lua 5.1 names
// it: kind is "local", "global", "field", "upvalue" or "method".
type runtimeName struct {
	kind, name string
	typ        string // the operand's type, for errors whose text lacks it
}

// nameFailure inspects the failing instruction of the error being handled
// and returns the operand's name, if Lua 5.1 would give one. An error in a
// string arithmetic event is about the instruction that invoked it;
// transparent tells those functions.
func nameFailure(L *lua.LState, transparent func(*lua.LFunction) bool) (runtimeName, bool) {
	f := failingFrame(L, transparent)
	if f == nil {
		return runtimeName{}, false
	}
	p := f.Fn.Proto
	pc := f.Pc - 1
	inst := p.Code[pc]
	reg := -1
	switch opcode(inst) {
	case lua.OP_CONCAT:
		// The operand luaG_concaterror blamed, which the VM recorded.
		reg = L.ConcatErrorRegister()
		if reg < argB(inst) || reg > argC(inst) {
			return runtimeName{}, false
		}
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF, lua.OP_LEN, lua.OP_UNM:
		reg = argB(inst)
	case lua.OP_SETTABLE, lua.OP_SETTABLEKS, lua.OP_CALL, lua.OP_TAILCALL:
		reg = argA(inst)
	case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
		// Lua blames the second operand unless the first is not a number.
		b, c := argB(inst), argC(inst)
		if !isNumeric(operand(p, L, f, b)) {
			reg = b
		} else {
			reg = c
		}
		if reg&rkConstant != 0 {
			// A constant has no name, but its type is the one to blame.
			return runtimeName{typ: operand(p, L, f, reg).Type().String()}, true
		}
	default:
		return runtimeName{}, false
	}
	return nameRegister(p, L, f, pc, reg), true
}

func nameRegister(p *lua.FunctionProto, L *lua.LState, f *lua.CallFrame, pc, reg int) runtimeName {
	typ := ""
	if v := L.RegistryValue(f.LocalBase + reg); v != nil {
		typ = v.Type().String()
	}
	kind, name := objectName(p, pc, reg)
	return runtimeName{kind: kind, name: name, typ: typ}
}

func operand(p *lua.FunctionProto, L *lua.LState, f *lua.CallFrame, rk int) lua.LValue {
	if rk&rkConstant != 0 {
		if k := rk &^ rkConstant; k < len(p.Constants) {
			return p.Constants[k]
		}
		return lua.LNil
	}
	if v := L.RegistryValue(f.LocalBase + rk); v != nil {
		return v
	}
	return lua.LNil
}

func isNumeric(v lua.LValue) bool {
	_, ok := toNumber(v)
	return ok
}

// objectName is Lua 5.1's getobjname: a local active at pc, or the
// instruction that last loaded the register, found as ldebug.c's symbexec
// finds it: executing the code up to pc symbolically, following forward
// jumps that land before pc.
func objectName(p *lua.FunctionProto, pc, reg int) (kind, name string) {
	if n := localName(p, reg+1, pc); n != "" {
		return "local", n
	}
	last := -1
	for i := 0; i < pc; i++ {
		inst := p.Code[i]
		if setsRegister(inst, reg) {
			last = i
		}
		switch opcode(inst) {
		case lua.OP_JMP, lua.OP_FORLOOP, lua.OP_FORPREP:
			if dest := i + 1 + argSbx(inst); i < dest && dest <= pc {
				i = dest - 1
			}
		case lua.OP_CLOSURE:
			// The MOVE or GETUPVAL after it, one per upvalue, only name
			// what the closure captures (symbexec skips them too).
			if b := argBx(inst); b < len(p.FunctionPrototypes) {
				i += int(p.FunctionPrototypes[b].NumUpvalues)
			}
		}
	}
	if last < 0 {
		return "", ""
	}
	inst := p.Code[last]
	switch opcode(inst) {
	case lua.OP_GETGLOBAL:
		if s, ok := constant(p, argBx(inst)); ok {
			return "global", s
		}
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		return "field", constantName(p, argC(inst))
	case lua.OP_GETUPVAL:
		if b := argB(inst); b < len(p.DbgUpvalues) {
			return "upvalue", p.DbgUpvalues[b]
		}
	case lua.OP_SELF:
		if argA(inst) == reg {
			return "method", constantName(p, argC(inst))
		}
	case lua.OP_MOVE, lua.OP_MOVEN:
		if b := argB(inst); b < argA(inst) {
			return objectName(p, pc, b) // getobjname at the same pc
		}
	}
	return "", ""
}

// argSbx is a jump's signed offset (gopher-lua's opGetArgSbx).
func argSbx(inst uint32) int { return argBx(inst) - (1<<18-1)>>1 }

// setsRegister reports whether inst writes register reg.
func setsRegister(inst uint32, reg int) bool {
	a := argA(inst)
	switch opcode(inst) {
	case lua.OP_SETGLOBAL, lua.OP_SETUPVAL, lua.OP_SETTABLE, lua.OP_SETTABLEKS,
		lua.OP_SETLIST, lua.OP_CLOSE, lua.OP_RETURN, lua.OP_NOP,
		// A jump's or a comparison's A is no register (lopcodes.c's
		// testAMode): a comparison between the load and the use keeps the
		// load's name. A TEST stays a write: where gopher-lua tests the
		// register an "and" leaves its value in, Lua 5.1 has a TESTSET.
		lua.OP_JMP, lua.OP_EQ, lua.OP_LT, lua.OP_LE:
		return false
	case lua.OP_LOADNIL:
		return a <= reg && reg <= argB(inst)
	case lua.OP_SELF:
		return reg == a || reg == a+1
	case lua.OP_CALL, lua.OP_TAILCALL, lua.OP_VARARG:
		return reg >= a
	}
	return a == reg
}

func constant(p *lua.FunctionProto, k int) (string, bool) {
	if k < len(p.Constants) {
		if s, ok := p.Constants[k].(lua.LString); ok {
			return string(s), true
		}
	}
	return "", false
}

// constantName is Lua 5.1's kname: a constant string key, else "?".
func constantName(p *lua.FunctionProto, rk int) string {
	if rk&rkConstant != 0 {
		if s, ok := constant(p, rk&^rkConstant); ok {
			return s
		}
	}
	return "?"
}

// localName is luaF_getlocalname: the n-th local variable active at pc.
func localName(p *lua.FunctionProto, n, pc int) string {
	for _, lv := range p.DbgLocals {
		if lv.StartPc > pc {
			break
		}
		if pc < lv.EndPc {
			n--
			if n == 0 {
				return lv.Name
			}
		}
	}
	return ""
}

// argErrorMessage rewrites gopher-lua's "bad argument" error, raised by a
// Go function, as Lua 5.1's luaL_argerror words it: the function is named
// by the instruction that called it (and a method's self is not counted),
// '?' and no position when a Go function (pcall) called it, and a missing
// argument is "no value" rather than nil (unless the function words its
// own type errors, roleOwnArgs). role tells what the engine's functions are.
func argErrorMessage(L *lua.LState, msg string, role func(*lua.LFunction) fnRole) (string, bool) {
	transparent := func(fn *lua.LFunction) bool { return role(fn) == roleTransparent }
	pos, rest := splitPosition(msg)
	const prefix = "bad argument #"
	if !strings.HasPrefix(rest, prefix) {
		return "", false
	}
	digits := len(prefix)
	for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
		digits++
	}
	n, err := strconv.Atoi(rest[len(prefix):digits])
	if err != nil || !strings.HasPrefix(rest[digits:], " to ") {
		return "", false
	}
	name, detail, ok := strings.Cut(rest[digits+len(" to "):], " (")
	if !ok {
		return "", false
	}
	detail = "(" + detail
	name = strings.Trim(name, "'")

	handler := L.CurrentFrame()
	if handler == nil || handler.Parent == nil {
		return "", false
	}
	f := handler.Parent
	if f.Fn == nil || !f.Fn.IsG || transparent(f.Fn) {
		return "", false
	}
	if n > f.NArgs && strings.HasSuffix(detail, ", got nil)") && role(f.Fn) != roleOwnArgs {
		detail = strings.TrimSuffix(detail, "nil)") + "no value)"
	}
	return argErrorText(f, n, name, detail, pos, transparent), true
}

// argErrorText is luaL_argerror's message for argument n of the Go
// function running in frame f: named as its caller's call instruction
// names it (a method's self is argument 0), '?' and no position when a Go
// function (pcall) called it.
func argErrorText(f *lua.CallFrame, n int, name, detail, pos string, transparent func(*lua.LFunction) bool) string {
	c := f.Parent
	for c != nil && c.Fn != nil && c.Fn.IsG && transparent(c.Fn) {
		c = c.Parent
	}
	if c == nil || c.Fn == nil || c.Fn.IsG || c.Fn.Proto == nil || c.Pc < 1 || c.Pc > len(c.Fn.Proto.Code) {
		return "bad argument #" + itoa(n) + " to '?' " + detail
	}
	inst := c.Fn.Proto.Code[c.Pc-1]
	if op := opcode(inst); op == lua.OP_CALL || op == lua.OP_TAILCALL {
		kind, called := objectName(c.Fn.Proto, c.Pc-1, argA(inst))
		if called != "" {
			name = called
		}
		if kind == "method" {
			n--
			if n == 0 {
				return pos + "calling '" + name + "' on bad self " + detail
			}
		}
	}
	return pos + "bad argument #" + itoa(n) + " to '" + name + "' " + detail
}

// raiseArgError raises luaL_argerror's error from the Go function L is
// running, for functions whose own errors the engine never rewrites
// (roleTransparent: assert).
func raiseArgError(L *lua.LState, n int, name, detail string, hidden, transparent func(*lua.LFunction) bool) {
	msg := "bad argument #" + itoa(n) + " to '" + name + "' (" + detail + ")"
	if f := L.CurrentFrame(); f != nil {
		msg = argErrorText(f, n, name, "("+detail+")", levelWhere(L, 1, hidden), transparent)
	}
	L.Error(lua.LString(msg), 0)
}

// unpositioned drops the position gopher-lua gave an error raised by a Go
// function that a Go function (pcall) called: luaL_error's position is its
// caller's, and a C caller has none.
func unpositioned(L *lua.LState, msg string, role func(*lua.LFunction) fnRole) (string, bool) {
	pos, rest := splitPosition(msg)
	if pos == "" {
		return "", false
	}
	handler := L.CurrentFrame()
	if handler == nil || handler.Parent == nil {
		return "", false
	}
	f := handler.Parent
	if f.Fn == nil || !f.Fn.IsG || role(f.Fn) == roleTransparent {
		return "", false
	}
	c := f.Parent
	for c != nil && c.Fn != nil && c.Fn.IsG && role(c.Fn) == roleTransparent {
		c = c.Parent
	}
	if c != nil && c.Fn != nil && !c.Fn.IsG {
		return "", false
	}
	return rest, true
}

// fnRole is what argErrorMessage needs to know of a Go function.
type fnRole uint8

const (
	roleNone fnRole = iota
	// roleTransparent: a wrapper that calls the real function through the
	// VM (seeThrough), which Lua 5.1 would not see as a caller, or error
	// and assert, whose messages are the script's text.
	roleTransparent
	// roleOwnArgs: a library function of ours that already says "no
	// value" or "nil" as its C original does.
	roleOwnArgs
)

// calledByTailCall reports whether the Go function running on L was
// called by a Lua function's "return f(...)": Lua 5.1 would have replaced
// the caller's frame if the function were Lua's.
func calledByTailCall(L *lua.LState) bool {
	f := L.CurrentFrame()
	if f == nil || f.Parent == nil {
		return false
	}
	p := f.Parent
	if p.Fn == nil || p.Fn.IsG || p.Fn.Proto == nil || p.Pc < 1 || p.Pc > len(p.Fn.Proto.Code) {
		return false
	}
	return opcode(p.Fn.Proto.Code[p.Pc-1]) == lua.OP_TAILCALL
}

// callerPosition is the chunk and line of the Lua function that called
// the Go function running on L, directly or through one Go function (as
// __redis__err__handler's debug.getinfo(2), then (3) if that is C), not
// counting hidden frames.
func callerPosition(L *lua.LState, hidden func(*lua.LFunction) bool) (source string, line int, ok bool) {
	f := L.CurrentFrame()
	next := func(f *lua.CallFrame) *lua.CallFrame {
		for f = f.Parent; f != nil && hidden(f.Fn); f = f.Parent {
		}
		return f
	}
	if f == nil {
		return "", 0, false
	}
	f = next(f)
	if f != nil && f.Fn != nil && f.Fn.IsG {
		f = next(f)
	}
	if f == nil || f.Fn == nil || f.Fn.IsG || f.Fn.Proto == nil || f.Pc < 1 || f.Pc > len(f.Fn.Proto.DbgSourcePositions) {
		return "", 0, false
	}
	return f.Fn.Proto.SourceName, f.Fn.Proto.DbgSourcePositions[f.Pc-1], true
}

// levelWhere is luaL_where for the function at the given call level above
// the Go function running on L (1: its caller), not counting hidden
// frames: "<chunk>:<line>: ", or "" for a Go function or no function.
func levelWhere(L *lua.LState, level int, hidden func(*lua.LFunction) bool) string {
	f := L.CurrentFrame()
	for f != nil && level > 0 {
		f = f.Parent
		if f != nil && !hidden(f.Fn) {
			level--
		}
	}
	if f == nil || f.Fn == nil || f.Fn.IsG || f.Fn.Proto == nil || f.Pc < 1 || f.Pc > len(f.Fn.Proto.DbgSourcePositions) {
		return ""
	}
	return f.Fn.Proto.SourceName + ":" + itoa(f.Fn.Proto.DbgSourcePositions[f.Pc-1]) + ": "
}

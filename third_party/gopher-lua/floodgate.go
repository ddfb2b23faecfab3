package lua

// floodgate: what luaengine reads of a running state to word runtime
// errors as Lua 5.1 does (ldebug.c's getobjname, luaL_argerror, the
// upvalues luaD_pcall closes), exported here so that it needs no mirror of
// the unexported structs.

// CallFrame is a frame of the call stack: the function it runs, its caller
// (Parent), the instruction after the current one (Pc) and where its
// registers start in the registry (LocalBase).
type CallFrame = callFrame

// CurrentFrame is the frame of the function running on ls, or nil.
func (ls *LState) CurrentFrame() *CallFrame { return ls.currentFrame }

// RegistryValue is the value at index i of ls's registry (a frame's
// register r is at f.LocalBase+r), or nil if i is out of range.
func (ls *LState) RegistryValue(i int) LValue {
	if i < 0 || i >= len(ls.reg.array) {
		return nil
	}
	return ls.reg.array[i]
}

// CloseUpvalues closes the open upvalues at registry index idx and above.
func (ls *LState) CloseUpvalues(idx int) { ls.closeUpvalues(idx) }

// ConcatErrorRegister is the register, in the frame that raised it, of the
// operand the last "attempt to concatenate" error is about: the one
// luaG_concaterror names.
func (ls *LState) ConcatErrorRegister() int { return ls.concatErrorRegister }

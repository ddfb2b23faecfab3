package luaengine

import (
	"math"

	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// Arithmetic on strings. Lua 5.1 converts a string operand with luaO_str2d
// (C's strtod: '0x1.8' + 0 is 1.5, '010' + 0 is 10, '1_0' * 1 is an error),
// while gopher-lua converts with Go's parsers. gopher-lua looks for an
// operand's metamethod before converting, so the string metatable's
// arithmetic events convert as Lua does. Numbers never reach them: the VM
// adds two numbers inline.

// stringArith are the arithmetic events and gopher-lua's names for them, which
// its error texts use ("cannot perform add operation between ...").
var stringArith = []struct {
	event, op string
	fn        func(a, b float64) float64
}{
	{"__add", "add", func(a, b float64) float64 { return a + b }},
	{"__sub", "sub", func(a, b float64) float64 { return a - b }},
	{"__mul", "mul", func(a, b float64) float64 { return a * b }},
	{"__div", "div", func(a, b float64) float64 { return a / b }},
	{"__mod", "mod", func(a, b float64) float64 { return a - math.Floor(a/b)*b }}, // luai_nummod, as the VM's
	{"__pow", "pow", powC},
}

// powC is Lua 5.1's luai_numpow: the C library's pow.
func powC(x, y float64) float64 { return libm.pow(x, y) }

// installStringArith puts the arithmetic events on the string metatable.
// Scripts never see them: getmetatable(”) hands out a view of __index only.
func (e *Engine) installStringArith(mt *lua.LTable) {
	L := e.L
	e.arithFns = map[*lua.LFunction]bool{}
	for _, op := range stringArith {
		fn := L.NewFunction(func(L *lua.LState) int {
			a, b := L.Get(1), L.Get(2)
			x, okA := toNumber(a)
			y, okB := toNumber(b)
			if okA && okB {
				L.Push(e.numbers.float(op.fn(x, y)))
				return 1
			}
			// Lua 5.1 takes the first operand's handler, else the
			// second's; a string has none of its own.
			for _, v := range []lua.LValue{a, b} {
				if v.Type() == lua.LTString {
					continue
				}
				if mm := L.GetMetaField(v, op.event); mm != lua.LNil {
					L.Push(mm)
					L.Push(a)
					L.Push(b)
					L.Call(2, 1)
					return 1
				}
			}
			L.RaiseError("cannot perform %s operation between %s and %s", op.op, arithType(a), arithType(b))
			return 0
		})
		mt.RawSetString(op.event, fn)
		e.arithFns[fn] = true
	}
	unm := L.NewFunction(func(L *lua.LState) int {
		if x, ok := toNumber(L.Get(1)); ok {
			L.Push(e.numbers.float(-x))
			return 1
		}
		L.RaiseError("__unm undefined")
		return 0
	})
	mt.RawSetString("__unm", unm)
	e.arithFns[unm] = true
}

// toNumber is luaV_tonumber: a number, or a string luaO_str2d reads.
func toNumber(v lua.LValue) (float64, bool) {
	switch v := v.(type) {
	case lua.LNumber:
		return float64(v), true
	case lua.LString:
		return parseNumber(string(v))
	}
	return 0, false
}

// arithType is the type gopher-lua names in its error text: a numeric
// string counts as the number it converts to.
func arithType(v lua.LValue) string {
	if _, ok := toNumber(v); ok {
		return lua.LTNumber.String()
	}
	return v.Type().String()
}

// transparent reports whether fn stands in for an instruction (the string
// arithmetic events): an error raised in it is about the instruction that
// called it.
func (e *Engine) transparent(fn *lua.LFunction) bool { return e.arithFns[fn] }

package luaengine

import (
	"math"

	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// Lua 5.1's math library (lmathlib.c) over the C library's math (libm):
// arguments through luaL_checknumber (numeric strings too), ldexp's
// exponent a C int, two-argument functions checking their second argument
// first.

// libmFuncs are the C functions lmathlib.c calls.
type libmFuncs struct {
	sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, exp, log, log10,
	sqrt, floor, ceil func(float64) float64
	fmod, pow, atan2 func(x, y float64) float64
	frexp            func(float64) (float64, int)
	ldexp            func(float64, int32) float64
	modf             func(float64) (ip, fp float64)
}

// defaultNaN is x86's answer to an invalid operation (0/0): sign set.
// Go's math.NaN() has a payload bit of its own, which bit.tobit would show.
var (
	defaultNaN = math.Float64frombits(0xFFF8000000000000)
	quietNaN   = math.Float64frombits(0x7FF8000000000000)
)

func init() {
	// The ^ operator and its constant folding, in gopher-lua's VM and
	// compiler (third_party/gopher-lua), as Lua 5.1's luai_numpow.
	lua.Pow = libm.pow
	// The .. operator's numbers, as Lua 5.1's lua_Number2str ("%.14g").
	lua.AppendConcatNumber = func(b []byte, n lua.LNumber) []byte { return appendNumber(b, float64(n), 14) }
}

func math1(f func(float64) float64) lua.LGFunction {
	return func(L *lua.LState) int {
		L.Push(lua.LNumber(f(checkNumber(L, 1))))
		return 1
	}
}

// math2's arguments are checked second first: lmathlib.c passes both
// luaL_checknumber calls as C arguments, which gcc evaluates right to left.
func math2(f func(x, y float64) float64) lua.LGFunction {
	return func(L *lua.LState) int {
		y := checkNumber(L, 2)
		x := checkNumber(L, 1)
		L.Push(lua.LNumber(f(x, y)))
		return 1
	}
}

// radiansPerDegree is lmathlib.c's RADIANS_PER_DEGREE: deg divides by it.
const radiansPerDegree = math.Pi / 180.0

func (e *Engine) installMathLibrary(m *lua.LTable) {
	L := e.L
	for name, fn := range map[string]lua.LGFunction{
		"abs":  func(L *lua.LState) int { L.Push(lua.LNumber(math.Abs(checkNumber(L, 1)))); return 1 },
		"ceil": math1(libm.ceil), "floor": math1(libm.floor), "sqrt": math1(libm.sqrt),
		"sin": math1(libm.sin), "cos": math1(libm.cos), "tan": math1(libm.tan),
		"asin": math1(libm.asin), "acos": math1(libm.acos), "atan": math1(libm.atan),
		"sinh": math1(libm.sinh), "cosh": math1(libm.cosh), "tanh": math1(libm.tanh),
		"exp": math1(libm.exp), "log": math1(libm.log), "log10": math1(libm.log10),
		"deg":  math1(func(x float64) float64 { return x / radiansPerDegree }),
		"rad":  math1(func(x float64) float64 { return x * radiansPerDegree }),
		"fmod": math2(libm.fmod), "pow": math2(libm.pow),
		"atan2": math2(libm.atan2),
		"modf": func(L *lua.LState) int {
			ip, fp := libm.modf(checkNumber(L, 1))
			L.Push(lua.LNumber(ip))
			L.Push(lua.LNumber(fp))
			return 2
		},
		"frexp": func(L *lua.LState) int {
			frac, exp := libm.frexp(checkNumber(L, 1))
			L.Push(lua.LNumber(frac))
			L.Push(lua.LNumber(exp))
			return 2
		},
		"ldexp": func(L *lua.LState) int {
			e := checkInt(L, 2)
			L.Push(lua.LNumber(libm.ldexp(checkNumber(L, 1), e)))
			return 1
		},
		"max": func(L *lua.LState) int { return mathFold(L, func(d, m float64) bool { return d > m }) },
		"min": func(L *lua.LState) int { return mathFold(L, func(d, m float64) bool { return d < m }) },
	} {
		m.RawSetString(name, L.NewFunction(fn))
	}
	m.RawSetString("mod", m.RawGetString("fmod"))
}

// mathFold is math.max and math.min: the first argument is checked even
// alone, and a comparison with NaN never replaces the value held.
func mathFold(L *lua.LState, better func(d, m float64) bool) int {
	m := checkNumber(L, 1)
	for i := 2; i <= L.GetTop(); i++ {
		if d := checkNumber(L, i); better(d, m) {
			m = d
		}
	}
	L.Push(lua.LNumber(m))
	return 1
}

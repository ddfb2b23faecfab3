package luaengine

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1's math library (lmathlib.c) over glibc: arguments through
// luaL_checknumber (numeric strings too), ldexp's exponent a C int, and
// NaN as x86 makes it: an invalid operation yields the negative "default
// NaN" (printed -nan) while a NaN operand passes through. Go's math
// returns a positive NaN of its own.

// cNaN returns r, or for a NaN result the NaN C would give: the first NaN
// operand, else the default NaN.
func cNaN(r float64, in ...float64) float64 {
	if r == r {
		return r
	}
	for _, x := range in {
		if x != x {
			return x
		}
	}
	return defaultNaN
}

// defaultNaN is x86's answer to an invalid operation (0/0): sign set.
// Go's math.NaN() has a payload bit of its own, which bit.tobit would show.
var (
	defaultNaN = math.Float64frombits(0xFFF8000000000000)
	quietNaN   = math.Float64frombits(0x7FF8000000000000)
)

func math1(f func(float64) float64) lua.LGFunction {
	return func(L *lua.LState) int {
		x := checkNumber(L, 1)
		L.Push(lua.LNumber(cNaN(f(x), x)))
		return 1
	}
}

// positiveNaN wraps the glibc functions whose domain errors return a
// positive NaN (acos(2), asin(2), log10(-1) print "nan", measured against
// Redis 7.0.15 on x86-64) where most return the default -nan.
func positiveNaN(f func(float64) float64) lua.LGFunction {
	return func(L *lua.LState) int {
		x := checkNumber(L, 1)
		r := cNaN(f(x), x)
		if r != r && x == x {
			r = quietNaN
		}
		L.Push(lua.LNumber(r))
		return 1
	}
}

// math2's arguments are checked second first: lmathlib.c passes both
// luaL_checknumber calls as C arguments, which gcc evaluates right to left.
func math2(f func(x, y float64) float64) lua.LGFunction {
	return func(L *lua.LState) int {
		y := checkNumber(L, 2)
		x := checkNumber(L, 1)
		L.Push(lua.LNumber(cNaN(f(x, y), x, y)))
		return 1
	}
}

// logC is math.Log with subnormal arguments scaled into the normal range
// first: Go's amd64 Log answers log(1e-310) as -709.08, glibc -713.80.
func logC(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

// log10C is glibc's log10 where Go's differs most visibly: glibc's is
// exact for powers of ten (Go's math.Log10(1e15) is 14.999999999999998).
func log10C(x float64) float64 {
	if x >= 1 && x <= 1e22 {
		for k, p := 0, 1.0; p <= x; k, p = k+1, p*10 {
			if p == x {
				return float64(k)
			}
		}
	}
	return logC(x) * (1 / math.Ln10)
}

// radiansPerDegree is lmathlib.c's RADIANS_PER_DEGREE: deg divides by it.
const radiansPerDegree = math.Pi / 180.0

func (e *Engine) installMathLibrary(m *lua.LTable) {
	L := e.L
	for name, fn := range map[string]lua.LGFunction{
		"abs": func(L *lua.LState) int { L.Push(lua.LNumber(math.Abs(checkNumber(L, 1)))); return 1 }, "ceil": math1(math.Ceil), "floor": math1(math.Floor),
		"sqrt": math1(math.Sqrt), "sin": math1(math.Sin), "cos": math1(math.Cos),
		"tan": math1(math.Tan), "asin": positiveNaN(math.Asin), "acos": positiveNaN(math.Acos),
		"atan": math1(math.Atan), "sinh": math1(math.Sinh), "cosh": math1(math.Cosh),
		"tanh": math1(math.Tanh), "exp": math1(math.Exp), "log": math1(logC),
		"log10": positiveNaN(log10C),
		"deg":   math1(func(x float64) float64 { return x / radiansPerDegree }),
		"rad":   math1(func(x float64) float64 { return x * radiansPerDegree }),
		"fmod":  math2(math.Mod), "pow": func(L *lua.LState) int {
			y := checkNumber(L, 2)
			L.Push(lua.LNumber(powC(checkNumber(L, 1), y)))
			return 1
		}, "atan2": func(L *lua.LState) int {
			x := checkNumber(L, 2)
			y := checkNumber(L, 1)
			L.Push(lua.LNumber(cNaN(math.Atan2(y, x), x, y))) // x's NaN first
			return 1
		},
		"modf": func(L *lua.LState) int {
			x := checkNumber(L, 1)
			ip, fp := math.Modf(x)
			if math.IsInf(x, 0) {
				fp = math.Copysign(0, x)
			}
			L.Push(lua.LNumber(ip))
			L.Push(lua.LNumber(fp))
			return 2
		},
		"frexp": func(L *lua.LState) int {
			frac, exp := math.Frexp(checkNumber(L, 1))
			L.Push(lua.LNumber(frac))
			L.Push(lua.LNumber(exp))
			return 2
		},
		"ldexp": func(L *lua.LState) int {
			e := checkInt(L, 2)
			L.Push(lua.LNumber(math.Ldexp(checkNumber(L, 1), int(e))))
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

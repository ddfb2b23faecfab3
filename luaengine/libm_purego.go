//go:build !cgo || !linux

package luaengine

import "math"

// libm without cgo: Go's math, with glibc's NaNs and its most visible
// differences corrected. The last bits of sin, exp, pow... can still differ
// from Redis's (libm_cgo.go calls the C library itself).
var libm = libmFuncs{
	sin: goMath1(math.Sin), cos: goMath1(math.Cos), tan: goMath1(math.Tan),
	asin: positiveNaN(math.Asin), acos: positiveNaN(math.Acos), atan: goMath1(math.Atan),
	sinh: goMath1(math.Sinh), cosh: goMath1(math.Cosh), tanh: goMath1(math.Tanh),
	exp: goMath1(math.Exp), log: goMath1(logGo), log10: positiveNaN(log10Go),
	sqrt: goMath1(math.Sqrt), floor: goMath1(math.Floor), ceil: goMath1(math.Ceil),
	fmod: func(x, y float64) float64 { return cNaN(math.Mod(x, y), x, y) },
	pow:  powGo,
	// x's NaN first, as glibc's atan2 passes it on.
	atan2: func(y, x float64) float64 { return cNaN(math.Atan2(y, x), x, y) },
	frexp: math.Frexp,
	ldexp: func(x float64, e int32) float64 { return math.Ldexp(x, int(e)) },
	modf: func(x float64) (float64, float64) {
		ip, fp := math.Modf(x)
		if math.IsInf(x, 0) {
			fp = math.Copysign(0, x)
		}
		return ip, fp
	},
}

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

func goMath1(f func(float64) float64) func(float64) float64 {
	return func(x float64) float64 { return cNaN(f(x), x) }
}

// positiveNaN wraps the glibc functions whose domain errors return a
// positive NaN (acos(2), asin(2), log10(-1) print "nan", measured against
// Redis 7.0.15 on x86-64) where most return the default -nan.
func positiveNaN(f func(float64) float64) func(float64) float64 {
	return func(x float64) float64 {
		r := cNaN(f(x), x)
		if r != r && x == x {
			r = quietNaN
		}
		return r
	}
}

// logGo is math.Log with subnormal arguments scaled into the normal range
// first: Go's amd64 Log answers log(1e-310) as -709.08, glibc -713.80.
func logGo(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

// log10Go is glibc's log10 where Go's differs most visibly: glibc's is
// exact for powers of ten (Go's math.Log10(1e15) is 14.999999999999998).
func log10Go(x float64) float64 {
	if x >= 1 && x <= 1e22 {
		for k, p := 0, 1.0; p <= x; k, p = k+1, p*10 {
			if p == x {
				return float64(k)
			}
		}
	}
	return logGo(x) * (1 / math.Ln10)
}

// powGo is glibc's pow where its NaNs differ from Go's: a NaN base with an
// odd integral exponent loses its sign (pow(-nan, 3) is nan, pow(-nan, 2)
// -nan), with another exponent it is passed on, a NaN exponent is passed
// on, and an invalid power is the default -nan (measured against Redis
// 7.0.15).
func powGo(x, y float64) float64 {
	r := math.Pow(x, y)
	switch {
	case r == r:
		return r
	case x != x && math.Abs(y) < 1<<53 && math.Mod(y, 2) != 0 && y == math.Trunc(y):
		return math.Abs(x)
	case x != x:
		return x
	case y != y:
		return y
	}
	return defaultNaN
}

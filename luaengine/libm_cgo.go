//go:build cgo && linux

package luaengine

/*
#cgo LDFLAGS: -lm
#include <math.h>
*/
import "C"

import "math"

// libm is the C library's math, which Redis's Lua 5.1 calls (lmathlib.c,
// luai_numpow): results and NaNs bit for bit, as store's geo distances do.
// libm_purego.go stands in for it without cgo.
var libm = libmFuncs{
	sin:   func(x float64) float64 { return float64(C.sin(C.double(x))) },
	cos:   func(x float64) float64 { return float64(C.cos(C.double(x))) },
	tan:   func(x float64) float64 { return float64(C.tan(C.double(x))) },
	asin:  func(x float64) float64 { return float64(C.asin(C.double(x))) },
	acos:  func(x float64) float64 { return float64(C.acos(C.double(x))) },
	atan:  func(x float64) float64 { return float64(C.atan(C.double(x))) },
	sinh:  func(x float64) float64 { return float64(C.sinh(C.double(x))) },
	cosh:  func(x float64) float64 { return float64(C.cosh(C.double(x))) },
	tanh:  func(x float64) float64 { return float64(C.tanh(C.double(x))) },
	exp:   func(x float64) float64 { return float64(C.exp(C.double(x))) },
	log:   func(x float64) float64 { return float64(C.log(C.double(x))) },
	log10: func(x float64) float64 { return float64(C.log10(C.double(x))) },
	sqrt:  func(x float64) float64 { return float64(C.sqrt(C.double(x))) },
	// floor and ceil are exact, so Go's give glibc's results (NaNs
	// included: both return the argument) without a cgo call, which costs
	// more than the rest of a limiter script's arithmetic.
	floor: math.Floor,
	ceil:  math.Ceil,
	fmod:  func(x, y float64) float64 { return float64(C.fmod(C.double(x), C.double(y))) },
	pow:   func(x, y float64) float64 { return float64(C.pow(C.double(x), C.double(y))) },
	atan2: func(y, x float64) float64 { return float64(C.atan2(C.double(y), C.double(x))) },
	frexp: func(x float64) (float64, int) {
		var e C.int
		f := C.frexp(C.double(x), &e)
		return float64(f), int(e)
	},
	ldexp: func(x float64, e int32) float64 { return float64(C.ldexp(C.double(x), C.int(e))) },
	modf: func(x float64) (float64, float64) {
		var ip C.double
		fp := C.modf(C.double(x), &ip)
		return float64(ip), float64(fp)
	},
}

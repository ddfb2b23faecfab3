package store

import (
	"math"
	"math/big"
)

// Redis computes distances with the C library's sin, cos and asin, and
// GEOSEARCHSTORE ... STOREDIST shows the results as whole doubles. Go's
// math package differs from glibc's in the last bit for 10-30% of
// arguments (measured over 2 million), enough to change one distance in
// twenty. With cgo on Linux the geo code calls the C library itself
// (geomath_libm.go), as Redis does; without cgo it evaluates them in
// double-double arithmetic (about 106 bits) and rounds once, which is the
// correctly rounded result: glibc 2.36 differs from it for 0.07% of
// arguments, where glibc itself is not.

// dd is an unevaluated sum hi+lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func ddAdd(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s = quickTwoSum(s.hi, s.lo+t.hi)
	return quickTwoSum(s.hi, s.lo+t.lo)
}

func ddMul(a, b dd) dd {
	p := a.hi * b.hi
	e := math.FMA(a.hi, b.hi, -p) // the product's rounding error, exactly
	e += float64(a.hi*b.lo) + float64(a.lo*b.hi)
	return quickTwoSum(p, e)
}

func (a dd) neg() dd { return dd{-a.hi, -a.lo} }

// Taylor coefficients 1/n! as double-doubles, and pi/2 in three parts.
var (
	invFact [32]dd
	pio2    = [3]float64{1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33}
)

func init() {
	f := new(big.Float).SetPrec(200).SetInt64(1)
	for n := range invFact {
		if n > 1 {
			f.Quo(f, new(big.Float).SetInt64(int64(n)))
		}
		hi, _ := f.Float64()
		lo, _ := new(big.Float).SetPrec(200).Sub(f, new(big.Float).SetFloat64(hi)).Float64()
		invFact[n] = dd{hi, lo}
	}
}

// sinCosReduced returns sin r and cos r for |r| <= pi/4 by their Taylor
// series, whose terms fall below 2^-106 by the 30th power.
func sinCosReduced(r dd) (sin, cos dd) {
	r2 := ddMul(r, r)
	sin, cos = invFact[29], invFact[30]
	for n := 27; n >= 1; n -= 2 {
		sin = ddAdd(invFact[n], ddMul(r2, sin).neg())
	}
	for n := 28; n >= 0; n -= 2 {
		cos = ddAdd(invFact[n], ddMul(r2, cos).neg())
	}
	return ddMul(sin, r), cos
}

// sinCosDD returns sin x and cos x as double-doubles: x less the nearest
// multiple of pi/2, then the quadrant's identities.
func sinCosDD(x float64) (sin, cos dd) {
	k := math.RoundToEven(x / pio2[0])
	r := twoSum(x, -k*pio2[0]) // exact: k is small and pio2[0]*k a double
	r = ddAdd(r, dd{-k * pio2[1], 0})
	r = ddAdd(r, dd{-k * pio2[2], 0})
	s, c := sinCosReduced(r)
	switch int64(k) & 3 {
	case 1:
		s, c = c, s.neg()
	case 2:
		s, c = s.neg(), c.neg()
	case 3:
		s, c = c.neg(), s
	}
	return s, c
}

func ddSin(x float64) float64 { s, _ := sinCosDD(x); return s.hi + s.lo }
func ddCos(x float64) float64 { _, c := sinCosDD(x); return c.hi + c.lo }

// ddAsin refines math.Asin by one Newton step on sin in double-double.
func ddAsin(y float64) float64 {
	x := math.Asin(y)
	if y == 0 || math.IsNaN(x) || math.Abs(y) == 1 {
		return x
	}
	s, c := sinCosDD(x)
	diff := ddAdd(dd{y, 0}, s.neg())
	res := twoSum(x, (diff.hi+diff.lo)/(c.hi+c.lo))
	return res.hi + res.lo
}

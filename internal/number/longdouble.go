package number

import (
	"math/big"
	"strings"
)

// Redis computes INCRBYFLOAT (and HINCRBYFLOAT) in C's long double, which on
// x86-64 is the x87 80-bit extended format: a 64-bit mantissa and a 15-bit
// exponent. The result is stored as text, so every digit a client sees
// depends on that precision (0.1 + 0.2 is "0.3" in Redis, not
// "0.30000000000000004"). We emulate it with big.Float at 64 bits and the
// extended format's exponent range.
const (
	// LongDoublePrec is the extended format's mantissa, in bits.
	LongDoublePrec = 64
	// ldMaxExp and ldMinExp bound big.Float's MantExp (x = mant * 2**exp,
	// 0.5 <= |mant| < 1) for finite normal extended values.
	ldMaxExp = 16384
	ldMinExp = -16381
	// ldDenormBits: a subnormal with MantExp e keeps e+ldDenormBits bits;
	// the smallest one is 2**-16445.
	ldDenormBits = 16445
	// maxLongDoubleChars is Redis's MAX_LONG_DOUBLE_CHARS: string2ld
	// refuses longer input.
	maxLongDoubleChars = 5 * 1024
)

// ParseLongDouble parses b as Redis's string2ld does with glibc's strtold:
// decimal or hexadecimal ("0x1.8p3") floats, "inf" and "infinity" in any
// case, an optional sign; no leading space, no trailing bytes, no NaN, and no
// value that overflows the extended format or underflows to zero. The result
// is rounded to the extended format; it may be an infinity.
func ParseLongDouble[T ~string | ~[]byte](b T) (*big.Float, bool) {
	if len(b) == 0 || len(b) >= maxLongDoubleChars || IsSpace(b[0]) {
		return nil, false
	}
	s := string(b)
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	if low := strings.ToLower(s); low == "inf" || low == "infinity" {
		return new(big.Float).SetInf(neg), true
	}
	var exact *big.Rat
	var ok bool
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		exact, ok = parseHexFloat(s[2:])
	} else {
		exact, ok = parseDecFloat(s)
	}
	if !ok {
		return nil, false
	}
	if neg {
		exact.Neg(exact)
	}
	if exact.Sign() == 0 {
		f := new(big.Float).SetPrec(LongDoublePrec)
		if neg {
			f.Neg(f)
		}
		return f, true
	}
	f := roundLongDouble(exact)
	if f.IsInf() || f.Sign() == 0 {
		return nil, false // ERANGE: strtold returned HUGE_VALL or 0
	}
	return f, true
}

// parseDecFloat parses digits with an optional '.' and exponent, and
// returns the exact value; nil, false if s is not entirely such a number.
func parseDecFloat(s string) (*big.Rat, bool) {
	var mant strings.Builder
	i, digits, frac := 0, 0, 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		mant.WriteByte(s[i])
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && isDigit(s[i]); i++ {
			mant.WriteByte(s[i])
			digits++
			frac++
		}
	}
	if digits == 0 {
		return nil, false
	}
	exp, ok := parseExponent(s[i:], 'e')
	if !ok {
		return nil, false
	}
	m, _ := new(big.Int).SetString(mant.String(), 10)
	if m.Sign() == 0 {
		return new(big.Rat), true
	}
	// Decide far-out magnitudes without building 10**huge.
	sig := len(strings.TrimLeft(mant.String(), "0"))
	switch mag := int64(sig) + exp - int64(frac); {
	case mag > 4940: // above the largest extended value, ~1.19e4932
		return scaleRat(big.NewInt(1), 10, 4940), true
	case mag < -4960: // below half the smallest subnormal, ~3.6e-4951
		return scaleRat(big.NewInt(1), 10, -4970), true
	}
	return scaleRat(m, 10, exp-int64(frac)), true
}

// parseHexFloat parses the part of a hexadecimal float after "0x": hex
// digits with an optional '.', then an optional binary exponent 'p'.
func parseHexFloat(s string) (*big.Rat, bool) {
	var mant strings.Builder
	i, digits, frac := 0, 0, 0
	for ; i < len(s) && isHexDigit(s[i]); i++ {
		mant.WriteByte(s[i])
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && isHexDigit(s[i]); i++ {
			mant.WriteByte(s[i])
			digits++
			frac++
		}
	}
	if digits == 0 {
		return nil, false
	}
	exp, ok := parseExponent(s[i:], 'p')
	if !ok {
		return nil, false
	}
	m, _ := new(big.Int).SetString(mant.String(), 16)
	if m.Sign() == 0 {
		return new(big.Rat), true
	}
	exp -= 4 * int64(frac)
	mag := int64(m.BitLen()) + exp
	switch {
	case mag > ldMaxExp+64:
		exp = ldMaxExp + 64 - int64(m.BitLen())
	case mag < -ldDenormBits-64:
		exp = -ldDenormBits - 64 - int64(m.BitLen())
	}
	return scaleRat(m, 2, exp), true
}

// parseExponent parses an optional exponent introduced by marker (or its
// upper case), which must run to the end of s. Huge exponents saturate.
func parseExponent(s string, marker byte) (int64, bool) {
	if s == "" {
		return 0, true
	}
	if lower(s[0]) != marker {
		return 0, false
	}
	s = s[1:]
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	var e int64
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		if e < 1<<40 {
			e = e*10 + int64(s[i]-'0')
		}
	}
	if neg {
		e = -e
	}
	return e, true
}

// scaleRat returns m * base**exp exactly.
func scaleRat(m *big.Int, base, exp int64) *big.Rat {
	if exp >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Mul(m, new(big.Int).Exp(big.NewInt(base), big.NewInt(exp), nil)))
	}
	return new(big.Rat).SetFrac(m, new(big.Int).Exp(big.NewInt(base), big.NewInt(-exp), nil))
}

// roundLongDouble rounds an exact non-zero value to the extended format
// (round to nearest, ties to even, with gradual underflow), returning an
// infinity on overflow and a zero when it underflows completely.
func roundLongDouble(exact *big.Rat) *big.Float {
	f := new(big.Float).SetPrec(LongDoublePrec).SetRat(exact)
	exp := f.MantExp(nil)
	if exp > ldMaxExp {
		return new(big.Float).SetInf(f.Sign() < 0)
	}
	if exp >= ldMinExp {
		return f
	}
	// Subnormal: fewer mantissa bits are left. Round the exact value once
	// more at the reduced precision (rounding at 64 bits first could only
	// differ on an exact tie, which the exact value settles here).
	bits := int(exp) + ldDenormBits
	if bits <= 0 {
		// Below the smallest subnormal (2**-16445): round to it or to zero.
		half := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), ldDenormBits+1))
		abs := new(big.Rat).Abs(exact)
		if bits < 0 || abs.Cmp(half) <= 0 {
			z := new(big.Float).SetPrec(LongDoublePrec)
			if f.Sign() < 0 {
				z.Neg(z)
			}
			return z
		}
		tiny := new(big.Float).SetPrec(LongDoublePrec).SetMantExp(big.NewFloat(0.5), -ldDenormBits+1)
		if f.Sign() < 0 {
			tiny.Neg(tiny)
		}
		return tiny
	}
	g := new(big.Float).SetPrec(uint(bits)).SetRat(exact)
	return g.SetPrec(LongDoublePrec)
}

// AddLongDouble returns a+b rounded to the extended format, and false if
// the sum is an infinity or NaN (Redis's "increment would produce NaN or
// Infinity").
func AddLongDouble(a, b *big.Float) (*big.Float, bool) {
	if a.IsInf() || b.IsInf() {
		return nil, false
	}
	// A sum of subnormals is exact at 64 bits (both are multiples of the
	// smallest subnormal), so rounding at 64 bits is right everywhere.
	sum := new(big.Float).SetPrec(LongDoublePrec).Add(a, b)
	if sum.Sign() != 0 && sum.MantExp(nil) > ldMaxExp {
		return nil, false
	}
	return sum, true
}

// FormatLongDouble formats a finite value as Redis's ld2string in
// LD_STR_HUMAN mode: printf("%.17Lf"), trailing zeros and a trailing '.'
// removed, and "-0" written as "0".
func FormatLongDouble(f *big.Float) string {
	s := f.Text('f', 17)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func lower(c byte) byte { return c | 0x20 }

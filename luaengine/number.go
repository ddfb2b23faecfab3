package luaengine

import (
	"math"
	"strconv"
	"unsafe"

	"github.com/floodgate/floodgate/internal/number"
)

// Redis embeds Lua 5.1, whose tostring and concatenation render numbers with
// LUAI_NUMFFORMAT "%.14g", while redis.call formats number arguments with
// "%.17g". gopher-lua uses Go's shortest representation instead, so every path
// where a number becomes a string goes through these helpers.

// appendNumber appends n formatted like C's printf("%.<prec>g", n) as glibc
// prints it: "inf", "-inf", "nan" and "-nan" (the sign of a NaN is kept, and
// 0/0 on x86 yields a negative NaN).
func appendNumber(b []byte, n float64, prec int) []byte {
	switch {
	case math.IsInf(n, 1):
		return append(b, "inf"...)
	case math.IsInf(n, -1):
		return append(b, "-inf"...)
	case n != n:
		if math.Signbit(n) {
			return append(b, "-nan"...)
		}
		return append(b, "nan"...)
	}
	// Integers below 1e14 print identically under %.14g and %.17g; this is the
	// common case (counters, timestamps in seconds) and avoids float formatting.
	if n == math.Trunc(n) && n > -1e14 && n < 1e14 && (n != 0 || !math.Signbit(n)) {
		return strconv.AppendInt(b, int64(n), 10)
	}
	return strconv.AppendFloat(b, n, 'g', prec, 64)
}

// formatNumber is Lua 5.1's tostring for numbers ("%.14g").
func formatNumber(n float64) string {
	// Signbit: -0 is not the small integer 0; Lua prints it as "-0".
	if n == math.Trunc(n) && n >= 0 && !math.Signbit(n) && n < float64(len(smallIntStrings)) {
		return smallIntStrings[int(n)]
	}
	var buf [32]byte
	return string(appendNumber(buf[:0], n, 14))
}

// smallIntStrings avoids an allocation for the numbers scripts print most.
var smallIntStrings = func() [256]string {
	var s [256]string
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

// parseNumber converts s the way Lua 5.1's luaO_str2d does (number.ParseLua),
// with a fast path for plain decimal integers.
func parseNumber(s string) (float64, bool) {
	if n, ok := parseDecimalInt(s); ok {
		return n, true
	}
	return number.ParseLua(s)
}

// parseDecimalInt is parseNumber's fast path for what scripts convert most
// (limits, window lengths, counters): a plain unsigned decimal integer of at
// most 15 digits, which a float64 holds exactly, so the result is the one
// strtod gives. Anything else (signs, spaces, dots, exponents) is left to
// the full parser.
func parseDecimalInt(s string) (float64, bool) {
	if len(s) == 0 || len(s) > 15 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		n = n*10 + int64(c)
	}
	return float64(n), true
}

// toInteger converts a Lua number to a Redis integer reply as C's
// (long long) cast does on x86-64: truncation toward zero, and the
// "integer indefinite" value for NaN and out-of-range numbers.
func toInteger(n float64) int64 {
	if n != n || n >= 9223372036854775808.0 || n < -9223372036854775808.0 {
		return math.MinInt64
	}
	return int64(n)
}

// unsafeString hands a freshly built buffer to Lua without a second copy;
// the buffer is never touched again.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

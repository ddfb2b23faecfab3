package number

import (
	"math"
	"strconv"
	"strings"
)

// Strtod parses the longest prefix of s that glibc's strtod accepts: leading
// white space, a sign, then a decimal or hexadecimal ("0x1.8p3", "0x10")
// number, "inf", "infinity" or "nan" (optionally "nan(chars)") in any case.
// It returns the value and the length consumed (0 if there is no number).
// erange reports what strtod flags with ERANGE: an overflow to ±inf or an
// underflow to zero (the value is still returned, as strtod returns it).
// The sign of a NaN is kept ("-nan" is a negative NaN, as on glibc).
func Strtod[T ~string | ~[]byte](s T) (v float64, n int, erange bool) {
	i := 0
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	neg := start < i && s[start] == '-'
	if i < len(s) && (s[i]|0x20 == 'i' || s[i]|0x20 == 'n') {
		word := string(s[i:min(len(s), i+8)])
		switch {
		case hasPrefixFold(word, "infinity"):
			return signed(math.Inf(1), neg), i + 8, false
		case hasPrefixFold(word, "inf"):
			return signed(math.Inf(1), neg), i + 3, false
		case hasPrefixFold(word, "nan"):
			n := nanChars(s[i+3:])
			return signed(glibcNaN(string(s[i+3:i+3+n])), neg), i + 3 + n, false
		}
		return 0, 0, false
	}
	if i+1 < len(s) && s[i] == '0' && s[i+1]|0x20 == 'x' {
		mant, nonzero := mantissa(s[i+2:], true)
		if mant > 0 {
			end := i + 2 + mant
			exp := exponent(s[end:], 'p')
			text := "0x" + string(s[i+2:end]) + "p0"
			if exp > 0 {
				text = "0x" + string(s[i+2:end+exp])
			}
			f, err := strconv.ParseFloat(text, 64)
			return signed(f, neg), end + exp, err != nil || f == 0 && nonzero
		}
		// "0x" with no hex digit is the number 0 followed by junk.
	}
	mant, nonzero := mantissa(s[i:], false)
	if mant == 0 {
		return 0, 0, false
	}
	end := i + mant
	end += exponent(s[end:], 'e')
	f, err := strconv.ParseFloat(string(s[start:end]), 64)
	return f, end, err != nil || f == 0 && nonzero
}

// ParseDouble parses a double argument as Redis's getDoubleFromObject
// (string2d) does: all of b, no leading space, no NaN, and no overflow or
// underflow to zero. ZADD scores, INCRBYFLOAT's sibling HINCRBYFLOAT's
// checks, timeouts and the like read doubles this way.
func ParseDouble[T ~string | ~[]byte](b T) (float64, bool) {
	if len(b) == 0 || IsSpace(b[0]) {
		return 0, false
	}
	v, n, erange := Strtod(b)
	if n != len(b) || erange || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// ParseLua converts s as Lua 5.1's luaO_str2d does in Redis's Lua (tonumber,
// arithmetic on strings, string.format's numbers): strtod over a C string, so
// nothing after a NUL byte counts, then only white space may follow. Unlike
// Go's parsers it never reads "010" as octal and rejects "1_0" and "0b1";
// an overflow is ±inf, not an error. (luaO_str2d's strtoul fallback for a
// strtod that stops at 'x' never succeeds where glibc's strtod, which reads
// hexadecimal itself, failed.)
func ParseLua(s string) (float64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	v, n, _ := Strtod(s)
	if n == 0 {
		return 0, false
	}
	for ; n < len(s); n++ {
		if !IsSpace(s[n]) {
			return 0, false
		}
	}
	return v, true
}

// mantissa measures a mantissa (digits with at most one '.', at least one
// digit) and reports whether any digit is non-zero.
func mantissa[T ~string | ~[]byte](s T, hex bool) (n int, nonzero bool) {
	seen, dot := false, false
	for ; n < len(s); n++ {
		c := s[n]
		switch {
		case c >= '0' && c <= '9' || hex && (c|0x20 >= 'a' && c|0x20 <= 'f'):
			seen = true
			nonzero = nonzero || c != '0'
		case c == '.' && !dot:
			dot = true
		default:
			if !seen {
				return 0, false
			}
			return n, nonzero
		}
	}
	if !seen {
		return 0, false
	}
	return n, nonzero
}

// exponent measures an exponent part ("e-12", "p+3"), 0 if s has none.
func exponent[T ~string | ~[]byte](s T, marker byte) int {
	if len(s) < 2 || s[0]|0x20 != marker {
		return 0
	}
	i := 1
	if s[i] == '+' || s[i] == '-' {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return 0
	}
	return j
}

// nanChars measures the optional "(n-char-sequence)" after "nan": letters,
// digits and '_' between parentheses; 0 if s does not start with one.
func nanChars[T ~string | ~[]byte](s T) int {
	if len(s) == 0 || s[0] != '(' {
		return 0
	}
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == ')':
			return j + 1
		case c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z' || c == '_':
		default:
			return 0
		}
	}
	return 0
}

// glibcNaN is the NaN glibc's strtod returns for "nan" followed by chars
// (empty or "(n-char-sequence)"): the quiet NaN 0x7ff8000000000000, with
// the sequence's value (read as strtoull, base 0) in its low mantissa bits.
// Go's math.NaN() has a low bit set that Lua's bit library would show.
func glibcNaN(chars string) float64 {
	bits := uint64(0x7FF8000000000000)
	if len(chars) > 2 {
		if v, err := strconv.ParseUint(chars[1:len(chars)-1], 0, 64); err == nil {
			bits |= v & 0x7FFFFFFFFFFFF
		}
	}
	return math.Float64frombits(bits)
}

func signed(f float64, neg bool) float64 {
	if neg {
		return -f
	}
	return f
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

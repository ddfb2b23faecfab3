package server

import (
	"math"
	"strconv"
	"strings"
)

// strtod parses the longest prefix of s that C's strtod accepts: leading
// white space, a sign, then a decimal or hexadecimal ("0x1.8p3", "0x10")
// number, "inf", "infinity" or "nan" in any case. It returns the value and
// the length consumed (0 if there is no number). erange reports what strtod
// flags with ERANGE and Redis rejects: an overflow to ±inf or an underflow
// to zero. Redis parses every double argument with strtod, and Go's
// ParseFloat accepts a different language (no "0x10", underscores, ...).
func strtod(s []byte) (v float64, n int, erange bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	neg := start < i && s[start] == '-'
	rest := string(s[i:])
	switch {
	case hasPrefixFold(rest, "infinity"):
		return signed(math.Inf(1), neg), i + 8, false
	case hasPrefixFold(rest, "inf"):
		return signed(math.Inf(1), neg), i + 3, false
	case hasPrefixFold(rest, "nan"):
		n = i + 3
		if j := strings.IndexByte(rest[3:], ')'); len(rest) > 3 && rest[3] == '(' && j > 0 &&
			strings.IndexFunc(rest[4:3+j], func(r rune) bool { return !isAlnum(r) && r != '_' }) < 0 {
			n += j + 1
		}
		return math.NaN(), n, false
	case len(rest) > 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X'):
		mant, nonzero := digits(rest[2:], true)
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
	mant, nonzero := digits(rest, false)
	if mant == 0 {
		return 0, 0, false
	}
	end := i + mant
	end += exponent(s[end:], 'e')
	f, err := strconv.ParseFloat(string(s[start:end]), 64)
	return f, end, err != nil || f == 0 && nonzero
}

// digits measures a mantissa (digits with at most one '.', at least one
// digit) and reports whether any digit is non-zero.
func digits(s string, hex bool) (n int, nonzero bool) {
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
func exponent(s []byte, marker byte) int {
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

func signed(f float64, neg bool) float64 {
	if neg {
		return -f
	}
	return f
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func isAlnum(r rune) bool { return r >= '0' && r <= '9' || r|0x20 >= 'a' && r|0x20 <= 'z' }

// isCSpace is C's isspace in the C locale.
func isCSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// parseDouble parses a double argument as Redis's getDoubleFromObject does:
// the whole string, no leading space, no NaN, no overflow or underflow to 0.
func parseDouble(b []byte) (float64, bool) {
	if len(b) == 0 || isCSpace(b[0]) {
		return 0, false
	}
	v, n, erange := strtod(b)
	if n != len(b) || erange || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

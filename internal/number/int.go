package number

import "math"

// IsSpace is C's isspace in the "C" locale.
func IsSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// ParseInt parses b as Redis's string2ll does: an optional '-', no '+', no
// leading zeros, no spaces, at most 20 characters, within int64. Redis reads
// every integer argument, and the counts of the protocol, this way.
func ParseInt[T ~string | ~[]byte](b T) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	i := 0
	neg := false
	if b[0] == '-' {
		neg = true
		i = 1
		if len(b) == 1 {
			return 0, false
		}
	}
	if b[i] < '1' || b[i] > '9' {
		return 0, false
	}
	var u uint64
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if u > (math.MaxUint64-9)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// Strtoul parses the longest prefix of s that glibc's strtoul accepts in
// base (2 to 36): leading white space, a sign, "0x" in base 16 when a hex
// digit follows, then digits. It returns the value and the length consumed
// (0 if there is no digit). An overflow gives the largest uint64 and sets
// erange (C's ERANGE); a '-' negates modulo 2^64, as C does. Lua 5.1's
// tonumber(s, base) and Redis's SCAN cursors are read so.
func Strtoul[T ~string | ~[]byte](s T, base int) (v uint64, n int, erange bool) {
	i := 0
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if base == 16 && i+2 < len(s) && s[i] == '0' && s[i+1]|0x20 == 'x' && digitValue(s[i+2]) < 16 {
		i += 2
	}
	start := i
	overflow := false
	for ; i < len(s); i++ {
		d := digitValue(s[i])
		if d >= base {
			break
		}
		if v > (math.MaxUint64-uint64(d))/uint64(base) {
			overflow = true
		}
		v = v*uint64(base) + uint64(d)
	}
	if i == start {
		return 0, 0, false
	}
	switch {
	case overflow:
		return math.MaxUint64, i, true
	case neg:
		return -v, i, false
	}
	return v, i, false
}

// digitValue is c's value as a digit in bases up to 36, or 99.
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'z':
		return int(c|0x20-'a') + 10
	}
	return 99
}

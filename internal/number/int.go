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

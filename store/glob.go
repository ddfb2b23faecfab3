package store

// Match reports whether str matches the glob pattern exactly as Redis's
// stringmatchlen does (KEYS, SCAN MATCH, PSUBSCRIBE, CONFIG GET): '*', '?',
// '[abc]', '[^a]', '[a-z]' and '\' escapes, with nocase folding ASCII case.
//
// Redis's quirks are kept on purpose, because a pattern must select the same
// keys on both servers: an unterminated '[' class matches as if closed at
// the end of the pattern, "[a-]" is the range 'a'..']', a trailing '\' is a
// literal backslash, and range bounds compare bytes as C's signed char, so
// "[a-\xff]" is the range -1..'a'.
func Match(pattern, str []byte, nocase bool) bool {
	skipLonger := false
	return matchGlob(pattern, str, nocase, &skipLonger)
}

// at returns p[i], or 0 past the end: C reads the NUL after an sds pattern.
func at(p []byte, i int) byte {
	if i < len(p) {
		return p[i]
	}
	return 0
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// matchGlob is stringmatchlen_impl. skipLonger is Redis's fix for
// exponential backtracking: once the rest of the pattern after a '*' fails
// from every position, no earlier '*' can make it match either.
func matchGlob(p, s []byte, nocase bool, skipLonger *bool) bool {
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			for at(p, 1) == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for len(s) > 0 {
				if matchGlob(p[1:], s, nocase, skipLonger) {
					return true
				}
				if *skipLonger {
					return false
				}
				s = s[1:]
			}
			*skipLonger = true
			return false
		case '?':
			p = p[1:]
		case '[':
			var ok bool
			if p, ok = matchClass(p[1:], s[0], nocase); !ok {
				return false
			}
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if p[0] != s[0] && !(nocase && lower(p[0]) == lower(s[0])) {
				return false
			}
			p = p[1:]
		}
		s = s[1:]
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
		}
	}
	return len(p) == 0 && len(s) == 0
}

// matchClass matches c against the class that starts just after '[' in p
// and returns the pattern after the class's closing ']'. An unterminated
// class ends with the pattern.
func matchClass(p []byte, c byte, nocase bool) ([]byte, bool) {
	not := at(p, 0) == '^'
	if not {
		p = p[1:]
	}
	// Range bounds compare as C's signed char.
	signed := func(b byte) int { return int(int8(b)) }
	match := false
	for len(p) > 0 && p[0] != ']' {
		switch {
		case p[0] == '\\' && len(p) >= 2:
			p = p[1:]
			if p[0] == c {
				match = true
			}
		case len(p) >= 3 && p[1] == '-':
			start, end, ch := signed(p[0]), signed(p[2]), signed(c)
			if start > end {
				start, end = end, start
			}
			if nocase {
				start, end, ch = signed(lower(byte(start))), signed(lower(byte(end))), signed(lower(c))
			}
			p = p[2:]
			if start <= ch && ch <= end {
				match = true
			}
		default:
			if p[0] == c || (nocase && lower(p[0]) == lower(c)) {
				match = true
			}
		}
		p = p[1:]
	}
	if len(p) > 0 {
		p = p[1:] // the closing ']'
	}
	return p, match != not
}

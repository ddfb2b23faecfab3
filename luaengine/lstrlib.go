package luaengine

import (
	"strings"

	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// Lua 5.1's string library (lstrlib.c) as Redis's Lua runs it, written
// after its behaviour: C-string patterns (a pattern ends at its first
// NUL), luaL_check* coercions, the C casts of positions and counts, and
// the exact error texts. gopher-lua's own library differs in all of
// these, and panics with Go's text on some out-of-range positions.

// posrelat is lstrlib.c's posrelat: a negative position counts from the
// end; the result is never negative.
func posrelat(pos int64, length int) int64 {
	if pos < 0 {
		pos += int64(length) + 1
	}
	if pos < 0 {
		return 0
	}
	return pos
}

func strLen(L *lua.LState) int {
	L.Push(lua.LNumber(len(checkLString(L, 1))))
	return 1
}

func strSub(L *lua.LState) int {
	s := checkLString(L, 1)
	start := posrelat(checkInteger(L, 2), len(s))
	end := posrelat(optInteger64(L, 3, -1), len(s))
	if start < 1 {
		start = 1
	}
	if end > int64(len(s)) {
		end = int64(len(s))
	}
	if start <= end {
		L.Push(lua.LString(s[start-1 : end]))
	} else {
		L.Push(lua.LString(""))
	}
	return 1
}

func strReverse(L *lua.LState) int {
	s := checkLString(L, 1)
	b := make([]byte, len(s))
	for i := range b {
		b[i] = s[len(s)-1-i]
	}
	L.Push(lua.LString(unsafeString(b)))
	return 1
}

// strLower and strUpper map bytes through the C locale's tolower and
// toupper (Redis never sets LC_CTYPE): only ASCII letters change.
func strLower(L *lua.LState) int {
	s := checkLString(L, 1)
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	L.Push(lua.LString(unsafeString(b)))
	return 1
}

func strUpper(L *lua.LState) int {
	s := checkLString(L, 1)
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
	L.Push(lua.LString(unsafeString(b)))
	return 1
}

// strRep returns string.rep bounded by max bytes: Lua 5.1 would try to
// allocate, Redis's allocator would abort the server.
func strRep(max int) lua.LGFunction {
	return func(L *lua.LState) int {
		s := checkLString(L, 1)
		n := int(checkInt(L, 2))
		if n <= 0 || s == "" {
			L.Push(lua.LString(""))
			return 1
		}
		if len(s) > max/n {
			L.RaiseError("not enough memory")
		}
		L.Push(lua.LString(strings.Repeat(s, n)))
		return 1
	}
}

// strByte: positions are lua_Integers, the count a C int.
func strByte(L *lua.LState) int {
	s := checkLString(L, 1)
	posi := posrelat(optInteger64(L, 2, 1), len(s))
	pose := posrelat(optInteger64(L, 3, posi), len(s))
	if posi <= 0 {
		posi = 1
	}
	if pose > int64(len(s)) {
		pose = int64(len(s))
	}
	if posi > pose {
		return 0
	}
	n := int32(pose - posi + 1)
	if posi+int64(n) <= pose {
		L.RaiseError("string slice too long")
	}
	if L.GetTop()+int(n) > maxCStack {
		L.RaiseError("stack overflow (string slice too long)")
	}
	for i := posi; i <= pose; i++ {
		L.Push(lua.LNumber(s[i-1]))
	}
	return int(n)
}

func strChar(L *lua.LState) int {
	n := L.GetTop()
	b := make([]byte, n)
	for i := 1; i <= n; i++ {
		c := checkInt(L, i)
		if uint32(c) > 255 {
			L.ArgError(i, "invalid value")
		}
		b[i-1] = byte(c)
	}
	L.Push(lua.LString(unsafeString(b)))
	return 1
}

// Pattern matching.

const (
	maxCaptures   = 32 // LUA_MAXCAPTURES
	capUnfinished = -1
	capPosition   = -2
	patSpecials   = "^$*+?.([%-"
)

type matchState struct {
	L     *lua.LState
	src   string // the subject; src[len(src)] reads as C's NUL
	pat   string // the pattern up to its first NUL
	level int
	cap   [maxCaptures]struct{ init, len int }
}

func (ms *matchState) sAt(i int) byte {
	if i < len(ms.src) {
		return ms.src[i]
	}
	return 0
}

func (ms *matchState) pAt(i int) byte {
	if i < len(ms.pat) {
		return ms.pat[i]
	}
	return 0
}

func isAlpha(c byte) bool  { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isSpaceC(c byte) bool { return c == ' ' || '\t' <= c && c <= '\r' }
func isPunct(c byte) bool  { return c > ' ' && c < 0x7f && !isAlpha(c) && !isDigit(c) }
func isXDigit(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }

// matchClass is match_class over the C locale's ctype.
func matchClass(c, cl byte) bool {
	var res bool
	switch cl | 0x20 {
	case 'a':
		res = isAlpha(c)
	case 'c':
		res = c < ' ' || c == 0x7f
	case 'd':
		res = isDigit(c)
	case 'l':
		res = 'a' <= c && c <= 'z'
	case 'p':
		res = isPunct(c)
	case 's':
		res = isSpaceC(c)
	case 'u':
		res = 'A' <= c && c <= 'Z'
	case 'w':
		res = isAlpha(c) || isDigit(c)
	case 'x':
		res = isXDigit(c)
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if 'A' <= cl && cl <= 'Z' {
		return !res
	}
	return res
}

// classEnd returns the index just past the single-character class at p.
func (ms *matchState) classEnd(p int) int {
	c := ms.pAt(p)
	p++
	switch c {
	case '%':
		if ms.pAt(p) == 0 {
			ms.L.RaiseError("%s", "malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		if ms.pAt(p) == '^' {
			p++
		}
		for {
			if ms.pAt(p) == 0 {
				ms.L.RaiseError("malformed pattern (missing ']')")
			}
			c := ms.pAt(p)
			p++
			if c == '%' && ms.pAt(p) != 0 {
				p++
			}
			if ms.pAt(p) == ']' {
				return p + 1
			}
		}
	}
	return p
}

// matchBracketClass: p is the '[', ec the closing ']'.
func (ms *matchState) matchBracketClass(c byte, p, ec int) bool {
	sig := true
	if ms.pAt(p+1) == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case ms.pAt(p) == '%':
			p++
			if matchClass(c, ms.pAt(p)) {
				return sig
			}
		case ms.pAt(p+1) == '-' && p+2 < ec:
			p += 2
			if ms.pAt(p-2) <= c && c <= ms.pAt(p) {
				return sig
			}
		case ms.pAt(p) == c:
			return sig
		}
	}
	return !sig
}

func (ms *matchState) singleMatch(c byte, p, ep int) bool {
	switch ms.pAt(p) {
	case '.':
		return true
	case '%':
		return matchClass(c, ms.pAt(p+1))
	case '[':
		return ms.matchBracketClass(c, p, ep-1)
	}
	return ms.pAt(p) == c
}

func (ms *matchState) matchBalance(s, p int) int {
	if ms.pAt(p) == 0 || ms.pAt(p+1) == 0 {
		ms.L.RaiseError("unbalanced pattern")
	}
	if ms.sAt(s) != ms.pAt(p) {
		return -1
	}
	b, e := ms.pAt(p), ms.pAt(p+1)
	cont := 1
	for s++; s < len(ms.src); s++ {
		if ms.src[s] == e {
			if cont--; cont == 0 {
				return s + 1
			}
		} else if ms.src[s] == b {
			cont++
		}
	}
	return -1
}

func (ms *matchState) maxExpand(s, p, ep int) int {
	i := 0
	for s+i < len(ms.src) && ms.singleMatch(ms.src[s+i], p, ep) {
		i++
	}
	for ; i >= 0; i-- {
		if res := ms.match(s+i, ep+1); res >= 0 {
			return res
		}
	}
	return -1
}

func (ms *matchState) minExpand(s, p, ep int) int {
	for {
		if res := ms.match(s, ep+1); res >= 0 {
			return res
		}
		if s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep) {
			s++
		} else {
			return -1
		}
	}
}

func (ms *matchState) startCapture(s, p, what int) int {
	if ms.level >= maxCaptures {
		ms.L.RaiseError("too many captures")
	}
	ms.cap[ms.level].init = s
	ms.cap[ms.level].len = what
	ms.level++
	res := ms.match(s, p)
	if res < 0 {
		ms.level--
	}
	return res
}

func (ms *matchState) endCapture(s, p int) int {
	l := ms.captureToClose()
	ms.cap[l].len = s - ms.cap[l].init
	res := ms.match(s, p)
	if res < 0 {
		ms.cap[l].len = capUnfinished
	}
	return res
}

func (ms *matchState) captureToClose() int {
	for level := ms.level - 1; level >= 0; level-- {
		if ms.cap[level].len == capUnfinished {
			return level
		}
	}
	ms.L.RaiseError("invalid pattern capture")
	return 0
}

func (ms *matchState) checkCapture(l byte) int {
	i := int(l) - '1'
	if i < 0 || i >= ms.level || ms.cap[i].len == capUnfinished {
		ms.L.RaiseError("invalid capture index")
	}
	return i
}

func (ms *matchState) matchCapture(s int, l byte) int {
	i := ms.checkCapture(l)
	n := ms.cap[i].len
	// A position capture's length is negative: as C's size_t it never fits.
	if n >= 0 && len(ms.src)-s >= n && ms.src[ms.cap[i].init:ms.cap[i].init+n] == ms.src[s:s+n] {
		return s + n
	}
	return -1
}

// match returns the end of the match of pat[p:] at src[s:], or -1.
func (ms *matchState) match(s, p int) int {
	for {
		switch ms.pAt(p) {
		case '(':
			if ms.pAt(p+1) == ')' {
				return ms.startCapture(s, p+2, capPosition)
			}
			return ms.startCapture(s, p+1, capUnfinished)
		case ')':
			return ms.endCapture(s, p+1)
		case 0:
			return s
		case '$':
			if ms.pAt(p+1) == 0 {
				if s == len(ms.src) {
					return s
				}
				return -1
			}
		case '%':
			switch ms.pAt(p + 1) {
			case 'b':
				s = ms.matchBalance(s, p+2)
				if s < 0 {
					return -1
				}
				p += 4
				continue
			case 'f':
				p += 2
				if ms.pAt(p) != '[' {
					ms.L.RaiseError("%s", "missing '[' after '%f' in pattern")
				}
				ep := ms.classEnd(p)
				var prev byte
				if s > 0 {
					prev = ms.src[s-1]
				}
				if ms.matchBracketClass(prev, p, ep-1) || !ms.matchBracketClass(ms.sAt(s), p, ep-1) {
					return -1
				}
				p = ep
				continue
			default:
				if isDigit(ms.pAt(p + 1)) {
					s = ms.matchCapture(s, ms.pAt(p+1))
					if s < 0 {
						return -1
					}
					p += 2
					continue
				}
			}
		}
		ep := ms.classEnd(p)
		m := s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep)
		switch ms.pAt(ep) {
		case '?':
			if m {
				if res := ms.match(s+1, ep+1); res >= 0 {
					return res
				}
			}
			p = ep + 1
			continue
		case '*':
			return ms.maxExpand(s, p, ep)
		case '+':
			if !m {
				return -1
			}
			return ms.maxExpand(s+1, p, ep)
		case '-':
			return ms.minExpand(s, p, ep)
		}
		if !m {
			return -1
		}
		s++
		p = ep
	}
}

// capture returns capture i of a match of src[s:e].
func (ms *matchState) capture(i, s, e int) lua.LValue {
	if i >= ms.level {
		if i != 0 {
			ms.L.RaiseError("invalid capture index")
		}
		return lua.LString(ms.src[s:e])
	}
	c := ms.cap[i]
	switch c.len {
	case capUnfinished:
		ms.L.RaiseError("unfinished capture")
	case capPosition:
		return lua.LNumber(c.init + 1)
	}
	return lua.LString(ms.src[c.init : c.init+c.len])
}

// pushCaptures pushes the captures (or the whole match when there are
// none and s >= 0) and returns how many.
func (ms *matchState) pushCaptures(s, e int) int {
	n := ms.level
	if n == 0 && s >= 0 {
		n = 1
	}
	if ms.L.GetTop()+n > maxCStack {
		ms.L.RaiseError("stack overflow (too many captures)")
	}
	for i := 0; i < n; i++ {
		ms.L.Push(ms.capture(i, s, e))
	}
	return n
}

func strFind(L *lua.LState) int  { return strFindAux(L, true) }
func strMatch(L *lua.LState) int { return strFindAux(L, false) }

func strFindAux(L *lua.LState, find bool) int {
	s := checkLString(L, 1)
	p := checkLString(L, 2)
	init := posrelat(optInteger64(L, 3, 1), len(s)) - 1
	if init < 0 {
		init = 0
	} else if init > int64(len(s)) {
		init = int64(len(s))
	}
	cp := cString(p)
	if find && (toBoolean(L.Get(4)) || !strings.ContainsAny(cp, patSpecials)) {
		// A plain search compares the whole pattern, NULs included.
		if i := strings.Index(s[init:], p); i >= 0 {
			L.Push(lua.LNumber(int(init) + i + 1))
			L.Push(lua.LNumber(int(init) + i + len(p)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	ms := &matchState{L: L, src: s, pat: cp}
	pi := 0
	anchor := ms.pAt(0) == '^'
	if anchor {
		pi = 1
	}
	for s1 := int(init); ; s1++ {
		ms.level = 0
		if e := ms.match(s1, pi); e >= 0 {
			if find {
				L.Push(lua.LNumber(s1 + 1))
				L.Push(lua.LNumber(e))
				return ms.pushCaptures(-1, 0) + 2
			}
			return ms.pushCaptures(s1, e)
		}
		if s1 >= len(s) || anchor {
			break
		}
	}
	L.Push(lua.LNil)
	return 1
}

func strGmatch(L *lua.LState) int {
	s := checkLString(L, 1)
	p := cString(checkLString(L, 2))
	pos := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		ms := &matchState{L: L, src: s, pat: p}
		for src := pos; src <= len(s); src++ {
			ms.level = 0
			if e := ms.match(src, 0); e >= 0 {
				pos = e
				if e == src {
					pos++ // an empty match moves on by one
				}
				return ms.pushCaptures(src, e)
			}
		}
		return 0
	}))
	return 1
}

func strGsub(L *lua.LState) int {
	src := checkLString(L, 1)
	p := cString(checkLString(L, 2))
	repl := L.Get(3)
	switch repl.(type) {
	case lua.LNumber, lua.LString, *lua.LFunction, *lua.LTable:
	default:
		L.ArgError(3, "string/function/table expected")
	}
	maxS := optInt(L, 4, int32(min(len(src)+1, 1<<31-1)))
	ms := &matchState{L: L, src: src, pat: p}
	pi := 0
	anchor := ms.pAt(0) == '^'
	if anchor {
		pi = 1
	}
	var b []byte
	n := int32(0)
	s := 0
	for n < maxS {
		ms.level = 0
		e := ms.match(s, pi)
		if e >= 0 {
			n++
			b = ms.addValue(b, s, e, repl)
		}
		if e >= 0 && e > s {
			s = e
		} else if s < len(src) {
			b = append(b, src[s])
			s++
		} else {
			break
		}
		if anchor {
			break
		}
	}
	b = append(b, src[s:]...)
	L.Push(lua.LString(unsafeString(b)))
	L.Push(lua.LNumber(n))
	return 2
}

func (ms *matchState) addValue(b []byte, s, e int, repl lua.LValue) []byte {
	L := ms.L
	var v lua.LValue
	switch r := repl.(type) {
	case lua.LString, lua.LNumber:
		news := lua.LVAsString(r)
		if n, ok := r.(lua.LNumber); ok {
			news = formatNumber(float64(n))
		}
		for i := 0; i < len(news); i++ {
			if news[i] != '%' {
				b = append(b, news[i])
				continue
			}
			i++
			var c byte // past the end: the string's terminating NUL
			if i < len(news) {
				c = news[i]
			}
			switch {
			case !isDigit(c):
				b = append(b, c)
			case c == '0':
				b = append(b, ms.src[s:e]...)
			default:
				b = appendValue(L, b, ms.capture(int(c-'1'), s, e))
			}
		}
		return b
	case *lua.LTable:
		v = L.GetTable(r, ms.capture(0, s, e))
	case *lua.LFunction:
		top := L.GetTop()
		L.Push(r)
		n := ms.pushCaptures(s, e)
		L.Call(n, 1)
		v = L.Get(-1)
		L.SetTop(top)
	}
	if !toBoolean(v) {
		return append(b, ms.src[s:e]...)
	}
	switch v.(type) {
	case lua.LString, lua.LNumber:
		return appendValue(L, b, v)
	}
	L.RaiseError("invalid replacement value (a %s)", v.Type().String())
	return b
}

// appendValue is luaL_addvalue of a string or number ("%.14g").
func appendValue(L *lua.LState, b []byte, v lua.LValue) []byte {
	switch v := v.(type) {
	case lua.LString:
		return append(b, v...)
	case lua.LNumber:
		return appendNumber(b, float64(v), 14)
	}
	L.RaiseError("invalid replacement value (a %s)", v.Type().String())
	return b
}

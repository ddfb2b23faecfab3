package luaengine

import (
	"math"
	"strconv"
	"strings"

	"github.com/floodgate/floodgate/third_party/gopher-lua/ast"
	"github.com/floodgate/floodgate/third_party/gopher-lua/parse"

	"github.com/floodgate/floodgate/internal/number"
)

// Redis answers a script that does not compile with Lua 5.1's own message
// ("user_script:2: 'end' expected (to close 'if' at line 1) near '<eof>'"),
// and clients and tests match on it. gopher-lua's yacc parser knows neither
// the messages nor where Lua 5.1 gives up, so a script is first checked by
// syntaxChecker, a recursive-descent recognizer that follows Lua 5.1's llex.c
// and lparser.c step by step: the same tokens, the same lookahead, the same
// line counting and the same limits (200 syntax levels, 200 locals, 60
// upvalues), but no code generation. Only the code generator's own limits
// (registers, jump lengths, constants) are not checked.

// syntaxError is the message of a script that is not valid Lua 5.1, in
// Lua's form "user_script:<line>: <msg> near '<token>'".
type syntaxError string

func (e syntaxError) Error() string { return string(e) }

// parseScript parses a script the way Redis's Lua 5.1 accepts or rejects
// it: a script Lua 5.1 rejects fails with Lua 5.1's message, any other goes
// to gopher-lua's parser for the AST.
func parseScript(src string) ([]ast.Stmt, error) {
	return parseChunk(src, chunkName)
}

// parseChunk is parseScript for a chunk whose errors name it chunk (Lua's
// luaO_chunkid of its source name).
func parseChunk(src, chunk string) ([]ast.Stmt, error) {
	sc, err := checkSyntaxIn(src, chunk)
	if err != nil {
		return nil, err
	}
	if len(sc.hexNumerals) > 0 {
		src = decimalNumerals(src, sc.hexNumerals)
	}
	return parse.Parse(strings.NewReader(src), chunk)
}

// decimalNumerals rewrites hexadecimal numerals as decimal ones of the
// same value. Lua 5.1 reads a numeral with strtod, so 0x1p4 is 16 and
// 0xffffffffffffffff is 2^64; gopher-lua rejects the first and reads the
// second as an int64 that overflows. The decimal text is followed by a
// space, so that "0x10..x" does not become the numeral "16.".
func decimalNumerals(src string, spans [][2]int) string {
	var b strings.Builder
	b.Grow(len(src) + 16*len(spans))
	last := 0
	for _, sp := range spans {
		b.WriteString(src[last:sp[0]])
		b.WriteString(hexNumeralValue(src[sp[0]:sp[1]]))
		b.WriteByte(' ')
		last = sp[1]
	}
	b.WriteString(src[last:])
	return b.String()
}

// hexNumeralValue is the decimal text of a numeral isLuaNumeral accepted
// as hexadecimal, rounded as glibc's strtod rounds.
func hexNumeralValue(numeral string) string {
	f, _ := number.ParseLua(numeral)
	if math.IsInf(f, 1) {
		return "(1/0)"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// checkSyntax returns Lua 5.1's compile error for src, or nil and the
// checker's findings.
func checkSyntax(src string) (sc *syntaxChecker, err error) {
	return checkSyntaxIn(src, chunkName)
}

func checkSyntaxIn(src, chunk string) (sc *syntaxChecker, err error) {
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(syntaxError)
			if !ok {
				panic(r)
			}
			sc, err = nil, se
		}
	}()
	sc = &syntaxChecker{src: src, chunkID: chunk, line: 1, lastLine: 1, ahead: tkEOS}
	sc.nextChar()
	sc.openFunc(0)
	sc.fs.vararg = true // the main chunk is always vararg
	sc.next()
	sc.chunk()
	sc.check(tkEOS)
	return sc, nil
}

// Tokens below firstReserved are single bytes; the order of the rest is
// Lua 5.1's luaX_tokens.
const firstReserved = 257

const (
	tkAnd = firstReserved + iota
	tkBreak
	tkDo
	tkElse
	tkElseif
	tkEnd
	tkFalse
	tkFor
	tkFunction
	tkIf
	tkIn
	tkLocal
	tkNil
	tkNot
	tkOr
	tkRepeat
	tkReturn
	tkThen
	tkTrue
	tkUntil
	tkWhile
	tkConcat
	tkDots
	tkEq
	tkGe
	tkLe
	tkNe
	tkNumber
	tkName
	tkString
	tkEOS
)

var tokenNames = [...]string{
	"and", "break", "do", "else", "elseif",
	"end", "false", "for", "function", "if",
	"in", "local", "nil", "not", "or", "repeat",
	"return", "then", "true", "until", "while",
	"..", "...", "==", ">=", "<=", "~=",
	"<number>", "<name>", "<string>", "<eof>",
}

var reservedWords = func() map[string]int {
	m := make(map[string]int, tkWhile-tkAnd+1)
	for t := tkAnd; t <= tkWhile; t++ {
		m[tokenNames[t-firstReserved]] = t
	}
	return m
}()

// Lua 5.1's limits (luaconf.h, llimits.h).
const (
	maxSyntaxLevels = 200 // LUAI_MAXCCALLS
	maxLocals       = 200 // LUAI_MAXVARS
	maxUpvalues     = 60  // LUAI_MAXUPVALUES
)

const endOfInput = -1 // EOZ

// Expression kinds, in lparser.h's order: an assignment needs a kind from
// kindLocal to kindIndexed.
const (
	kindValue   = iota // constants, operators, parenthesized expressions
	kindLocal          // VLOCAL
	kindUpvalue        // VUPVAL
	kindGlobal         // VGLOBAL
	kindIndexed        // VINDEXED
	kindCall           // VCALL
)

type syntaxChecker struct {
	src     string
	chunkID string // the chunk's name in messages
	pos     int    // of the byte after current
	current int    // the byte being looked at, or endOfInput
	line    int    // ls->linenumber: where the lexer is, which error messages print
	// lastLine is the line of the last token consumed, for the ambiguous
	// call check.
	lastLine int
	// buf holds the text of the token lexed last (the lookahead if there is
	// one), which is what "near '...'" prints for names, strings and numbers.
	buf []byte

	tok      int
	tokName  string
	ahead    int // tkEOS when there is no lookahead
	aheadStr string

	levels int // nCcalls
	fs     *funcScope

	// hexNumerals are the spans of the hexadecimal numerals read, which
	// gopher-lua's lexer reads differently (see parseScript).
	hexNumerals [][2]int
}

// funcScope is the part of Lua 5.1's FuncState a recognizer needs: which
// locals are active (to tell locals, upvalues and globals apart), the
// upvalues, and the blocks (for break).
type funcScope struct {
	prev        *funcScope
	lineDefined int
	vararg      bool
	vars        []string // vars[:active] are active; the rest are declared, not yet active
	active      int
	upvalues    []upvalue
	block       *blockScope
}

type upvalue struct{ kind, index int }

type blockScope struct {
	prev      *blockScope
	active    int
	breakable bool
}

// ---- lexer (llex.c) ----

func (sc *syntaxChecker) nextChar() {
	if sc.pos < len(sc.src) {
		sc.current = int(sc.src[sc.pos])
		sc.pos++
	} else {
		sc.current = endOfInput
		sc.pos = len(sc.src) + 1
	}
}

func (sc *syntaxChecker) save(c int) { sc.buf = append(sc.buf, byte(c)) }

func (sc *syntaxChecker) saveNext() {
	sc.save(sc.current)
	sc.nextChar()
}

func (sc *syntaxChecker) atNewline() bool { return sc.current == '\n' || sc.current == '\r' }

func (sc *syntaxChecker) newline() {
	old := sc.current
	sc.nextChar()
	if sc.atNewline() && sc.current != old {
		sc.nextChar() // \n\r or \r\n
	}
	sc.line++
}

func (sc *syntaxChecker) lexError(msg string, token int) {
	text := sc.chunkID + ":" + strconv.Itoa(sc.line) + ": " + msg
	if token != 0 {
		text += " near '" + sc.tokenText(token) + "'"
	}
	panic(syntaxError(text))
}

func (sc *syntaxChecker) fail(msg string) { sc.lexError(msg, sc.tok) }

// tokenText is txtToken: Lua prints its lexer buffer as a C string, so a
// NUL ends it.
func (sc *syntaxChecker) tokenText(token int) string {
	switch token {
	case tkName, tkString, tkNumber:
		s := string(sc.buf)
		if i := strings.IndexByte(s, 0); i >= 0 {
			s = s[:i]
		}
		return s
	}
	return tokenString(token)
}

func tokenString(token int) string {
	if token < firstReserved {
		if lexCntrl(token) {
			return "char(" + strconv.Itoa(token) + ")"
		}
		return string([]byte{byte(token)})
	}
	return tokenNames[token-firstReserved]
}

// The C locale's ctype, which is what Redis's Lua runs with.
func lexDigit(c int) bool { return c >= '0' && c <= '9' }
func lexAlpha(c int) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func lexAlnum(c int) bool { return lexDigit(c) || lexAlpha(c) }
func lexSpace(c int) bool { return c == ' ' || c >= '\t' && c <= '\r' }
func lexCntrl(c int) bool { return c >= 0 && c < 32 || c == 127 }

// checkNext is llex.c's check_next; like strchr, it finds a NUL byte in
// any set.
func (sc *syntaxChecker) checkNext(set string) bool {
	if sc.current == endOfInput || sc.current != 0 && strings.IndexByte(set, byte(sc.current)) < 0 {
		return false
	}
	sc.saveNext()
	return true
}

func (sc *syntaxChecker) readNumeral() {
	for {
		sc.saveNext()
		if !lexDigit(sc.current) && sc.current != '.' {
			break
		}
	}
	if sc.checkNext("Ee") {
		sc.checkNext("+-")
	}
	for lexAlnum(sc.current) || sc.current == '_' {
		sc.saveNext()
	}
	if !isLuaNumeral(string(sc.buf)) {
		sc.lexError("malformed number", tkNumber)
	}
}

// isLuaNumeral reports whether luaO_str2d (glibc strtod, which also reads
// hexadecimal) accepts all of s, a numeral as read_numeral collects it:
// digits and dots, an optional exponent, then letters, digits and '_'.
func isLuaNumeral(s string) bool {
	_, ok := number.ParseLua(s)
	return ok
}

// skipSep reads [==[ or ]==]: the level, or -level-1 when the second
// bracket is missing.
func (sc *syntaxChecker) skipSep() int {
	count := 0
	s := sc.current
	sc.saveNext()
	for sc.current == '=' {
		sc.saveNext()
		count++
	}
	if sc.current == s {
		return count
	}
	return -count - 1
}

// readLongString reads a long string or, when isString is false, a long
// comment. Redis's Lua is built without LUA_COMPAT_LSTR: a nested "[["
// is plain text.
func (sc *syntaxChecker) readLongString(isString bool, sep int) {
	sc.saveNext()
	if sc.atNewline() {
		sc.newline()
	}
	for {
		switch sc.current {
		case endOfInput:
			if isString {
				sc.lexError("unfinished long string", tkEOS)
			}
			sc.lexError("unfinished long comment", tkEOS)
		case ']':
			if sc.skipSep() == sep {
				sc.saveNext()
				return
			}
		case '\n', '\r':
			sc.save('\n')
			sc.newline()
			if !isString {
				sc.buf = sc.buf[:0]
			}
		default:
			if isString {
				sc.saveNext()
			} else {
				sc.nextChar()
			}
		}
	}
}

func (sc *syntaxChecker) readString(quote int) {
	sc.saveNext()
	for sc.current != quote {
		switch sc.current {
		case endOfInput:
			sc.lexError("unfinished string", tkEOS)
		case '\n', '\r':
			sc.lexError("unfinished string", tkString)
		case '\\':
			sc.nextChar() // the backslash is not saved
			var c int
			switch sc.current {
			case 'a':
				c = '\a'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'v':
				c = '\v'
			case '\n', '\r':
				sc.save('\n')
				sc.newline()
				continue
			case endOfInput:
				continue // unfinished string, next round
			default:
				if !lexDigit(sc.current) {
					sc.saveNext() // \\, \", \' and any other byte
					continue
				}
				c = 0
				for i := 0; i < 3 && lexDigit(sc.current); i++ {
					c = 10*c + sc.current - '0'
					sc.nextChar()
				}
				if c > 255 {
					sc.lexError("escape sequence too large", tkString)
				}
				sc.save(c)
				continue
			}
			sc.save(c)
			sc.nextChar()
		default:
			sc.saveNext()
		}
	}
	sc.saveNext()
}

// lex is llex: the next token, and its text for a name.
func (sc *syntaxChecker) lex() (int, string) {
	sc.buf = sc.buf[:0]
	for {
		switch c := sc.current; c {
		case '\n', '\r':
			sc.newline()
		case '-':
			sc.nextChar()
			if sc.current != '-' {
				return '-', ""
			}
			sc.nextChar()
			if sc.current == '[' {
				sep := sc.skipSep()
				sc.buf = sc.buf[:0]
				if sep >= 0 {
					sc.readLongString(false, sep)
					sc.buf = sc.buf[:0]
					continue
				}
			}
			for !sc.atNewline() && sc.current != endOfInput {
				sc.nextChar()
			}
		case '[':
			sep := sc.skipSep()
			if sep >= 0 {
				sc.readLongString(true, sep)
				return tkString, ""
			}
			if sep == -1 {
				return '[', ""
			}
			sc.lexError("invalid long string delimiter", tkString)
		case '=', '<', '>', '~':
			sc.nextChar()
			if sc.current != '=' {
				return c, ""
			}
			sc.nextChar()
			switch c {
			case '=':
				return tkEq, ""
			case '<':
				return tkLe, ""
			case '>':
				return tkGe, ""
			}
			return tkNe, ""
		case '"', '\'':
			sc.readString(c)
			return tkString, ""
		case '.':
			sc.saveNext()
			if sc.checkNext(".") {
				if sc.checkNext(".") {
					return tkDots, ""
				}
				return tkConcat, ""
			}
			if !lexDigit(sc.current) {
				return '.', ""
			}
			sc.readNumeral()
			return tkNumber, ""
		case endOfInput:
			return tkEOS, ""
		default:
			switch {
			case lexSpace(c):
				sc.nextChar()
			case lexDigit(c):
				start := sc.pos - 1
				sc.readNumeral()
				if len(sc.buf) > 1 && (sc.buf[1] == 'x' || sc.buf[1] == 'X') {
					sc.hexNumerals = append(sc.hexNumerals, [2]int{start, sc.pos - 1})
				}
				return tkNumber, ""
			case lexAlpha(c) || c == '_':
				for lexAlnum(sc.current) || sc.current == '_' {
					sc.saveNext()
				}
				word := string(sc.buf)
				if t, ok := reservedWords[word]; ok {
					return t, ""
				}
				return tkName, word
			default:
				sc.nextChar()
				return c, ""
			}
		}
	}
}

func (sc *syntaxChecker) next() {
	sc.lastLine = sc.line
	if sc.ahead != tkEOS {
		sc.tok, sc.tokName = sc.ahead, sc.aheadStr
		sc.ahead = tkEOS
		return
	}
	sc.tok, sc.tokName = sc.lex()
}

func (sc *syntaxChecker) lookahead() { sc.ahead, sc.aheadStr = sc.lex() }

// ---- parser (lparser.c) ----

func (sc *syntaxChecker) errorExpected(token int) {
	sc.fail("'" + tokenString(token) + "' expected")
}

// errorLimit is errorlimit: fs is the function over the limit.
func (sc *syntaxChecker) errorLimit(fs *funcScope, limit int, what string) {
	var msg string
	if fs.lineDefined == 0 {
		msg = "main function has more than " + strconv.Itoa(limit) + " " + what
	} else {
		msg = "function at line " + strconv.Itoa(fs.lineDefined) + " has more than " + strconv.Itoa(limit) + " " + what
	}
	sc.lexError(msg, 0)
}

func (sc *syntaxChecker) testNext(token int) bool {
	if sc.tok == token {
		sc.next()
		return true
	}
	return false
}

func (sc *syntaxChecker) check(token int) {
	if sc.tok != token {
		sc.errorExpected(token)
	}
}

func (sc *syntaxChecker) checkNextToken(token int) {
	sc.check(token)
	sc.next()
}

func (sc *syntaxChecker) checkMatch(what, who, where int) {
	if sc.testNext(what) {
		return
	}
	if where == sc.line {
		sc.errorExpected(what)
	}
	sc.fail("'" + tokenString(what) + "' expected (to close '" + tokenString(who) + "' at line " + strconv.Itoa(where) + ")")
}

func (sc *syntaxChecker) checkName() string {
	sc.check(tkName)
	name := sc.tokName
	sc.next()
	return name
}

func (sc *syntaxChecker) enterLevel() {
	sc.levels++
	if sc.levels > maxSyntaxLevels {
		sc.lexError("chunk has too many syntax levels", 0)
	}
}

func (sc *syntaxChecker) leaveLevel() { sc.levels-- }

func (sc *syntaxChecker) openFunc(line int) {
	sc.fs = &funcScope{prev: sc.fs, lineDefined: line}
}

func (sc *syntaxChecker) closeFunc() { sc.fs = sc.fs.prev }

// newLocal declares the n-th local of a declaration, not yet active.
func (sc *syntaxChecker) newLocal(name string, n int) {
	fs := sc.fs
	if fs.active+n+1 > maxLocals {
		sc.errorLimit(fs, maxLocals, "local variables")
	}
	for len(fs.vars) <= fs.active+n {
		fs.vars = append(fs.vars, "")
	}
	fs.vars[fs.active+n] = name
}

func (sc *syntaxChecker) activate(n int) { sc.fs.active += n }

func (sc *syntaxChecker) enterBlock(breakable bool) {
	fs := sc.fs
	fs.block = &blockScope{prev: fs.block, active: fs.active, breakable: breakable}
}

func (sc *syntaxChecker) leaveBlock() {
	fs := sc.fs
	fs.active = fs.block.active
	fs.block = fs.block.prev
}

// resolve is singlevaraux: a local of fs, an upvalue, or a global.
func (sc *syntaxChecker) resolve(fs *funcScope, name string) (kind, index int) {
	if fs == nil {
		return kindGlobal, 0
	}
	for i := fs.active - 1; i >= 0; i-- {
		if fs.vars[i] == name {
			return kindLocal, i
		}
	}
	kind, index = sc.resolve(fs.prev, name)
	if kind == kindGlobal {
		return kindGlobal, 0
	}
	for i, up := range fs.upvalues {
		if up.kind == kind && up.index == index {
			return kindUpvalue, i
		}
	}
	if len(fs.upvalues)+1 > maxUpvalues {
		sc.errorLimit(fs, maxUpvalues, "upvalues")
	}
	fs.upvalues = append(fs.upvalues, upvalue{kind, index})
	return kindUpvalue, len(fs.upvalues) - 1
}

func (sc *syntaxChecker) singleVar() int {
	kind, _ := sc.resolve(sc.fs, sc.checkName())
	return kind
}

func blockFollows(token int) bool {
	switch token {
	case tkElse, tkElseif, tkEnd, tkUntil, tkEOS:
		return true
	}
	return false
}

func (sc *syntaxChecker) chunk() {
	sc.enterLevel()
	last := false
	for !last && !blockFollows(sc.tok) {
		last = sc.statement()
		sc.testNext(';')
	}
	sc.leaveLevel()
}

func (sc *syntaxChecker) block() {
	sc.enterBlock(false)
	sc.chunk()
	sc.leaveBlock()
}

// statement parses one statement and reports whether it must be the last
// of its block (return, break).
func (sc *syntaxChecker) statement() bool {
	line := sc.line
	switch sc.tok {
	case tkIf:
		sc.ifStat(line)
	case tkWhile:
		sc.next()
		sc.expr()
		sc.enterBlock(true)
		sc.checkNextToken(tkDo)
		sc.block()
		sc.checkMatch(tkEnd, tkWhile, line)
		sc.leaveBlock()
	case tkDo:
		sc.next()
		sc.block()
		sc.checkMatch(tkEnd, tkDo, line)
	case tkFor:
		sc.forStat(line)
	case tkRepeat:
		sc.enterBlock(true)
		sc.enterBlock(false)
		sc.next()
		sc.chunk()
		sc.checkMatch(tkUntil, tkRepeat, line)
		sc.expr()
		sc.leaveBlock()
		sc.leaveBlock()
	case tkFunction:
		sc.next()
		needSelf := sc.funcName()
		sc.body(needSelf, line)
	case tkLocal:
		sc.next()
		if sc.testNext(tkFunction) {
			sc.newLocal(sc.checkName(), 0)
			sc.activate(1)
			sc.body(false, sc.line)
		} else {
			sc.localStat()
		}
	case tkReturn:
		sc.next()
		if !blockFollows(sc.tok) && sc.tok != ';' {
			sc.exprList()
		}
		return true
	case tkBreak:
		sc.next()
		bl := sc.fs.block
		for bl != nil && !bl.breakable {
			bl = bl.prev
		}
		if bl == nil {
			sc.fail("no loop to break")
		}
		return true
	default:
		if kind := sc.primaryExpr(); kind != kindCall {
			sc.assignment(kind, 1)
		}
	}
	return false
}

func (sc *syntaxChecker) ifStat(line int) {
	sc.testThenBlock()
	for sc.tok == tkElseif {
		sc.testThenBlock()
	}
	if sc.tok == tkElse {
		sc.next()
		sc.block()
	}
	sc.checkMatch(tkEnd, tkIf, line)
}

func (sc *syntaxChecker) testThenBlock() {
	sc.next()
	sc.expr()
	sc.checkNextToken(tkThen)
	sc.block()
}

func (sc *syntaxChecker) forStat(line int) {
	sc.enterBlock(true)
	sc.next()
	name := sc.checkName()
	switch sc.tok {
	case '=':
		sc.newLocal("(for index)", 0)
		sc.newLocal("(for limit)", 1)
		sc.newLocal("(for step)", 2)
		sc.newLocal(name, 3)
		sc.checkNextToken('=')
		sc.expr()
		sc.checkNextToken(',')
		sc.expr()
		if sc.testNext(',') {
			sc.expr()
		}
		sc.forBody(1)
	case ',', tkIn:
		sc.newLocal("(for generator)", 0)
		sc.newLocal("(for state)", 1)
		sc.newLocal("(for control)", 2)
		sc.newLocal(name, 3)
		n := 4
		for sc.testNext(',') {
			sc.newLocal(sc.checkName(), n)
			n++
		}
		sc.checkNextToken(tkIn)
		sc.exprList()
		sc.forBody(n - 3)
	default:
		sc.fail("'=' or 'in' expected")
	}
	sc.checkMatch(tkEnd, tkFor, line)
	sc.leaveBlock()
}

func (sc *syntaxChecker) forBody(vars int) {
	sc.activate(3)
	sc.checkNextToken(tkDo)
	sc.enterBlock(false)
	sc.activate(vars)
	sc.block()
	sc.leaveBlock()
}

func (sc *syntaxChecker) localStat() {
	n := 0
	for {
		sc.newLocal(sc.checkName(), n)
		n++
		if !sc.testNext(',') {
			break
		}
	}
	if sc.testNext('=') {
		sc.exprList()
	}
	sc.activate(n)
}

func (sc *syntaxChecker) funcName() bool {
	sc.singleVar()
	for sc.tok == '.' {
		sc.field()
	}
	if sc.tok == ':' {
		sc.field()
		return true
	}
	return false
}

func (sc *syntaxChecker) body(needSelf bool, line int) {
	sc.openFunc(line)
	sc.checkNextToken('(')
	if needSelf {
		sc.newLocal("self", 0)
		sc.activate(1)
	}
	sc.parList()
	sc.checkNextToken(')')
	sc.chunk()
	sc.checkMatch(tkEnd, tkFunction, line)
	sc.closeFunc()
}

func (sc *syntaxChecker) parList() {
	n := 0
	if sc.tok != ')' {
		for {
			switch sc.tok {
			case tkName:
				sc.newLocal(sc.checkName(), n)
				n++
			case tkDots:
				sc.next()
				// LUA_COMPAT_VARARG: a vararg function has a local "arg".
				sc.newLocal("arg", n)
				n++
				sc.fs.vararg = true
			default:
				sc.fail("<name> or '...' expected")
			}
			if sc.fs.vararg || !sc.testNext(',') {
				break
			}
		}
	}
	sc.activate(n)
}

func (sc *syntaxChecker) assignment(kind, vars int) {
	if kind < kindLocal || kind > kindIndexed {
		sc.fail("syntax error")
	}
	if sc.testNext(',') {
		next := sc.primaryExpr()
		if limit := maxSyntaxLevels - sc.levels; vars > limit {
			sc.errorLimit(sc.fs, limit, "variables in assignment")
		}
		sc.assignment(next, vars+1)
		return
	}
	sc.checkNextToken('=')
	sc.exprList()
}

func (sc *syntaxChecker) exprList() {
	sc.expr()
	for sc.testNext(',') {
		sc.expr()
	}
}

func (sc *syntaxChecker) field() {
	sc.next() // . or :
	sc.checkName()
}

func (sc *syntaxChecker) index() {
	sc.next() // [
	sc.expr()
	sc.checkNextToken(']')
}

func (sc *syntaxChecker) prefixExpr() int {
	switch sc.tok {
	case '(':
		line := sc.line
		sc.next()
		sc.expr()
		sc.checkMatch(')', '(', line)
		return kindValue
	case tkName:
		return sc.singleVar()
	}
	sc.fail("unexpected symbol")
	return kindValue
}

func (sc *syntaxChecker) primaryExpr() int {
	kind := sc.prefixExpr()
	for {
		switch sc.tok {
		case '.':
			sc.field()
			kind = kindIndexed
		case '[':
			sc.index()
			kind = kindIndexed
		case ':':
			sc.next()
			sc.checkName()
			sc.funcArgs()
			kind = kindCall
		case '(', tkString, '{':
			sc.funcArgs()
			kind = kindCall
		default:
			return kind
		}
	}
}

func (sc *syntaxChecker) funcArgs() {
	line := sc.line
	switch sc.tok {
	case '(':
		if line != sc.lastLine {
			sc.fail("ambiguous syntax (function call x new statement)")
		}
		sc.next()
		if sc.tok != ')' {
			sc.exprList()
		}
		sc.checkMatch(')', '(', line)
	case '{':
		sc.constructor()
	case tkString:
		sc.next()
	default:
		sc.fail("function arguments expected")
	}
}

func (sc *syntaxChecker) constructor() {
	line := sc.line
	sc.checkNextToken('{')
	for sc.tok != '}' {
		switch sc.tok {
		case tkName:
			sc.lookahead()
			if sc.ahead != '=' {
				sc.expr()
			} else {
				sc.recField()
			}
		case '[':
			sc.recField()
		default:
			sc.expr()
		}
		if !sc.testNext(',') && !sc.testNext(';') {
			break
		}
	}
	sc.checkMatch('}', '{', line)
}

func (sc *syntaxChecker) recField() {
	if sc.tok == tkName {
		sc.checkName()
	} else {
		sc.index()
	}
	sc.checkNextToken('=')
	sc.expr()
}

func (sc *syntaxChecker) simpleExpr() {
	switch sc.tok {
	case tkNumber, tkString, tkNil, tkTrue, tkFalse:
	case tkDots:
		if !sc.fs.vararg {
			sc.fail("cannot use '...' outside a vararg function")
		}
	case '{':
		sc.constructor()
		return
	case tkFunction:
		sc.next()
		sc.body(false, sc.line)
		return
	default:
		sc.primaryExpr()
		return
	}
	sc.next()
}

// binaryPriority gives each binary operator's left and right priority
// (lparser.c's priority table); 0 is not a binary operator.
func binaryPriority(token int) (left, right int) {
	switch token {
	case '+', '-':
		return 6, 6
	case '*', '/', '%':
		return 7, 7
	case '^':
		return 10, 9 // right associative
	case tkConcat:
		return 5, 4 // right associative
	case tkEq, tkNe, '<', tkLe, '>', tkGe:
		return 3, 3
	case tkAnd:
		return 2, 2
	case tkOr:
		return 1, 1
	}
	return 0, 0
}

const unaryPriority = 8

func (sc *syntaxChecker) expr() { sc.subExpr(0) }

// subExpr reads operands and operators of a priority above limit, and
// returns the first operator it left.
func (sc *syntaxChecker) subExpr(limit int) int {
	sc.enterLevel()
	if sc.tok == tkNot || sc.tok == '-' || sc.tok == '#' {
		sc.next()
		sc.subExpr(unaryPriority)
	} else {
		sc.simpleExpr()
	}
	op := sc.tok
	for {
		left, right := binaryPriority(op)
		if left <= limit {
			break
		}
		sc.next()
		op = sc.subExpr(right)
	}
	sc.leaveLevel()
	return op
}

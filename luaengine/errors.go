package luaengine

import (
	"errors"
	"math"
	"strconv"
	"strings"

	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
	"github.com/floodgate/floodgate/third_party/gopher-lua/ast"
	"github.com/floodgate/floodgate/third_party/gopher-lua/parse"
)

// luaErrorHandler runs while the failed script's frames still exist and
// records the line of the innermost Lua frame, which Redis's
// __redis__err__handler reports as "on @user_script:<line>".
func (e *Engine) luaErrorHandler(L *lua.LState) int {
	e.errLine = 0
	// Before gopher-lua unwinds the stack: which variable failed.
	e.errName, e.errNamed = nameFailure(L, e.transparent)
	if msg, ok := L.Get(1).(lua.LString); ok {
		if arg, ok := argErrorMessage(L, string(msg), e.fnRole); ok {
			L.SetTop(0)
			L.Push(lua.LString(arg))
		}
	}
	for level := 0; level < 64; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		fn, err := L.GetInfo("Slf", dbg, lua.LNil)
		if err != nil {
			continue
		}
		if fn == e.errHandlerFn {
			// It failed where Redis's Lua version would have.
			e.errLine, e.errSource = errHandlerLine, "@"+errHandlerChunk
			break
		}
		if dbg.What != "G" && dbg.CurrentLine > 0 {
			e.errLine = dbg.CurrentLine
			e.errSource = dbg.Source
			break
		}
	}
	return 1
}

// writeError renders an error that left the script as Redis 7.0 does:
// "<msg> script: <sha>, on @user_script:<line>."
func (e *Engine) writeError(s *Script, err error, reason interruptReason, w ReplyWriter, stats ErrorStatsCaller) {
	var msg string
	switch reason {
	case reasonKilled:
		msg = "ERR " + string(errKilledCtx)
	case reasonMemory:
		msg = "ERR " + string(errMemoryCtx)
	default:
		msg = e.errorMessage(err)
	}
	if e.errLine == 0 {
		// The error handler could not run (the call stack was full: "stack
		// overflow"); Redis's did, and named the line the message names.
		e.errLine = positionLine(msg)
	}
	if e.errLine > 0 {
		msg += " script: " + s.SHA + ", on " + cString(e.errSourceName()) + ":" + itoa(e.errLine) + "."
	}
	if stats != nil && reason != reasonKilled && reason != reasonMemory && countedError(raisedObject(err)) {
		stats.SkipErrorStats()
	}
	w.Error(errorReplyText(msg))
}

// raisedObject is the Lua value an error carries.
func raisedObject(err error) lua.LValue {
	var aerr *lua.ApiError
	if errors.As(err, &aerr) {
		return aerr.Object
	}
	return lua.LString(err.Error())
}

// errorMessage is the text of an error that left a script, as
// luaExtractErrorInformation reads it: an error table's err, or "ERR " and
// the string (with Lua 5.1's wording) or number raised.
func (e *Engine) errorMessage(err error) string {
	var msg string
	switch v := raisedObject(err).(type) {
	case *lua.LTable:
		// luaExtractErrorInformation takes any err lua_isstring
		// accepts: a string or a number.
		switch s := v.RawGetString("err").(type) {
		case lua.LString:
			msg = string(s)
		case lua.LNumber:
			msg = formatNumber(float64(s))
		default:
			msg = "ERR unknown error"
		}
	case lua.LNumber:
		msg = "ERR " + formatNumber(float64(v))
	case lua.LString:
		msg = "ERR " + e.runtimeMessage(string(v))
	default:
		msg = "ERR " + v.String()
	}
	// Redis formats the message as a C string, so it ends at a NUL byte
	// even with the position after it.
	return cString(msg)
}

// fnRole is the role of one of the engine's functions in argument errors.
func (e *Engine) fnRole(fn *lua.LFunction) fnRole { return e.fnRoles[fn] }

// isHiddenFrame reports whether fn runs in a frame Lua 5.1 would not have:
// pcall's guard (protectedCall).
func (e *Engine) isHiddenFrame(fn *lua.LFunction) bool { return fn == e.guardFn }

// errSourceName is the source (Lua's ar.source) of the function that
// failed: "@user_script" for the script, or the name a loadstring'd chunk
// was given, its text by default.
func (e *Engine) errSourceName() string { return e.sourceName(e.errSource) }

// sourceName is Lua's ar.source for a function gopher-lua says comes from
// the chunk named chunk.
func (e *Engine) sourceName(chunk string) string {
	if chunk == chunkName || chunk == "" {
		return "@" + chunkName
	}
	if chunk == functionChunkName {
		return "@" + functionChunkName
	}
	if name, ok := e.chunkNames[chunk]; ok {
		return name
	}
	return chunk
}

// luaErrHandler is Redis 7.0's __redis__err__handler, a global scripts
// can see and call: it makes err an error table ({err = "ERR " ..
// tostring(err)} unless it is one) and records where its caller is, or
// its caller's caller if that is a C function (pcall).
func (e *Engine) luaErrHandler(L *lua.LState) int {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		msg := tostringValue(L, L.Get(1))
		t = L.NewTable()
		t.RawSetString("err", lua.LString("ERR "+msg))
	}
	if t.ReadOnly() {
		L.Error(lua.LString(errHandlerChunk+":"+itoa(errHandlerLine)+": "+lua.ErrReadOnlyTable), 0)
	}
	if calledByTailCall(L) {
		// Lua 5.1 describes a frame a tail call replaced so.
		L.SetField(t, "source", lua.LString("=(tail call)"))
		L.SetField(t, "line", lua.LNumber(-1))
		L.Push(t)
		return 1
	}
	if source, line, ok := callerPosition(L, e.isHiddenFrame); ok {
		L.SetField(t, "source", lua.LString(e.sourceName(source)))
		L.SetField(t, "line", lua.LNumber(line))
	}
	L.Push(t)
	return 1
}

// Redis defines __redis__err__handler in a chunk of its own; its line 10
// stores into the error table.
const (
	errHandlerChunk = "err_handler_def"
	errHandlerLine  = 10
)

// gopherMessages maps gopher-lua's runtime error texts to Lua 5.1's. Lua
// 5.1 names the variable when it can ("attempt to index local 't' (a nil
// value)"); gopher-lua does not track names, so the unnamed form is used.
var gopherMessages = []struct{ prefix, lua string }{
	{"attempt to index a non-table object(nil)", "attempt to index a nil value"},
	{"attempt to index a non-table object(boolean)", "attempt to index a boolean value"},
	{"attempt to index a non-table object(number)", "attempt to index a number value"},
	{"attempt to index a non-table object(function)", "attempt to index a function value"},
	{"cannot perform add operation between", "attempt to perform arithmetic on"},
	{"cannot perform sub operation between", "attempt to perform arithmetic on"},
	{"cannot perform mul operation between", "attempt to perform arithmetic on"},
	{"cannot perform div operation between", "attempt to perform arithmetic on"},
	{"cannot perform mod operation between", "attempt to perform arithmetic on"},
	{"cannot perform pow operation between", "attempt to perform arithmetic on"},
	{"cannot perform unm operation between", "attempt to perform arithmetic on"},
	{"attempt to get length of", "attempt to get length of"},
}

// runtimeMessage is luaRuntimeMessage with the failing variable named, as
// Lua 5.1 does, when the error handler could tell which it was.
func (e *Engine) runtimeMessage(msg string) string {
	return runtimeMessage(msg, e.errName, e.errNamed)
}

func runtimeMessage(msg string, name runtimeName, named bool) string {
	if named {
		if msg, ok := namedRuntimeMessage(msg, name); ok {
			return msg
		}
	}
	return luaRuntimeMessage(msg)
}

// namedRuntimeMessage renders luaG_typeerror's "attempt to <op> <kind>
// '<name>' (a <type> value)", or its unnamed form, for the VM errors whose
// operand the error handler located.
func namedRuntimeMessage(msg string, n runtimeName) (string, bool) {
	pos, rest := splitPosition(msg)
	var op, typ string
	const indexPrefix = "attempt to index a non-table object("
	switch {
	case strings.HasPrefix(rest, indexPrefix):
		op = "index"
		if end := strings.IndexByte(rest[len(indexPrefix):], ')'); end >= 0 {
			typ = rest[len(indexPrefix) : len(indexPrefix)+end]
		}
	case rest == "attempt to call a non-function object":
		op, typ = "call", n.typ
	case strings.HasPrefix(rest, "cannot perform ") && strings.Contains(rest, " operation between "):
		op, typ = "perform arithmetic on", n.typ
	case rest == "__len undefined":
		op, typ = "get length of", n.typ
	case rest == "__unm undefined":
		op, typ = "perform arithmetic on", n.typ
	case strings.HasPrefix(rest, "attempt to concatenate a "):
		op, typ = "concatenate", n.typ
	case strings.HasPrefix(rest, "attempt to perform arithmetic on a "):
		op, typ = "perform arithmetic on", n.typ // the VM's own text (luaG_aritherror)
	}
	if op == "" || typ == "" {
		return "", false
	}
	if n.kind == "" {
		return pos + "attempt to " + op + " a " + typ + " value", true
	}
	return pos + "attempt to " + op + " " + n.kind + " '" + n.name + "' (a " + typ + " value)", true
}

func luaRuntimeMessage(msg string) string {
	pos, rest := splitPosition(msg)
	if msg, ok := compareMessage(rest); ok {
		return pos + msg
	}
	for _, m := range gopherMessages {
		if !strings.HasPrefix(rest, m.prefix) {
			continue
		}
		if strings.HasPrefix(m.lua, "attempt to perform arithmetic on") {
			// "cannot perform add operation between nil and number": Lua
			// blames the operand that is not a number.
			words := strings.Fields(rest[len(m.prefix):])
			typ := "nil"
			if len(words) >= 3 {
				typ = words[0]
				if typ == "number" || typ == "string" {
					typ = words[2]
				}
			}
			return pos + "attempt to perform arithmetic on a " + typ + " value"
		}
		return pos + m.lua + rest[len(m.prefix):]
	}
	return msg
}

// splitPosition splits "<chunk>:<line>: <message>" after the position.
// A loadstring'd chunk's name can hold anything, but [string "..."] ends
// at its '"]'.
func splitPosition(msg string) (pos, rest string) {
	from := 0
	if strings.HasPrefix(msg, `[string "`) {
		if i := strings.Index(msg, `"]:`); i >= 0 {
			from = i + 2
		}
	}
	for i := from; i < len(msg); i++ {
		if msg[i] != ':' {
			continue
		}
		j := i + 1
		for j < len(msg) && msg[j] >= '0' && msg[j] <= '9' {
			j++
		}
		if j > i+1 && strings.HasPrefix(msg[j:], ": ") {
			return msg[:j+2], msg[j+2:]
		}
	}
	return "", msg
}

// chunkID is Lua 5.1's luaO_chunkid: how an error position names a chunk
// loaded with the given source name, in at most size bytes (LUA_IDSIZE,
// 60, at run time; MAXSRC, 80, in compile errors).
func chunkID(source string, size int) string {
	source = cString(source)
	switch {
	case strings.HasPrefix(source, "="):
		if s := source[1:]; len(s) > size-1 {
			return s[:size-1]
		}
		return source[1:]
	case strings.HasPrefix(source, "@"):
		s, max := source[1:], size-len(" '...' ")-1
		if len(s) > max {
			return "..." + s[len(s)-max:]
		}
		return s
	}
	n, max := len(source), size-len(` [string "..."] `)-1
	if i := strings.IndexAny(source, "\r\n"); i >= 0 {
		n = i
	}
	if n > max {
		n = max
	}
	if n < len(source) {
		return `[string "` + source[:n] + `..."]`
	}
	return `[string "` + source + `"]`
}

const (
	runtimeIDSize = 60 // LUA_IDSIZE
	compileIDSize = 80 // llex.c's MAXSRC
)

// crlfToSpaces is addReplyErrorFormat's newline mapping, byte by byte:
// the token a message quotes can hold any byte, and strings.Map would turn
// invalid UTF-8 into U+FFFD.
func crlfToSpaces(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c == '\r' || c == '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// compareMessage is luaG_ordererror's text for gopher-lua's "attempt to
// compare <t1> with <t2>": Lua 5.1 says "two <t1> values" when the third
// letters of the type names match (so a string and a thread are "two string
// values" too).
func compareMessage(msg string) (string, bool) {
	const prefix = "attempt to compare "
	if !strings.HasPrefix(msg, prefix) {
		return "", false
	}
	t1, t2, ok := strings.Cut(msg[len(prefix):], " with ")
	if !ok || len(t1) < 3 || len(t2) < 3 || strings.Contains(t2, " ") {
		return "", false
	}
	if t1[2] == t2[2] {
		return prefix + "two " + t1 + " values", true
	}
	return msg, true
}

// compileErrorText renders a compile error as Lua 5.1 words it. A
// syntaxError from parseScript already is Lua 5.1's text; Redis's
// addReplyErrorFormat turns the newlines a quoted long string can bring
// into spaces. gopher-lua's own parser errors (a script Lua 5.1 accepts and
// gopher-lua does not) are mapped for the common cases.
func compileErrorText(err error) string {
	return crlfToSpaces(strings.TrimRight(compileMessage(err, chunkName), "\r\n"))
}

// compileMessage is Lua 5.1's message for a compile error in the chunk
// named chunk.
func compileMessage(err error, chunk string) string {
	var serr syntaxError
	if errors.As(err, &serr) {
		return string(serr)
	}
	var perr *parse.Error
	if !errors.As(err, &perr) {
		return chunk + ": " + strings.TrimSpace(err.Error())
	}
	line := perr.Pos.Line
	tok := perr.Token
	if line == parse.EOF || tok == "EOF" || tok == "" {
		tok = "<eof>"
	}
	if line == parse.EOF {
		line = perr.Pos.Line
		if line <= 0 {
			line = 1
		}
	}
	var msg string
	switch perr.Message {
	case "unterminated string":
		msg = "unfinished string"
		tok = "<eof>"
	case "unterminated multiline string":
		msg = "unfinished long string"
		tok = "<eof>"
	case "illegal hexadecimal number":
		msg = "malformed number"
	default:
		msg = "unexpected symbol"
	}
	return chunk + ":" + itoa(line) + ": " + msg + " near '" + tok + "'"
}

// wrapChunk prepares a parsed chunk for gopher-lua's compiler where Lua
// 5.1's parser and code generator would compile it differently (the VM
// itself is patched in third_party/gopher-lua, README.floodgate.md): zero
// constants shared as lcode.c shares them (shareZeroConstants), numerals
// folded as lcode.c folds them, the one-value operands and dropped
// constant tests of the rewriter below. The body is wrapped as
//
//	return function(...) <body> end
//
// so that it is vararg only when it uses "...": gopher-lua builds Lua 5.0's
// "arg" table on every call of a vararg function, which costs a table and
// a map per EVAL, and compiles every chunk as vararg.
func wrapChunk(chunk []ast.Stmt) []ast.Stmt {
	shareZeroConstants(chunk)
	var r rewriter
	r.rewriteStmts(chunk)
	body := &ast.FunctionExpr{ParList: &ast.ParList{HasVargs: r.topVarargs}, Stmts: chunk}
	last := 1
	if n := len(chunk); n > 0 {
		last = chunk[n-1].LastLine()
	}
	body.SetLine(1)
	body.SetLastLine(last)
	ret := &ast.ReturnStmt{Exprs: []ast.Expr{body}}
	ret.SetLine(1)
	return []ast.Stmt{ret}
}

type rewriter struct {
	depth      int  // function nesting below the script body
	topVarargs bool // the body itself uses "..."
}

func (r *rewriter) rewriteStmts(stmts []ast.Stmt) {
	for _, st := range stmts {
		r.rewriteStmt(st)
	}
}

func (r *rewriter) rewriteStmt(st ast.Stmt) {
	switch s := st.(type) {
	case *ast.AssignStmt:
		r.rewriteExprs(s.Lhs)
		r.rewriteExprs(s.Rhs)
	case *ast.LocalAssignStmt:
		r.rewriteExprs(s.Exprs)
	case *ast.FuncCallStmt:
		s.Expr = r.rewriteExpr(s.Expr)
	case *ast.DoBlockStmt:
		r.rewriteStmts(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = r.rewriteExpr(s.Condition)
		r.rewriteStmts(s.Stmts)
	case *ast.RepeatStmt:
		s.Condition = r.rewriteExpr(s.Condition)
		r.rewriteStmts(s.Stmts)
	case *ast.IfStmt:
		s.Condition = r.rewriteExpr(s.Condition)
		r.rewriteStmts(s.Then)
		r.rewriteStmts(s.Else)
	case *ast.NumberForStmt:
		s.Init = r.rewriteExpr(s.Init)
		s.Limit = r.rewriteExpr(s.Limit)
		if s.Step != nil {
			s.Step = r.rewriteExpr(s.Step)
		}
		r.rewriteStmts(s.Stmts)
	case *ast.GenericForStmt:
		r.rewriteExprs(s.Exprs)
		r.rewriteStmts(s.Stmts)
	case *ast.FuncDefStmt:
		r.depth++
		r.rewriteStmts(s.Func.Stmts)
		r.depth--
		if s.Name != nil && s.Name.Func != nil {
			s.Name.Func = r.rewriteExpr(s.Name.Func)
		}
	case *ast.ReturnStmt:
		r.rewriteExprs(s.Exprs)
	}
}

func (r *rewriter) rewriteExprs(exprs []ast.Expr) {
	for i, ex := range exprs {
		exprs[i] = r.rewriteExpr(ex)
	}
}

func (r *rewriter) rewriteExpr(ex ast.Expr) ast.Expr {
	switch x := ex.(type) {
	case *ast.StringConcatOpExpr:
		x.Lhs = r.rewriteExpr(x.Lhs)
		x.Rhs = r.rewriteExpr(x.Rhs)
	case *ast.NumberExpr:
		// Lua 5.1 reads a numeral with strtod: 1e309 is inf, where
		// gopher-lua's compiler makes a NaN of the ParseFloat range error.
		if f, ok := parseNumber(x.Value); ok && math.IsInf(f, 1) {
			x.Value = "inf"
		}
	case *ast.ArithmeticOpExpr:
		if v, ok := numeral51(x); ok {
			// Folded as lcode.c folds it, % and ^ included: no operand of
			// it becomes a constant of the function (gopher-lua would keep
			// the -0 of -0 % 2^53 in its table, which a later 0 reads).
			return foldedNumeral(v, x)
		}
		x.Lhs = r.rewriteExpr(x.Lhs)
		x.Rhs = r.rewriteExpr(x.Rhs)
	case *ast.AttrGetExpr:
		x.Object = r.rewriteExpr(x.Object)
		x.Key = r.rewriteExpr(x.Key)
	case *ast.TableExpr:
		for i, f := range x.Fields {
			if f.Key != nil {
				f.Key = r.rewriteExpr(f.Key)
			}
			f.Value = r.rewriteExpr(f.Value)
			// Only the table's last field passes on all of a call's
			// values, and only a positional one; gopher-lua expands the
			// last positional one even when keyed fields follow
			// ({f(), b = 1}), and a keyed last one ({1, b = f()}) too.
			if i < len(x.Fields)-1 || f.Key != nil {
				switch v := f.Value.(type) {
				case *ast.FuncCallExpr:
					v.AdjustRet = true
				case *ast.Comma3Expr:
					v.AdjustRet = true
				}
			}
		}
	case *ast.FuncCallExpr:
		if x.Func != nil {
			x.Func = r.rewriteExpr(x.Func)
		}
		if x.Receiver != nil {
			x.Receiver = r.rewriteExpr(x.Receiver)
		}
		r.rewriteExprs(x.Args)
	case *ast.LogicalOpExpr:
		x.Lhs = r.rewriteExpr(x.Lhs)
		x.Rhs = r.rewriteExpr(x.Rhs)
		// Lua 5.1's code generator drops a left operand that decides
		// nothing (luaK_goiftrue of a constant, luaK_goiffalse of nil or
		// false): 'x' .. (false or ARGV[1]) names "field '?'", which
		// gopher-lua's test and jump would hide.
		if x.Operator == "and" && alwaysTrue(x.Lhs) || x.Operator == "or" && alwaysFalse(x.Lhs) {
			switch rhs := x.Rhs.(type) {
			case *ast.FuncCallExpr:
				rhs.AdjustRet = true
			case *ast.Comma3Expr:
				rhs.AdjustRet = true
			}
			return x.Rhs
		}
	case *ast.RelationalOpExpr:
		x.Lhs = r.rewriteExpr(x.Lhs)
		x.Rhs = r.rewriteExpr(x.Rhs)
	case *ast.UnaryMinusOpExpr:
		x.Expr = r.rewriteExpr(x.Expr)
	case *ast.UnaryNotOpExpr:
		x.Expr = r.rewriteExpr(x.Expr)
	case *ast.UnaryLenOpExpr:
		x.Expr = r.rewriteExpr(x.Expr)
	case *ast.FunctionExpr:
		r.depth++
		r.rewriteStmts(x.Stmts)
		r.depth--
	case *ast.Comma3Expr:
		if r.depth == 0 {
			r.topVarargs = true
		}
	}
	return ex
}

// foldedNumeral is the numeral v, at ex's lines, as gopher-lua's
// compiler reads it back exactly (a -0 through its own unary minus).
func foldedNumeral(v float64, ex ast.Expr) ast.Expr {
	n := &ast.NumberExpr{Value: strconv.FormatFloat(math.Abs(v), 'g', -1, 64)}
	n.SetLine(ex.Line())
	n.SetLastLine(ex.LastLine())
	if !math.Signbit(v) {
		return n
	}
	neg := &ast.UnaryMinusOpExpr{Expr: n}
	neg.SetLine(ex.Line())
	neg.SetLastLine(ex.LastLine())
	return neg
}

// alwaysTrue is a constant luaK_goiftrue emits no test for.
func alwaysTrue(ex ast.Expr) bool {
	switch x := ex.(type) {
	case *ast.TrueExpr, *ast.NumberExpr, *ast.StringExpr:
		return true
	case *ast.UnaryMinusOpExpr:
		_, ok := x.Expr.(*ast.NumberExpr)
		return ok
	}
	return false
}

// alwaysFalse is a constant luaK_goiffalse emits no test for.
func alwaysFalse(ex ast.Expr) bool {
	switch ex.(type) {
	case *ast.FalseExpr, *ast.NilExpr:
		return true
	}
	return false
}

// positionLine returns N of a message "ERR user_script:N: ...", or 0.
func positionLine(msg string) int {
	rest, ok := strings.CutPrefix(msg, "ERR "+chunkName+":")
	if !ok {
		return 0
	}
	n := 0
	for i := 0; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
		n = n*10 + int(rest[i]-'0')
		if i+1 < len(rest) && rest[i+1] == ':' {
			return n
		}
	}
	return 0
}

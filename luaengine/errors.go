package luaengine

import (
	"errors"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// luaErrorHandler runs while the failed script's frames still exist and
// records the line of the innermost Lua frame, which Redis's
// __redis__err__handler reports as "on @user_script:<line>".
func (e *Engine) luaErrorHandler(L *lua.LState) int {
	e.errLine = 0
	for level := 0; level < 64; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
			continue
		}
		if dbg.What != "G" && dbg.CurrentLine > 0 {
			e.errLine = dbg.CurrentLine
			break
		}
	}
	return 1
}

// writeError renders an error that left the script as Redis 7.0 does:
// "<msg> script: <sha>, on @user_script:<line>."
func (e *Engine) writeError(s *Script, err error, reason interruptReason, w ReplyWriter) {
	var msg string
	var obj lua.LValue = lua.LString(err.Error())
	var aerr *lua.ApiError
	if errors.As(err, &aerr) {
		obj = aerr.Object
	}
	switch {
	case reason == reasonKilled:
		msg = "ERR " + string(errKilledCtx)
	case reason == reasonMemory:
		msg = "ERR " + string(errMemoryCtx)
	default:
		switch v := obj.(type) {
		case *lua.LTable:
			if s, ok := v.RawGetString("err").(lua.LString); ok {
				msg = string(s)
			} else {
				msg = "ERR unknown error"
			}
		case lua.LNumber:
			msg = "ERR " + formatNumber(float64(v))
		case lua.LString:
			msg = "ERR " + luaRuntimeMessage(string(v))
		default:
			msg = "ERR " + obj.String()
		}
	}
	if e.errLine > 0 {
		msg += " script: " + s.SHA + ", on @user_script:" + itoa(e.errLine) + "."
	}
	w.Error(errorReplyText(msg))
}

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

func luaRuntimeMessage(msg string) string {
	pos, rest := "", msg
	if strings.HasPrefix(msg, chunkName+":") {
		if i := strings.Index(msg, ": "); i >= 0 {
			pos, rest = msg[:i+2], msg[i+2:]
		}
	}
	// gopher-lua: "bad argument #2 to format (...)"; Lua 5.1 quotes the name.
	if strings.HasPrefix(rest, "bad argument #") {
		if i := strings.Index(rest, " to "); i >= 0 {
			if j := strings.Index(rest[i+4:], " ("); j >= 0 && !strings.HasPrefix(rest[i+4:], "'") {
				name := rest[i+4 : i+4+j]
				return pos + rest[:i+4] + "'" + name + "'" + rest[i+4+j:]
			}
		}
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

// compileErrorText turns gopher-lua's parser errors into Lua 5.1's form
// "user_script:<line>: <message> near '<token>'" for the common cases.
func compileErrorText(err error) string {
	var perr *parse.Error
	if !errors.As(err, &perr) {
		return chunkName + ": " + strings.TrimSpace(err.Error())
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
	return chunkName + ":" + itoa(line) + ": " + msg + " near '" + tok + "'"
}

// wrapChunk rewrites the script so that every ".." calls the engine's
// concat (which formats numbers with "%.14g") instead of gopher-lua's
// OP_CONCAT (which uses Go formatting), and wraps the body so that the
// concat function is an upvalue no script can name:
//
//	local (concat) = ...
//	return function(...) <body> end
func wrapChunk(chunk []ast.Stmt) []ast.Stmt {
	rewriteStmts(chunk)
	body := &ast.FunctionExpr{ParList: &ast.ParList{HasVargs: true}, Stmts: chunk}
	last := 1
	if n := len(chunk); n > 0 {
		last = chunk[n-1].LastLine()
	}
	body.SetLine(1)
	body.SetLastLine(last)
	local := &ast.LocalAssignStmt{Names: []string{concatName}, Exprs: []ast.Expr{&ast.Comma3Expr{}}}
	local.SetLine(1)
	ret := &ast.ReturnStmt{Exprs: []ast.Expr{body}}
	ret.SetLine(1)
	return []ast.Stmt{local, ret}
}

// concatName is not a valid Lua identifier, so scripts cannot reach it.
const concatName = "(concat)"

func rewriteStmts(stmts []ast.Stmt) {
	for _, st := range stmts {
		rewriteStmt(st)
	}
}

func rewriteStmt(st ast.Stmt) {
	switch s := st.(type) {
	case *ast.AssignStmt:
		rewriteExprs(s.Lhs)
		rewriteExprs(s.Rhs)
	case *ast.LocalAssignStmt:
		rewriteExprs(s.Exprs)
	case *ast.FuncCallStmt:
		s.Expr = rewriteExpr(s.Expr)
	case *ast.DoBlockStmt:
		rewriteStmts(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = rewriteExpr(s.Condition)
		rewriteStmts(s.Stmts)
	case *ast.RepeatStmt:
		s.Condition = rewriteExpr(s.Condition)
		rewriteStmts(s.Stmts)
	case *ast.IfStmt:
		s.Condition = rewriteExpr(s.Condition)
		rewriteStmts(s.Then)
		rewriteStmts(s.Else)
	case *ast.NumberForStmt:
		s.Init = rewriteExpr(s.Init)
		s.Limit = rewriteExpr(s.Limit)
		if s.Step != nil {
			s.Step = rewriteExpr(s.Step)
		}
		rewriteStmts(s.Stmts)
	case *ast.GenericForStmt:
		rewriteExprs(s.Exprs)
		rewriteStmts(s.Stmts)
	case *ast.FuncDefStmt:
		rewriteStmts(s.Func.Stmts)
		if s.Name != nil && s.Name.Func != nil {
			s.Name.Func = rewriteExpr(s.Name.Func)
		}
	case *ast.ReturnStmt:
		rewriteExprs(s.Exprs)
	}
}

func rewriteExprs(exprs []ast.Expr) {
	for i, ex := range exprs {
		exprs[i] = rewriteExpr(ex)
	}
}

func rewriteExpr(ex ast.Expr) ast.Expr {
	switch x := ex.(type) {
	case *ast.StringConcatOpExpr:
		// a .. b .. c parses as a .. (b .. c); one call takes all operands.
		var operands []ast.Expr
		var cur ast.Expr = x
		for {
			c, ok := cur.(*ast.StringConcatOpExpr)
			if !ok {
				operands = append(operands, rewriteExpr(cur))
				break
			}
			operands = append(operands, rewriteExpr(c.Lhs))
			cur = c.Rhs
		}
		fn := &ast.IdentExpr{Value: concatName}
		fn.SetLine(x.Line())
		fn.SetLastLine(x.LastLine())
		call := &ast.FuncCallExpr{Func: fn, Args: operands, AdjustRet: true}
		call.SetLine(x.Line())
		call.SetLastLine(x.LastLine())
		return call
	case *ast.AttrGetExpr:
		x.Object = rewriteExpr(x.Object)
		x.Key = rewriteExpr(x.Key)
	case *ast.TableExpr:
		for _, f := range x.Fields {
			if f.Key != nil {
				f.Key = rewriteExpr(f.Key)
			}
			f.Value = rewriteExpr(f.Value)
		}
	case *ast.FuncCallExpr:
		if x.Func != nil {
			x.Func = rewriteExpr(x.Func)
		}
		if x.Receiver != nil {
			x.Receiver = rewriteExpr(x.Receiver)
		}
		rewriteExprs(x.Args)
	case *ast.LogicalOpExpr:
		x.Lhs = rewriteExpr(x.Lhs)
		x.Rhs = rewriteExpr(x.Rhs)
	case *ast.RelationalOpExpr:
		x.Lhs = rewriteExpr(x.Lhs)
		x.Rhs = rewriteExpr(x.Rhs)
	case *ast.ArithmeticOpExpr:
		x.Lhs = rewriteExpr(x.Lhs)
		x.Rhs = rewriteExpr(x.Rhs)
	case *ast.UnaryMinusOpExpr:
		x.Expr = rewriteExpr(x.Expr)
	case *ast.UnaryNotOpExpr:
		x.Expr = rewriteExpr(x.Expr)
	case *ast.UnaryLenOpExpr:
		x.Expr = rewriteExpr(x.Expr)
	case *ast.FunctionExpr:
		rewriteStmts(x.Stmts)
	}
	return ex
}

// luaConcat concatenates its operands as Lua 5.1's OP_CONCAT does.
func (e *Engine) luaConcat(L *lua.LState) int {
	n := L.GetTop()
	size := 0
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			size += len(v)
		case lua.LNumber:
			size += 24
		default:
			return e.concatMeta(L, n)
		}
	}
	if size > e.opts.MaxStringSize {
		L.RaiseError("not enough memory")
	}
	buf := make([]byte, 0, size)
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			buf = append(buf, v...)
		case lua.LNumber:
			buf = appendNumber(buf, float64(v), 14)
		}
	}
	L.Push(lua.LString(unsafeString(buf)))
	return 1
}

// concatMeta handles operands that are not strings or numbers, right to
// left like Lua: a __concat metamethod or Lua 5.1's error.
func (e *Engine) concatMeta(L *lua.LState, n int) int {
	acc := L.Get(n)
	for i := n - 1; i >= 1; i-- {
		lhs := L.Get(i)
		if isConcatable(lhs) && isConcatable(acc) {
			L.Push(e.concatFn)
			L.Push(lhs)
			L.Push(acc)
			L.Call(2, 1)
			acc = L.Get(-1)
			L.Pop(1)
			continue
		}
		mm := L.GetMetaField(lhs, "__concat")
		if mm == lua.LNil {
			mm = L.GetMetaField(acc, "__concat")
		}
		if mm == lua.LNil {
			bad := lhs
			if isConcatable(lhs) {
				bad = acc
			}
			L.RaiseError("attempt to concatenate a %s value", bad.Type().String())
		}
		L.Push(mm)
		L.Push(lhs)
		L.Push(acc)
		L.Call(2, 1)
		acc = L.Get(-1)
		L.Pop(1)
	}
	L.Push(acc)
	return 1
}

func isConcatable(v lua.LValue) bool {
	switch v.(type) {
	case lua.LString, lua.LNumber:
		return true
	}
	return false
}

package luaengine

import (
	"math"

	"github.com/floodgate/floodgate/third_party/gopher-lua/ast"
)

// Lua 5.1 keeps one constant per value in a function's constant table,
// looked up in a table where 0 and -0 are the same key: the first zero the
// compiler emits in a function is the one every later 0 or -0 of that
// function reads. So in Redis `return {-0, 0}` is {-0, -0}, and
// `-0 <= (1/0)` is false: 1/0 is not folded (lcode.c never folds a
// division by zero), its 0 is the constant -0 and it divides to -inf.
// gopher-lua folds 1/0 itself and dedupes constants in its own order, so
// the script is rewritten first: in each function, every zero that Lua
// 5.1 would emit as a constant becomes a zero of the sign of the first one
// in Lua 5.1's emission order.

// zeroSite is one zero constant of a function: its sign and where it sits.
type zeroSite struct {
	neg        bool
	line, last int
	set        func(ast.Expr)
}

type zeroPass struct{ sites []zeroSite }

// shareZeroConstants applies Lua 5.1's shared zero constant to a chunk's
// body and every function in it.
func shareZeroConstants(stmts []ast.Stmt) {
	var p zeroPass
	p.stmts(stmts)
	p.finish()
}

// finish rewrites the function's zero constants to the first one's sign.
func (p *zeroPass) finish() {
	if len(p.sites) == 0 {
		return
	}
	neg := p.sites[0].neg
	for _, s := range p.sites {
		var z ast.Expr = &ast.NumberExpr{Value: "0"}
		z.SetLine(s.line)
		z.SetLastLine(s.last)
		if neg {
			z = &ast.UnaryMinusOpExpr{Expr: z}
			z.SetLine(s.line)
			z.SetLastLine(s.last)
		}
		s.set(z)
	}
}

// function runs a nested function's own pass.
func function(f *ast.FunctionExpr) {
	var p zeroPass
	p.stmts(f.Stmts)
	p.finish()
}

// numeral51 is the value of ex if Lua 5.1's parser sees a numeral there:
// a number, or unary minus and arithmetic on numerals that lcode.c's
// constfolding folds (never a division or modulo by zero, never a NaN).
func numeral51(ex ast.Expr) (float64, bool) {
	switch x := ex.(type) {
	case *ast.NumberExpr:
		return parseNumber(x.Value)
	case *ast.UnaryMinusOpExpr:
		v, ok := numeral51(x.Expr)
		return -v, ok
	case *ast.ArithmeticOpExpr:
		a, ok1 := numeral51(x.Lhs)
		b, ok2 := numeral51(x.Rhs)
		if !ok1 || !ok2 {
			return 0, false
		}
		var r float64
		switch x.Operator {
		case "+":
			r = a + b
		case "-":
			r = a - b
		case "*":
			r = a * b
		case "/":
			if b == 0 {
				return 0, false
			}
			r = a / b
		case "%":
			if b == 0 {
				return 0, false
			}
			r = a - math.Floor(a/b)*b
		case "^":
			r = powC(a, b)
		default:
			return 0, false
		}
		return r, !math.IsNaN(r)
	}
	return 0, false
}

func (p *zeroPass) stmts(stmts []ast.Stmt) {
	for _, st := range stmts {
		p.stmt(st)
	}
}

func (p *zeroPass) exprs(exprs []ast.Expr) {
	for i := range exprs {
		p.expr(exprs[i], func(e ast.Expr) { exprs[i] = e })
	}
}

func (p *zeroPass) stmt(st ast.Stmt) {
	switch s := st.(type) {
	case *ast.AssignStmt:
		p.exprs(s.Lhs)
		p.exprs(s.Rhs)
	case *ast.LocalAssignStmt:
		p.exprs(s.Exprs)
	case *ast.FuncCallStmt:
		p.expr(s.Expr, func(e ast.Expr) { s.Expr = e })
	case *ast.DoBlockStmt:
		p.stmts(s.Stmts)
	case *ast.WhileStmt:
		p.expr(s.Condition, func(e ast.Expr) { s.Condition = e })
		p.stmts(s.Stmts)
	case *ast.RepeatStmt:
		p.stmts(s.Stmts)
		p.expr(s.Condition, func(e ast.Expr) { s.Condition = e })
	case *ast.IfStmt:
		p.expr(s.Condition, func(e ast.Expr) { s.Condition = e })
		p.stmts(s.Then)
		p.stmts(s.Else)
	case *ast.NumberForStmt:
		p.expr(s.Init, func(e ast.Expr) { s.Init = e })
		p.expr(s.Limit, func(e ast.Expr) { s.Limit = e })
		if s.Step != nil {
			p.expr(s.Step, func(e ast.Expr) { s.Step = e })
		}
		p.stmts(s.Stmts)
	case *ast.GenericForStmt:
		p.exprs(s.Exprs)
		p.stmts(s.Stmts)
	case *ast.FuncDefStmt:
		if s.Name != nil && s.Name.Func != nil {
			p.expr(s.Name.Func, func(e ast.Expr) { s.Name.Func = e })
		}
		function(s.Func)
	case *ast.ReturnStmt:
		p.exprs(s.Exprs)
	}
}

// expr records ex's zero constants in the order Lua 5.1's code generator
// emits them; set replaces ex in its parent.
func (p *zeroPass) expr(ex ast.Expr, set func(ast.Expr)) {
	if v, ok := numeral51(ex); ok {
		if v == 0 {
			p.sites = append(p.sites, zeroSite{neg: math.Signbit(v), line: ex.Line(), last: ex.LastLine(), set: set})
		}
		return
	}
	switch x := ex.(type) {
	case *ast.ArithmeticOpExpr:
		// A numeral left operand waits (luaK_infix) until the right one
		// is emitted; then codearith emits the right one first.
		if _, ok := numeral51(x.Lhs); ok {
			p.expr(x.Rhs, func(e ast.Expr) { x.Rhs = e })
			p.expr(x.Lhs, func(e ast.Expr) { x.Lhs = e })
			return
		}
		p.expr(x.Lhs, func(e ast.Expr) { x.Lhs = e })
		p.expr(x.Rhs, func(e ast.Expr) { x.Rhs = e })
	case *ast.StringConcatOpExpr:
		p.expr(x.Lhs, func(e ast.Expr) { x.Lhs = e })
		p.expr(x.Rhs, func(e ast.Expr) { x.Rhs = e })
	case *ast.LogicalOpExpr:
		if _, ok := numeral51(x.Lhs); ok && x.Operator == "and" {
			// "<numeral> and b" is b; the numeral is never emitted. b
			// stays one value, as an operand is.
			switch v := x.Rhs.(type) {
			case *ast.FuncCallExpr:
				v.AdjustRet = true
			case *ast.Comma3Expr:
				v.AdjustRet = true
			}
			set(x.Rhs)
			p.expr(x.Rhs, set)
			return
		}
		p.expr(x.Lhs, func(e ast.Expr) { x.Lhs = e })
		p.expr(x.Rhs, func(e ast.Expr) { x.Rhs = e })
	case *ast.RelationalOpExpr:
		p.expr(x.Lhs, func(e ast.Expr) { x.Lhs = e })
		p.expr(x.Rhs, func(e ast.Expr) { x.Rhs = e })
	case *ast.UnaryMinusOpExpr:
		p.expr(x.Expr, func(e ast.Expr) { x.Expr = e })
	case *ast.UnaryNotOpExpr:
		// "not <numeral>" is false without emitting the numeral.
		if _, ok := numeral51(x.Expr); ok {
			f := &ast.FalseExpr{}
			f.SetLine(x.Line())
			f.SetLastLine(x.LastLine())
			set(f)
			return
		}
		p.expr(x.Expr, func(e ast.Expr) { x.Expr = e })
	case *ast.UnaryLenOpExpr:
		p.expr(x.Expr, func(e ast.Expr) { x.Expr = e })
	case *ast.AttrGetExpr:
		p.expr(x.Object, func(e ast.Expr) { x.Object = e })
		p.expr(x.Key, func(e ast.Expr) { x.Key = e })
	case *ast.TableExpr:
		for _, f := range x.Fields {
			if f.Key != nil {
				p.expr(f.Key, func(e ast.Expr) { f.Key = e })
			}
			p.expr(f.Value, func(e ast.Expr) { f.Value = e })
		}
	case *ast.FuncCallExpr:
		if x.Func != nil {
			p.expr(x.Func, func(e ast.Expr) { x.Func = e })
		}
		if x.Receiver != nil {
			p.expr(x.Receiver, func(e ast.Expr) { x.Receiver = e })
		}
		p.exprs(x.Args)
	case *ast.FunctionExpr:
		function(x)
	}
}

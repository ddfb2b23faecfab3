package conformance

import (
	"fmt"

	"strings"
)

// Random scripts: commands through redis.call and redis.pcall, and random
// Lua expressions over the string, math, table, bit, struct, cjson and
// cmsgpack libraries and number conversions. Nothing random (math.random)
// or address-bearing (tostring of a table or function) is generated.

// script returns an EVAL that runs a generated command from Lua.
func (g *gen) script() op {
	args := g.innerCmd()
	o := op{family: "scripting", conn: 1}
	// The command's name and arguments go in ARGV, and its first key is
	// also declared, as a well-behaved script would.
	body := g.pick(
		"return redis.call(unpack(ARGV))",
		"return redis.pcall(unpack(ARGV))",
		"local r = redis.pcall(unpack(ARGV)) if type(r) == 'table' and r.err then return 'E:' .. r.err end return {type(r), r}",
		"local ok, e = pcall(redis.call, unpack(ARGV)) if ok then return {1, e} end return type(e) == 'table' and e.err or e",
		"local r = redis.call(unpack(ARGV)) return cjson.encode({r})",
		"redis.setresp(3) return redis.call(unpack(ARGV))",
		"local r = redis.call(unpack(ARGV)) if type(r) == 'number' then return tostring(r) end return r",
	)
	numkeys, keys := g.firstKey(args)
	o.args = cmd("EVAL", body, numkeys, keys, args)
	return o
}

// firstKey is the numkeys and keys of a script or function call whose
// arguments are the command args: mostly its first key declared, now and
// then a bad count.
func (g *gen) firstKey(args []string) (string, []string) {
	numkeys := "0"
	var keys []string
	if len(args) > 1 && g.chance(0.8) {
		numkeys, keys = "1", []string{args[1]}
	}
	if g.n(40) == 0 {
		numkeys = g.pick("-1", "5", "x")
	}
	return numkeys, keys
}

// luaExpr returns an EVAL of one random expression.
func (g *gen) luaExpr() op {
	var e string
	switch g.n(6) {
	case 0:
		e = g.numExpr(3)
	case 1, 2:
		e = g.strExpr(3)
	case 3:
		e = "{" + g.anyExpr(3) + "}"
	case 4:
		e = "tostring(" + g.numExpr(3) + ")"
	default:
		e = g.anyExpr(3)
	}
	body := "return " + e
	if g.n(8) == 0 {
		body = "local ok, r = pcall(function() return " + e + " end) if ok then return {'ok', type(r), type(r) ~= 'table' and type(r) ~= 'function' and tostring(r) or ''} end return {'err', tostring(r)}"
	}
	args := cmd("EVAL", body, "0")
	for range g.n(3) {
		args = append(args, g.value())
	}
	return op{family: "lua-expr", conn: 1, args: args}
}

var luaNumLits = []string{
	"0", "1", "-1", "2", "3", "7", "-7", "10", "255", "256", "0.5", "-0.5", "1.5", "2.5", "-2.5", "3.7",
	"0x10", "0xff", "1e308", "-1e308", "1e309", "2^53", "2^53+1", "2^63", "-2^63", "2^31", "-2^31", "2^32",
	"2^64", "1e20", "-1e20", "1e29", "(1/0)", "(-1/0)", "(0/0)", "(-(0/0))", "-0", "(-0)", "0.1", "1e-310",
	"4294967295", "2147483647", "-2147483648", "9007199254740993", ".5", "5.", "1e15", "123456789012",
}

var luaStrLits = []string{
	"''", "'a'", "'abc'", "'hello'", "'Hello World'", "'10'", "'010'", "' 10 '", "'0x10'", "'1e3'",
	"'-0'", "'1.5'", "'inf'", "'nan'", "'-nan'", "'0x1.8'", "'1e309'", "'abc123'", "'\\0'", "'a\\0b'",
	"'\\255\\128'", "'\\200\\255abc'", "'\\r\\n'", "'%'", "'%d'", "'x'", "'xyz'", "'aaa'", "'  '",
	"'9223372036854775807'", "'-9223372036854775808'", "'1_0'", "'0b1'", "'nan(0x1)'", "'\\233t\\233'",
	"'[1,2,3]'", "'{\"a\":1}'", "'\"x\"'", "'1e400'", "'[1,]'", "'{\"a\":[1,{\"b\":null}]}'", "'\"\\\\u00e9\"'",
	"'-0'", "'[1e308,-0,0.1]'", "'true'", "'null'", "'[\"\\\\ud800\"]'",
}

var luaPatterns = []string{
	"'%d+'", "'(a)(b)'", "'[a-'", "'%'", "'^a'", "'a*'", "'.-'", "'%bxy'", "'%f[%w]%w+'", "'('", "'%1'",
	"'[^%s]+'", "''", "'a?b'", "'%z'", "'(%w+)'", "'()'", "'.'", "'[%a]'", "'%x+'", "'l+'", "'(l)(l)'",
	"'%u'", "'%l+'", "'[]'", "'[^]'", "'%g'", "'x$'", "'$'", "'%.'", "'%%'", "'(()'", "'%b()'",
}

var luaFormats = []string{
	"'%d'", "'%5.2f'", "'%x'", "'%X'", "'%o'", "'%e'", "'%g'", "'%s'", "'%q'", "'%c'", "'%i'", "'%u'",
	"'%-5d'", "'%05d'", "'%+d'", "'% d'", "'%#x'", "'%.3s'", "'%10s'", "'%%'", "'%.20f'", "'%.0f'",
	"'%5.1f'", "'%a'", "'%*d'", "'%123d'", "'%.14g'", "'%5s|%-5s'", "'%d %d'", "'%f'", "'%G'", "'%E'",
	"'%-8s'", "'%08.3f'", "'%.99f'", "'%99.99f'", "'[%5.1f]'", "'%'", "'%s%s'", "'%#o'",
}

var luaStructFmts = []string{
	"'>i4'", "'<I2'", "'b'", "'B'", "'h'", "'H'", "'l'", "'L'", "'d'", "'f'", "'s'", "'c5'", "'i8'",
	"'!4 i2 i4'", "'x'", "'c0'", "'>I3'", "'i'", "'<d'", "'q'", "'i17'", "'>i2 c1'",
}

func (g *gen) argv() string { return fmt.Sprintf("ARGV[%d]", 1+g.n(3)) }

func (g *gen) numExpr(d int) string {
	if d <= 0 || g.n(4) == 0 {
		if g.n(6) == 0 {
			return "tonumber(" + g.argv() + ")"
		}
		return luaNumLits[g.n(len(luaNumLits))]
	}
	d--
	switch g.n(16) {
	case 0, 1, 2:
		return "(" + g.numExpr(d) + " " + g.pick("+", "-", "*", "/", "%", "^", "%") + " " + g.numExpr(d) + ")"
	case 3:
		return "(" + g.strExpr(d) + " " + g.pick("+", "-", "*", "%") + " " + g.numExpr(d) + ")"
	case 4:
		return "(-" + g.numExpr(d) + ")"
	case 5:
		f := g.pick("floor", "ceil", "abs", "sqrt", "log", "log10", "exp", "sin", "cos", "tan", "deg", "rad", "floor", "frexp", "modf", "acos")
		return "math." + f + "(" + g.numExpr(d) + ")"
	case 6:
		f := g.pick("fmod", "max", "min", "pow", "atan2", "ldexp", "fmod")
		return "math." + f + "(" + g.numExpr(d) + ", " + g.numArg(d) + ")"
	case 7:
		return g.pick("string.len(", "#(") + g.strExpr(d) + ")"
	case 8:
		return "string.byte(" + g.strExpr(d) + ", " + g.numArg(d) + ")"
	case 9:
		f := g.pick("band", "bor", "bxor", "lshift", "rshift", "arshift", "rol", "ror")
		return "bit." + f + "(" + g.numExpr(d) + ", " + g.numArg(d) + ")"
	case 10:
		return "bit." + g.pick("bnot", "tobit", "bswap") + "(" + g.numArg(d) + ")"
	case 11:
		if g.chance(0.5) {
			return "tonumber(" + g.strExpr(d) + ")"
		}
		return "tonumber(" + g.strExpr(d) + ", " + g.pick("2", "8", "10", "16", "36", "'16'", "1", "37", "' 16'") + ")"
	case 12:
		return "select('#', " + g.anyExpr(d) + ")"
	case 13:
		return "(string.find(" + g.strExpr(d) + ", " + g.pattern() + ", " + g.numArg(d) + g.pick("", ", true") + "))"
	case 14:
		return "(" + g.numExpr(d) + " " + g.pick("==", "<", "<=") + " " + g.numExpr(d) + " and 1 or 0)"
	}
	return luaNumLits[g.n(len(luaNumLits))]
}

// numArg is an integer-like argument, sometimes a numeric string or junk.
func (g *gen) numArg(d int) string {
	switch g.n(8) {
	case 0:
		return g.pick("'2'", "' 3 '", "'0x2'", "'1e1'", "'x'", "nil", "true", "{}", "'-1'", "'2.7'")
	case 1:
		return g.argv()
	case 2, 3:
		return g.numExpr(d)
	}
	return g.pick("0", "1", "2", "3", "-1", "-2", "-3", "10", "100", "-100", "2.5", "-2.5", "1e10", "-1e10", "2^31", "-2^31", "2^32", "(0/0)", "(1/0)")
}

func (g *gen) pattern() string {
	if g.n(6) == 0 {
		return g.strExpr(1)
	}
	return luaPatterns[g.n(len(luaPatterns))]
}

func (g *gen) strExpr(d int) string {
	if d <= 0 || g.n(4) == 0 {
		if g.n(5) == 0 {
			return g.argv()
		}
		return luaStrLits[g.n(len(luaStrLits))]
	}
	d--
	switch g.n(24) {
	case 0:
		return "tostring(" + g.numExpr(d) + ")"
	case 1, 2:
		return "(" + g.strExpr(d) + " .. " + g.pick(g.strExpr(d), g.numExpr(d), g.anyExpr(d)) + ")"
	case 3, 4:
		args := g.strExpr(d) + ", " + g.numArg(d)
		if g.chance(0.6) {
			args += ", " + g.numArg(d)
		}
		return "string.sub(" + args + ")"
	case 5:
		return "string.rep(" + g.strExpr(d) + ", " + g.pick("0", "1", "2", "3", "-1", "'2'", "2.5") + ")"
	case 6:
		return "string." + g.pick("upper", "lower", "reverse") + "(" + g.strExpr(d) + ")"
	case 7, 8:
		f := luaFormats[g.n(len(luaFormats))]
		args := f
		for range 1 + g.n(2) {
			if g.chance(0.5) {
				args += ", " + g.numExpr(d)
			} else {
				args += ", " + g.strExpr(d)
			}
		}
		return "string.format(" + args + ")"
	case 9:
		return "string.char(" + strings.Join(g.many(1+g.n(3), func() string { return g.numArg(0) }), ", ") + ")"
	case 10:
		repl := g.pick("'y'", "'%1'", "'%0%0'", "'%2'", "'%'", "''", "{a='A'}", "string.upper", "function(x) return nil end", "function(x) return 1 end")
		args := g.strExpr(d) + ", " + g.pattern() + ", " + repl
		if g.chance(0.3) {
			args += ", " + g.numArg(d)
		}
		return "(string.gsub(" + args + "))"
	case 11:
		return "(string.match(" + g.strExpr(d) + ", " + g.pattern() + g.pick("", ", "+g.numArg(d)) + "))"
	case 12:
		return "bit.tohex(" + g.numArg(d) + g.pick("", ", "+g.numArg(d)) + ")"
	case 13:
		f := luaStructFmts[g.n(len(luaStructFmts))]
		return "struct.pack(" + f + ", " + g.pick(g.numExpr(d), g.strExpr(d)) + g.pick("", ", "+g.numExpr(d)) + ")"
	case 14:
		return "cjson.encode(" + g.anyExpr(d) + ")"
	case 15:
		return "cmsgpack.pack(" + g.anyExpr(d) + ")"
	case 16:
		return "redis.sha1hex(" + g.pick(g.strExpr(d), g.numExpr(d), "nil", "{}") + ")"
	case 17:
		return "table.concat(" + g.table(d) + g.pick("", ", ','", ", "+g.strExpr(d)) + g.pick("", ", "+g.numArg(d)+", "+g.numArg(d)) + ")"
	case 18:
		return "type(" + g.anyExpr(d) + ")"
	case 19:
		return "string.format('%q', " + g.strExpr(d) + ")"
	case 20:
		return "tostring(" + g.pick(g.strExpr(d), "nil", "true", g.numExpr(d)) + ")"
	case 21:
		return "string.format('%.17g', " + g.numExpr(d) + ")"
	}
	return luaStrLits[g.n(len(luaStrLits))]
}

func (g *gen) table(d int) string {
	n := g.n(4)
	parts := make([]string, n)
	for i := range parts {
		switch g.n(5) {
		case 0:
			// Keys anywhere: holes, indexes also given by position, keys
			// of every hashed kind (Lua 5.1's layout decides # and next).
			parts[i] = g.pick("a", "b", g.tableKey()) + " = " + g.pick(g.numExpr(d), g.strExpr(d))
		case 1:
			parts[i] = g.numExpr(d)
		default:
			parts[i] = g.strExpr(d)
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// luaTableKeys hash by value in Lua 5.1 (numbers, strings, booleans), so
// their layout, and with it # and the order of next, is deterministic.
// Tables and functions hash by address: never generated as keys.
var luaTableKeys = []string{
	"1", "2", "3", "4", "5", "6", "8", "9", "16", "17", "0", "-1", "-0", "1.5", "2^53", "1e20", "2^31",
	"true", "false", "'a'", "'b'", "'k'", "'abc'", "'1'", "''", "'x'", "'y'", "'z'", "'ab'", "'ba'",
}

func (g *gen) tableKey() string { return "[" + luaTableKeys[g.n(len(luaTableKeys))] + "]" }

// builtTable is a table filled and emptied statement by statement, as a
// script builds one: growth, rehashes, keys deleted and set again.
func (g *gen) builtTable(d int) string {
	var b strings.Builder
	b.WriteString("(function() local t = " + g.table(d) + " ")
	for range 1 + g.n(10) {
		switch g.n(7) {
		case 0:
			b.WriteString("t" + g.tableKey() + " = nil ")
		case 1:
			b.WriteString("t[#t + 1] = " + g.numExpr(0) + " ")
		case 2:
			b.WriteString("table.remove(t" + g.pick("", ", 1", ", 2", ", #t", ", 0", ", 7") + ") ")
		case 3:
			b.WriteString("table.insert(t, " + g.pick("", "1, ", "2, ", "#t, ") + g.pick(g.numExpr(0), g.strExpr(0)) + ") ")
		default:
			b.WriteString("t" + g.tableKey() + " = " + g.pick(g.numExpr(0), g.strExpr(0)) + " ")
		}
	}
	b.WriteString("return t end)()")
	return b.String()
}

func (g *gen) anyExpr(d int) string {
	if d <= 0 {
		return g.pick(g.numExpr(0), g.strExpr(0), "nil", "true", "false", "{}")
	}
	d--
	switch g.n(20) {
	case 0, 1:
		return g.numExpr(d)
	case 2, 3:
		return g.strExpr(d)
	case 4:
		return g.table(d)
	case 5:
		return "cjson.decode(" + g.strExpr(d) + ")"
	case 6:
		return "cmsgpack.unpack(" + g.pick("cmsgpack.pack("+g.anyExpr(d)+")", g.strExpr(d)) + ")"
	case 7:
		f := luaStructFmts[g.n(len(luaStructFmts))]
		return "struct.unpack(" + f + ", " + g.strExpr(d) + g.pick("", ", "+g.numArg(d)) + ")"
	case 8:
		return "string.byte(" + g.strExpr(d) + ", " + g.numArg(d) + ", " + g.numArg(d) + ")"
	case 9:
		return "string.find(" + g.strExpr(d) + ", " + g.pattern() + g.pick("", ", "+g.numArg(d), ", "+g.numArg(d)+", true") + ")"
	case 10:
		return "string.match(" + g.strExpr(d) + ", " + g.pattern() + ")"
	case 11:
		return "string.gsub(" + g.strExpr(d) + ", " + g.pattern() + ", " + g.pick("'y'", "'%1'", "'%0'") + ")"
	case 12:
		return "select(" + g.pick("1", "2", "-1", "'2'", "0", "'#'") + ", " + g.anyExpr(d) + ", " + g.anyExpr(d) + ")"
	case 13:
		return "unpack(" + g.table(d) + g.pick("", ", "+g.numArg(d), ", "+g.numArg(d)+", "+g.numArg(d)) + ")"
	case 14:
		return "math." + g.pick("modf", "frexp") + "(" + g.numExpr(d) + ")"
	case 15:
		return g.builtTable(d)
	case 16:
		return "#" + g.pick(g.table(d), g.builtTable(d))
	case 17:
		// The order of next, shown as text.
		return "(function(t) local r = {} for k, v in pairs(t) do r[#r + 1] = tostring(k) .. '=' .. tostring(v) end return table.concat(r, ' ') end)(" + g.pick(g.table(d), g.builtTable(d)) + ")"
	case 18:
		// Lua 5.1's quicksort: ties under a comparator, its calls, errors.
		cmp := g.pick("", ", function(a, b) return a > b end", ", function(a, b) return tostring(a) < tostring(b) end",
			", function(a, b) return (tonumber(a) or 0) % 3 < (tonumber(b) or 0) % 3 end", ", function(a, b) return true end", ", 1")
		return "(function(t) table.sort(t" + cmp + ") return t end)(" + g.pick(g.table(d), g.builtTable(d)) + ")"
	}
	return "(" + g.anyExpr(d) + " " + g.pick("and", "or") + " " + g.anyExpr(d) + ")"
}

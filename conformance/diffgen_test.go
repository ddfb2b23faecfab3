package conformance

import (
	"math/rand"
	"slices"
	"strconv"
	"strings"
)

// A diffFamily generates the ops of one command family. Adding a family
// (lists, bitmaps, HLL, ...) is one more row in diffFamilies.
type diffFamily struct {
	name   string
	weight int
	// cmd returns one command of the family; its mode says how to compare.
	// inner is true inside MULTI and scripts, where time-dependent
	// commands (TTL) are not generated.
	cmd func(g *gen, inner bool) (args []string, mode string)
}

var diffFamilies []diffFamily

func init() {
	diffFamilies = []diffFamily{
		{"string", 14, (*gen).stringCmd},
		{"keys", 10, (*gen).keysCmd},
		{"hash", 10, (*gen).hashCmd},
		{"set", 8, (*gen).setCmd},
		{"zset", 14, (*gen).zsetCmd},
		{"list", 12, (*gen).listCmd},
		{"set-algebra", 6, (*gen).setAlgebraCmd},
		{"zset-algebra", 8, (*gen).zsetAlgebraCmd},
		{"sort", 5, (*gen).sortCmd},
		{"lcs-substr-move", 4, (*gen).miscStringCmd},
		{"bitmap", 8, (*gen).bitmapCmd},
		{"hll", 5, (*gen).hllCmd},
		{"geo", 7, (*gen).geoCmd},
		{"stream", 12, (*gen).streamCmd},
		{"function", 8, (*gen).functionCmd},
		{"groups", 10, (*gen).groupCmd},
	}
}

type gen struct {
	rng  *rand.Rand
	only map[string]bool // families to generate; nil: all
}

func newGen(rng *rand.Rand) *gen { return &gen{rng: rng} }

func (g *gen) n(k int) int           { return g.rng.Intn(k) }
func (g *gen) chance(p float64) bool { return g.rng.Float64() < p }

func (g *gen) pick(xs ...string) string { return xs[g.n(len(xs))] }

// segment returns about n ops: single commands of every family,
// MULTI/EXEC and WATCH blocks, scripts calling commands, and Lua
// expressions.
func (g *gen) segment(n int) []op {
	var ops []op
	for len(ops) < n {
		r := g.n(100)
		if g.only != nil {
			ops = append(ops, g.onlyOp()...)
			continue
		}
		switch {
		case r < 3:
			ops = append(ops, g.transaction()...)
		case r < 9:
			ops = append(ops, g.script())
		case r < 35:
			ops = append(ops, g.luaExpr())
		default:
			ops = append(ops, g.singles()...)
		}
	}
	return ops
}

// onlyOp returns an op of one of the families in g.only.
func (g *gen) onlyOp() []op {
	for {
		switch {
		case g.only["transaction"] && g.chance(0.2):
			return g.transaction()
		case g.only["scripting"] && g.chance(0.2):
			return []op{g.script()}
		case g.only["lua-expr"] && g.chance(0.5):
			return []op{g.luaExpr()}
		}
		o := g.singles()
		if g.only[o[len(o)-1].family] {
			return o
		}
	}
}

func (g *gen) family() diffFamily {
	total := 0
	for _, f := range diffFamilies {
		total += f.weight
	}
	r := g.n(total)
	for _, f := range diffFamilies {
		if r < f.weight {
			return f
		}
		r -= f.weight
	}
	panic("unreachable")
}

func (g *gen) single() op {
	f := g.family()
	args, mode := f.cmd(g, false)
	if !keepArity[strings.ToUpper(args[0])] {
		args = g.mangleArity(args)
	}
	o := op{family: f.name, conn: 1, mode: mode, args: args}
	if mode == "approx" {
		o.arg = "1"
		if strings.EqualFold(args[0], "pttl") || strings.EqualFold(args[0], "pexpiretime") {
			o.arg = "3000"
		}
	}
	switch mode {
	case "lex", "lexsrc":
		// The ranged key: ZRANGESTORE's source is its second argument.
		o.mode = ""
		if i := 1 + btoi(mode == "lexsrc"); i < len(args) {
			o.skipIf = skipMixedSkiplist(args[i])
		}
	case "restore":
		policy := g.pick(restorePolicies...)
		o.mode, o.perSide = "fnexists", ownRestore(policy)
		o.args = cmd("FUNCTION", "RESTORE", "<its own FUNCTION DUMP>", policy)
		if policy == "" {
			o.args = o.args[:3]
		}
	case "clearerrno":
		o.mode = ""
		o.clearErrno = true
	case "clockid", "dumpstream":
		skip := skipClockID
		if mode == "dumpstream" {
			skip = skipUnlessStream
		}
		o.mode = ""
		if len(args) > 1 {
			o.skipIf = skip(args[1])
		}
	case "noset", "errno":
		o.mode = ""
		o.clearErrno = true
		if len(args) > 1 {
			o.skipIf = skipSortTies(args[1], mode == "noset", slices.Contains(args, "ALPHA"))
		}
	}
	if mode == "scan" {
		// The request's cursor: only a walk from 0 is comparable.
		if i := 1 + btoi(!strings.EqualFold(args[0], "scan")); i < len(args) {
			o.arg = args[i]
		}
	}
	return o
}

// keepArity lists commands whose arguments are never dropped or added: a
// blocking command's last argument is its timeout (one more would block
// for its value), and SPOP or SRANDMEMBER without their count pick at
// random. A count added to ZRANDMEMBER or HRANDFIELD can be a huge
// negative number, for which Redis builds a reply of that many elements
// until it runs out of memory (as floodgate does).
var keepArity = map[string]bool{
	"BLPOP": true, "BRPOP": true, "BLMOVE": true, "BRPOPLPUSH": true, "BLMPOP": true,
	"BZPOPMIN": true, "BZPOPMAX": true, "BZMPOP": true, "SPOP": true, "SRANDMEMBER": true,
	"ZRANDMEMBER": true, "HRANDFIELD": true,
}

// singles is single's op, after a GEORADIUS_RO on a missing key when the
// op needs errno cleared (see sortCmd).
func (g *gen) singles() []op {
	o := g.single()
	if !o.clearErrno {
		return []op{o}
	}
	clear := op{family: o.family, conn: 1, args: []string{"GEORADIUS_RO", "errno-clear", "0", "0", "1", "m"}}
	return []op{clear, o}
}

// mangleArity drops or adds an argument now and then: arity errors.
func (g *gen) mangleArity(args []string) []string {
	switch r := g.n(100); {
	case r == 0 && len(args) > 1:
		return args[:len(args)-1]
	case r == 1:
		return append(args, g.value())
	case r == 2:
		return args[:1]
	}
	return args
}

// skipMixedSkiplist skips a lex-range op on a skiplist-encoded sorted set
// whose scores differ: Redis's answer then depends on the random levels
// of its skiplist (docs/differential.md).
func skipMixedSkiplist(key string) func(ref *rawConn) bool {
	return func(ref *rawConn) bool {
		enc, err := ref.do("OBJECT", "ENCODING", key)
		if err != nil || !strings.Contains(string(enc), "skiplist") {
			return false
		}
		lo, err1 := ref.do("ZRANGE", key, "0", "0", "WITHSCORES")
		hi, err2 := ref.do("ZRANGE", key, "-1", "-1", "WITHSCORES")
		if err1 != nil || err2 != nil {
			return true
		}
		return lastBulk(lo) != lastBulk(hi)
	}
}

// skipSortTies skips a SORT whose order Redis leaves to chance: BY
// nosort on a set without STORE (the hash table's order, which depends on
// the hash seed), and ALPHA over elements with a NUL byte (Redis compares
// with strcoll, which stops at the NUL, so "b" and "b\x00\xff" tie and
// stay in the order its quicksort leaves them).
func skipSortTies(key string, nosort, alpha bool) func(ref *rawConn) bool {
	return func(ref *rawConn) bool {
		t, err := ref.do("TYPE", key)
		if err != nil {
			return true
		}
		typ := strings.TrimSpace(strings.TrimPrefix(string(t), "+"))
		if nosort && typ == "set" {
			return true
		}
		if !alpha {
			return false
		}
		var elems []byte
		switch typ {
		case "set":
			elems, err = ref.do("SMEMBERS", key)
		case "list":
			elems, err = ref.do("LRANGE", key, "0", "-1")
		case "zset":
			elems, err = ref.do("ZRANGE", key, "0", "-1")
		}
		return err != nil || strings.Contains(string(elems), "\x00")
	}
}

func lastBulk(raw []byte) string {
	s := strings.TrimSuffix(string(raw), "\r\n")
	return s[strings.LastIndex(s, "\n")+1:]
}

// Values: a small keyspace and edge-case values.

var diffKeys = []string{"k1", "k2", "k3", "k4", "k5"}

var edgeInts = []string{
	"0", "1", "-1", "2", "3", "10", "100", "-100", "007", "+5", " 5", "5 ", "-0", "0x10", "1e3",
	"9223372036854775807", "-9223372036854775808", "9223372036854775806", "-9223372036854775807",
	"9223372036854775808", "-9223372036854775809", "18446744073709551615", "4611686018427387904",
	"4294967296", "2147483647", "-2147483648", "12345678901234567890", "500000000000000000",
}

var edgeFloats = []string{
	"1.5", "-2.25", "0.1", "3.0", "1e308", "-1e308", "1.7976931348623157e308", "1e309", "-1e309",
	"inf", "-inf", "+inf", "Inf", "INF", "infinity", "-Infinity", "nan", "NaN", "-nan",
	"5e-324", "1e-320", "2.5e17", "1.", ".5", " 1.5", "1.5 ", "-0.0", "0e0", "0x1p3", "1e", "1.5.5",
	"17179869184", "3.141592653589793", "0.30000000000000004", "1e17", "123456789012345678",
}

var edgeStrings = []string{
	"", "a", "b", "c", "aa", "ab", "abc", "m1", "hello world", "\x00", "a\x00b", "b\x00\xff", "\r\n",
	"foo\r\n", "\xff\xfe", "\x80", "\t", "*", "[a", "(b", "-", "+", "[", "(", "\xff", "é", "A",
	strings.Repeat("x", 65), strings.Repeat("ab", 40), strings.Repeat("z", 300),
}

func (g *gen) key() string {
	if g.n(60) == 0 {
		return g.pick("b\x00\xff", "", "k\r\n")
	}
	return diffKeys[g.n(len(diffKeys))]
}

func (g *gen) int() string {
	if g.n(3) == 0 {
		return strconv.Itoa(g.n(21) - 10)
	}
	return edgeInts[g.n(len(edgeInts))]
}

func (g *gen) float() string {
	switch g.n(4) {
	case 0:
		return g.int()
	case 1:
		return strconv.FormatFloat(float64(g.n(2000)-1000)/8, 'g', -1, 64)
	}
	return edgeFloats[g.n(len(edgeFloats))]
}

func (g *gen) value() string {
	switch g.n(4) {
	case 0:
		return g.int()
	case 1:
		return g.float()
	}
	return edgeStrings[g.n(len(edgeStrings))]
}

// small returns a small index, sometimes negative or out of range.
func (g *gen) small() string {
	if g.n(8) == 0 {
		return g.int()
	}
	return strconv.Itoa(g.n(13) - 6)
}

func (g *gen) many(k int, f func() string) []string {
	out := make([]string, k)
	for i := range out {
		out[i] = f()
	}
	return out
}

func (g *gen) keys(max int) []string { return g.many(1+g.n(max), g.key) }

// expireArg returns an expiry time that is deterministic on two servers
// a few milliseconds apart: far future, past, or invalid; never a short
// positive one.
func (g *gen) expireArg(abs, ms bool) string {
	if abs {
		far := "4000000000"
		if ms {
			far = "4000000000000"
		}
		return g.pick(far, "1", "0", "-1", "9223372036854775807", "abc", "1.5", "100000000000")
	}
	if ms {
		return g.pick("100000000", "0", "-5", "9223372036854775807", "9223372036854775", "abc", "3600000")
	}
	return g.pick("100000", "0", "-5", "9223372036854775807", "9223372036854775", "abc", "3600", " 10")
}

// futureArg is expireArg for SET's EXAT and PXAT, without past times: SET
// stores a key whose deadline has passed, and DBSIZE counts it until
// Redis's active expiry, which runs on its own clock, reclaims it.
func (g *gen) futureArg(ms bool) string {
	if ms {
		return g.pick("4000000000000", "9223372036854775807", "abc", "0", "-1")
	}
	return g.pick("4000000000", "9223372036854775807", "abc", "0", "1.5")
}

func cmd(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case []string:
			out = append(out, v...)
		}
	}
	return out
}

func (g *gen) stringCmd(inner bool) ([]string, string) {
	k, v := g.key(), g.value()
	switch g.n(24) {
	case 0, 1:
		var opts []string
		for range g.n(3) {
			switch g.n(9) {
			case 0:
				opts = append(opts, "EX", g.expireArg(false, false))
			case 1:
				opts = append(opts, "PX", g.expireArg(false, true))
			case 2:
				opts = append(opts, "EXAT", g.futureArg(false))
			case 3:
				opts = append(opts, "PXAT", g.futureArg(true))
			default:
				opts = append(opts, g.pick("NX", "XX", "GET", "KEEPTTL", "nx", "BOGUS"))
			}
		}
		return cmd("SET", k, v, opts), ""
	case 2:
		return cmd("GET", k), ""
	case 3:
		return cmd("SETNX", k, v), ""
	case 4:
		return cmd(g.pick("SETEX", "PSETEX"), k, g.pick(g.expireArg(false, false), "100000"), v), ""
	case 5:
		return cmd("MGET", g.keys(4)), ""
	case 6:
		args := []string{g.pick("MSET", "MSETNX")}
		for range 1 + g.n(3) {
			args = append(args, g.key(), g.value())
		}
		return args, ""
	case 7:
		return cmd("GETSET", k, v), ""
	case 8:
		return cmd("GETDEL", k), ""
	case 9:
		switch g.n(5) {
		case 0:
			return cmd("GETEX", k), ""
		case 1:
			return cmd("GETEX", k, "PERSIST"), ""
		case 2:
			return cmd("GETEX", k, g.pick("EX", "PX"), g.expireArg(false, false)), ""
		case 3:
			return cmd("GETEX", k, g.pick("EXAT", "PXAT"), g.expireArg(true, false)), ""
		}
		return cmd("GETEX", k, "EX", "10", "PERSIST"), ""
	case 10, 11:
		return cmd(g.pick("INCR", "DECR"), k), ""
	case 12, 13:
		return cmd(g.pick("INCRBY", "DECRBY"), k, g.int()), ""
	case 14, 15:
		return cmd("INCRBYFLOAT", k, g.float()), ""
	case 16:
		return cmd("APPEND", k, v), ""
	case 17:
		return cmd("STRLEN", k), ""
	case 18, 19:
		return cmd("GETRANGE", k, g.small(), g.small()), ""
	case 20:
		return cmd("SETRANGE", k, g.pick("0", "1", "3", "10", "-1", "536870912", "abc", "99"), v), ""
	case 21:
		return cmd("SET", k, g.int()), ""
	case 22:
		return cmd("SET", k, g.float()), ""
	}
	return cmd("GET", k), ""
}

func (g *gen) keysCmd(inner bool) ([]string, string) {
	k := g.key()
	r := g.n(26)
	if inner && r >= 12 && r <= 15 {
		r = 16
	}
	switch r {
	case 0, 1:
		return cmd(g.pick("DEL", "UNLINK"), g.keys(3)), ""
	case 2:
		return cmd(g.pick("EXISTS", "TOUCH"), g.keys(4)), ""
	case 3:
		return cmd("TYPE", k), ""
	case 4:
		return cmd("KEYS", g.pick("*", "k*", "k[1-3]", "?", "*\\", "k[", "[^k]*", "*2")), "sort"
	case 5:
		args := cmd("SCAN", g.pick("0", "0", "1", "abc", "-1"))
		if g.chance(0.5) {
			args = append(args, "MATCH", g.pick("*", "k*", "k[12]"))
		}
		if g.chance(0.5) {
			args = append(args, "COUNT", g.pick("100", "1000", "0", "-1", "abc"))
		}
		if g.chance(0.3) {
			args = append(args, "TYPE", g.pick("string", "hash", "zset", "set", "bogus"))
		}
		return args, "scan"
	case 6:
		return cmd(g.pick("RENAME", "RENAMENX"), k, g.key()), ""
	case 7:
		args := cmd("COPY", k, g.key())
		if g.chance(0.5) {
			args = append(args, "REPLACE")
		}
		if g.chance(0.2) {
			args = append(args, "DB", g.pick("0", "1", "99", "abc"))
		}
		return args, ""
	case 8, 9:
		args := cmd(g.pick("EXPIRE", "PEXPIRE"), k, g.expireArg(false, g.chance(0.5)))
		if g.chance(0.4) {
			args = append(args, g.pick("NX", "XX", "GT", "LT", "nx", "BAD"))
		}
		return args, ""
	case 10, 11:
		ms := g.chance(0.5)
		name := "EXPIREAT"
		if ms {
			name = "PEXPIREAT"
		}
		args := cmd(name, k, g.expireArg(true, ms))
		if g.chance(0.4) {
			args = append(args, g.pick("NX", "XX", "GT", "LT"))
		}
		return args, ""
	case 12:
		// After a relative EXPIRE these read the clock.
		return cmd("EXPIRETIME", k), "approx"
	case 13:
		return cmd("PEXPIRETIME", k), "approx"
	case 14:
		return cmd("TTL", k), "approx"
	case 15:
		return cmd("PTTL", k), "approx"
	case 16:
		return cmd("PERSIST", k), ""
	case 17, 18:
		if inner {
			// Inside EXEC, Redis counts the queued command's argument
			// among a value's references (docs/differential.md).
			return cmd("OBJECT", "ENCODING", k), ""
		}
		return cmd("OBJECT", g.pick("ENCODING", "REFCOUNT", "encoding"), k), ""
	case 19:
		return cmd("DBSIZE"), ""
	case 20:
		return cmd(g.pick("NOSUCH", "GETT", "xadd "), g.value()), ""
	case 21:
		return cmd("OBJECT", g.pick("FOO", "HELP", "FREQ"), k), ""
	}
	return cmd("EXISTS", k), ""
}

func (g *gen) field() string {
	if g.n(5) == 0 {
		return g.value()
	}
	return g.pick("f1", "f2", "f3", "f4")
}

func (g *gen) hashCmd(inner bool) ([]string, string) {
	k := g.key()
	switch g.n(20) {
	case 0, 1, 2:
		args := cmd(g.pick("HSET", "HMSET"), k)
		for range 1 + g.n(3) {
			args = append(args, g.field(), g.value())
		}
		return args, ""
	case 3:
		return cmd("HSETNX", k, g.field(), g.value()), ""
	case 4, 5:
		return cmd("HGET", k, g.field()), ""
	case 6:
		return cmd("HMGET", k, g.many(1+g.n(3), g.field)), ""
	case 7:
		return cmd("HGETALL", k), "sort"
	case 8:
		return cmd("HDEL", k, g.many(1+g.n(2), g.field)), ""
	case 9:
		return cmd("HEXISTS", k, g.field()), ""
	case 10:
		return cmd("HLEN", k), ""
	case 11:
		return cmd(g.pick("HKEYS", "HVALS"), k), "sort"
	case 12, 13:
		return cmd("HINCRBY", k, g.field(), g.int()), ""
	case 14, 15:
		return cmd("HINCRBYFLOAT", k, g.field(), g.float()), ""
	case 16:
		return cmd("HSTRLEN", k, g.field()), ""
	case 17:
		switch g.n(3) {
		case 0:
			return cmd("HRANDFIELD", k), "type"
		case 1:
			return cmd("HRANDFIELD", k, g.pick("-3", "-1", "0", "abc")), "type"
		}
		return cmd("HRANDFIELD", k, g.pick("100", "5"), "WITHVALUES"), "sort"
	case 18:
		args := cmd("HSCAN", k, g.pick("0", "0", "7", "x"))
		if g.chance(0.4) {
			args = append(args, "MATCH", g.pick("f*", "*1", "*"))
		}
		if g.chance(0.3) {
			args = append(args, "COUNT", g.pick("1000", "0", "x"))
		}
		return args, "scan"
	}
	return cmd("HGET", k, g.field()), ""
}

func (g *gen) member() string {
	if g.n(3) == 0 {
		return g.value()
	}
	return g.pick("a", "b", "c", "1", "2", "-3", "m1", "10")
}

func (g *gen) setCmd(inner bool) ([]string, string) {
	k := g.key()
	switch g.n(10) {
	case 0, 1, 2:
		return cmd("SADD", k, g.many(1+g.n(4), g.member)), ""
	case 3, 4:
		return cmd("SREM", k, g.many(1+g.n(2), g.member)), ""
	case 5:
		return cmd("SCARD", k), ""
	case 6:
		return cmd("SMEMBERS", k), "sort"
	case 7:
		return cmd("SISMEMBER", k, g.member()), ""
	case 8:
		return cmd("SMISMEMBER", k, g.many(1+g.n(3), g.member)), ""
	}
	return cmd("SCARD", k), ""
}

func (g *gen) score() string {
	if g.n(2) == 0 {
		return strconv.Itoa(g.n(11) - 5)
	}
	return g.float()
}

func (g *gen) scoreRange() string {
	switch g.n(6) {
	case 0:
		return g.pick("-inf", "+inf", "inf", "(-inf", "(1", "(abc", "abc", "(")
	case 1:
		return "(" + g.score()
	}
	return g.score()
}

func (g *gen) lexRange() string {
	switch g.n(4) {
	case 0:
		return g.pick("-", "+", "[", "(", "a", "", "[\xff")
	case 1:
		return "(" + g.member()
	}
	return "[" + g.member()
}

func (g *gen) limit() []string {
	if g.chance(0.7) {
		return nil
	}
	return []string{"LIMIT", g.small(), g.small()}
}

func (g *gen) zsetCmd(inner bool) ([]string, string) {
	k := g.key()
	switch g.n(30) {
	case 0, 1, 2, 3:
		args := []string{"ZADD", k}
		for range g.n(2) {
			args = append(args, g.pick("NX", "XX", "GT", "LT", "CH", "INCR"))
		}
		for range 1 + g.n(3) {
			args = append(args, g.score(), g.member())
		}
		return args, ""
	case 4:
		return cmd("ZINCRBY", k, g.score(), g.member()), ""
	case 5:
		return cmd("ZREM", k, g.many(1+g.n(2), g.member)), ""
	case 6:
		return cmd("ZREMRANGEBYSCORE", k, g.scoreRange(), g.scoreRange()), ""
	case 7:
		return cmd("ZREMRANGEBYRANK", k, g.small(), g.small()), ""
	case 8:
		return cmd("ZREMRANGEBYLEX", k, g.lexRange(), g.lexRange()), "lex"
	case 9:
		args := cmd(g.pick("ZPOPMIN", "ZPOPMAX"), k)
		if g.chance(0.5) {
			args = append(args, g.small())
		}
		return args, ""
	case 10:
		return cmd("ZCARD", k), ""
	case 11:
		return cmd("ZSCORE", k, g.member()), ""
	case 12:
		return cmd("ZMSCORE", k, g.many(1+g.n(3), g.member)), ""
	case 13:
		return cmd("ZCOUNT", k, g.scoreRange(), g.scoreRange()), ""
	case 14:
		return cmd("ZLEXCOUNT", k, g.lexRange(), g.lexRange()), "lex"
	case 15:
		args := cmd(g.pick("ZRANK", "ZREVRANK"), k, g.member())
		return args, ""
	case 16, 17, 18:
		args := []string{"ZRANGE", k}
		mode := ""
		switch g.n(3) {
		case 0:
			args = append(args, g.small(), g.small())
		case 1:
			args = append(args, g.scoreRange(), g.scoreRange(), "BYSCORE")
		case 2:
			args = append(args, g.lexRange(), g.lexRange(), "BYLEX")
			mode = "lex"
		}
		if g.chance(0.3) {
			args = append(args, "REV")
		}
		args = append(args, g.limit()...)
		if g.chance(0.4) {
			args = append(args, "WITHSCORES")
		}
		return args, mode
	case 19, 20:
		args := cmd(g.pick("ZRANGEBYSCORE", "ZREVRANGEBYSCORE"), k, g.scoreRange(), g.scoreRange())
		if g.chance(0.4) {
			args = append(args, "WITHSCORES")
		}
		return append(args, g.limit()...), ""
	case 21, 22:
		args := cmd(g.pick("ZRANGEBYLEX", "ZREVRANGEBYLEX"), k, g.lexRange(), g.lexRange())
		return append(args, g.limit()...), "lex"
	case 23:
		args := cmd("ZREVRANGE", k, g.small(), g.small())
		if g.chance(0.4) {
			args = append(args, "WITHSCORES")
		}
		return args, ""
	case 24:
		if g.chance(0.5) {
			return cmd("ZRANDMEMBER", k), "type"
		}
		return cmd("ZRANDMEMBER", k, g.pick("-2", "0", "x", "1")), "type"
	case 25:
		args := cmd("ZSCAN", k, g.pick("0", "0", "5", "x"))
		if g.chance(0.3) {
			args = append(args, "MATCH", g.pick("*", "a*", "?"))
		}
		return args, "scan"
	}
	return cmd("ZRANGE", k, "0", "-1", "WITHSCORES"), ""
}

// transaction returns a MULTI/EXEC (or DISCARD) block, sometimes after a
// WATCH that a second connection may break.
func (g *gen) transaction() []op {
	var ops []op
	add := func(conn int, args ...string) {
		ops = append(ops, op{family: "transaction", conn: conn, args: args})
	}
	watched := g.chance(0.4)
	if watched {
		add(1, cmd("WATCH", g.keys(2))...)
		if g.chance(0.5) {
			add(2, g.innerCmd()...)
		}
	}
	if g.n(20) == 0 {
		add(1, g.pick("EXEC", "DISCARD", "UNWATCH"))
	}
	add(1, "MULTI")
	for range 1 + g.n(4) {
		switch g.n(20) {
		case 0:
			add(1, "MULTI")
		case 1:
			add(1, "WATCH", g.key())
		case 2:
			add(1, "NOSUCHCMD", "x")
		case 3:
			add(1, "GET")
		default:
			add(1, g.innerCmd()...)
		}
	}
	add(1, g.pick("EXEC", "EXEC", "EXEC", "DISCARD"))
	return ops
}

// innerCmd returns a command whose reply compares byte for byte wherever
// it lands (inside EXEC's array, or as a value in a script): no unordered,
// random or lex-over-skiplist replies.
func (g *gen) innerCmd() []string {
	for {
		args, mode := g.family().cmd(g, true)
		if mode == "" {
			return args
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

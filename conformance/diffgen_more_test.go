package conformance

import (
	"strconv"
	"strings"
)

// Generators for the families that landed after the first tester: lists
// (and the blocking commands in forms that cannot wait forever), set and
// sorted-set algebra, SORT, LCS/SUBSTR/MOVE, bitmaps, HyperLogLog and geo.
// They draw keys from the same five names as every other family, so each
// crosses every type (WRONGTYPE paths) and TYPE / OBJECT ENCODING (keys
// family) see every encoding.

// blockTimeout is a blocking command's timeout. A blocking command on an
// empty key waits for its timeout, so it is never 0 or huge (an "inner"
// command also runs on the second connection outside MULTI, see
// transaction): 1 ms, where ops run one at a time and nothing can arrive
// meanwhile, so the reply is the same nil on both servers; or a bad one.
func (g *gen) blockTimeout(inner bool) string {
	return g.pick("0.001", "0.001", "0.001", "-1", "abc", "0x")
}

func (g *gen) elem() string {
	if g.n(4) == 0 {
		return g.value()
	}
	return g.pick("a", "b", "c", "1", "2", "3", "10", "-3", "m1")
}

func (g *gen) side() string { return g.pick("LEFT", "RIGHT", "left", "RIGHT", "UP") }

func (g *gen) listCmd(inner bool) ([]string, string) {
	k := g.key()
	switch g.n(30) {
	case 0, 1, 2, 3:
		return cmd(g.pick("LPUSH", "RPUSH"), k, g.many(1+g.n(4), g.elem)), ""
	case 4:
		return cmd(g.pick("LPUSHX", "RPUSHX"), k, g.many(1+g.n(2), g.elem)), ""
	case 5, 6:
		args := cmd(g.pick("LPOP", "RPOP"), k)
		if g.chance(0.4) {
			args = append(args, g.pick("0", "1", "2", "5", "-1", "abc", "100"))
		}
		return args, ""
	case 7, 8:
		return cmd("LRANGE", k, g.small(), g.small()), ""
	case 9:
		return cmd("LINDEX", k, g.small()), ""
	case 10:
		return cmd("LLEN", k), ""
	case 11:
		return cmd("LSET", k, g.small(), g.elem()), ""
	case 12:
		return cmd("LINSERT", k, g.pick("BEFORE", "AFTER", "after", "MIDDLE"), g.elem(), g.elem()), ""
	case 13:
		return cmd("LREM", k, g.small(), g.elem()), ""
	case 14:
		return cmd("LTRIM", k, g.small(), g.small()), ""
	case 15, 16:
		args := cmd("LPOS", k, g.elem())
		for range g.n(3) {
			switch g.n(3) {
			case 0:
				args = append(args, "RANK", g.pick("1", "-1", "2", "-2", "0", "abc", "-9223372036854775808"))
			case 1:
				args = append(args, "COUNT", g.pick("0", "1", "2", "-1", "x"))
			default:
				args = append(args, "MAXLEN", g.pick("0", "1", "3", "-1"))
			}
		}
		return args, ""
	case 17, 18:
		return cmd("LMOVE", k, g.key(), g.side(), g.side()), ""
	case 19:
		return cmd("RPOPLPUSH", k, g.key()), ""
	case 20, 21:
		ks := g.keys(3)
		args := cmd("LMPOP", g.pick(strconv.Itoa(len(ks)), strconv.Itoa(len(ks)), "0", "-1", "9"), ks, g.pick("LEFT", "RIGHT", "MID"))
		if g.chance(0.5) {
			args = append(args, "COUNT", g.pick("1", "2", "10", "0", "-1"))
		}
		return args, ""
	case 22:
		return cmd(g.pick("BLPOP", "BRPOP"), g.keys(2), g.blockTimeout(inner)), ""
	case 23:
		return cmd("BLMOVE", k, g.key(), g.side(), g.side(), g.blockTimeout(inner)), ""
	case 24:
		return cmd("BRPOPLPUSH", k, g.key(), g.blockTimeout(inner)), ""
	case 25:
		ks := g.keys(2)
		args := cmd("BLMPOP", g.blockTimeout(inner), strconv.Itoa(len(ks)), ks, g.pick("LEFT", "RIGHT"))
		if g.chance(0.5) {
			args = append(args, "COUNT", g.pick("1", "3", "0"))
		}
		return args, ""
	}
	return cmd("LRANGE", k, "0", "-1"), ""
}

// setAlgebraCmd: replies of SINTER/SUNION/SDIFF and of SPOP/SRANDMEMBER
// with a count that covers the set follow the hash table's order, which
// depends on the process's hash seed: they compare sorted, and are not
// sent inside MULTI or scripts. SPOP without a count (or one smaller than
// the set) would make the two servers' states diverge: not sent.
func (g *gen) setAlgebraCmd(inner bool) ([]string, string) {
	k := g.key()
	r := g.n(14)
	if inner && (r <= 2 || r >= 10) {
		r = 3 + g.n(7)
	}
	switch r {
	case 0, 1, 2:
		return cmd(g.pick("SINTER", "SUNION", "SDIFF"), g.keys(3)), "sort"
	case 3, 4, 5:
		return cmd(g.pick("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"), g.key(), g.keys(3)), ""
	case 6:
		ks := g.keys(3)
		args := cmd("SINTERCARD", g.pick(strconv.Itoa(len(ks)), strconv.Itoa(len(ks)), "0", "-1", "5"), ks)
		if g.chance(0.4) {
			args = append(args, "LIMIT", g.pick("0", "1", "2", "-1", "x"))
		}
		return args, ""
	case 7, 8:
		return cmd("SMOVE", k, g.key(), g.member()), ""
	case 9:
		return cmd("SADD", k, g.many(1+g.n(6), g.member)), ""
	case 10:
		return cmd("SPOP", k, g.pick("100", "0", "-1", "x")), "sort"
	case 11:
		return cmd("SRANDMEMBER", k, g.pick("100", "0", "x")), "sort"
	case 12:
		return cmd("SRANDMEMBER", k, g.pick("-3", "-1")), "type"
	}
	return cmd("SMEMBERS", k), "sort"
}

func (g *gen) weights(n int) []string {
	return g.many(n, func() string {
		return g.pick("1", "2", "0", "-1", "0.5", "inf", "-inf", "nan", "x", "1e308")
	})
}

func (g *gen) zsetAlgebraCmd(inner bool) ([]string, string) {
	k := g.key()
	switch g.n(14) {
	case 0, 1, 2, 3:
		store := g.chance(0.5)
		name := g.pick("ZUNION", "ZINTER", "ZDIFF")
		ks := g.keys(3)
		args := []string{name}
		if store {
			args[0] += "STORE"
			args = append(args, g.key())
		}
		args = append(args, g.pick(strconv.Itoa(len(ks)), strconv.Itoa(len(ks)), strconv.Itoa(len(ks)), "0", "-1", "9", "x"))
		args = append(args, ks...)
		if name != "ZDIFF" && g.chance(0.4) {
			args = append(args, "WEIGHTS")
			args = append(args, g.weights(len(ks)+g.n(3)/2)...)
		}
		if name != "ZDIFF" && g.chance(0.4) {
			args = append(args, "AGGREGATE", g.pick("SUM", "MIN", "MAX", "max", "AVG"))
		}
		if !store && g.chance(0.5) {
			args = append(args, "WITHSCORES")
		}
		return args, ""
	case 4:
		ks := g.keys(3)
		args := cmd("ZINTERCARD", g.pick(strconv.Itoa(len(ks)), strconv.Itoa(len(ks)), "0", "-1"), ks)
		if g.chance(0.4) {
			args = append(args, "LIMIT", g.pick("0", "1", "2", "-1", "x"))
		}
		return args, ""
	case 5, 6:
		args := []string{"ZRANGESTORE", g.key(), k}
		mode := ""
		switch g.n(3) {
		case 0:
			args = append(args, g.small(), g.small())
		case 1:
			args = append(args, g.scoreRange(), g.scoreRange(), "BYSCORE")
		case 2:
			args = append(args, g.lexRange(), g.lexRange(), "BYLEX")
			mode = "lexsrc"
		}
		if g.chance(0.3) {
			args = append(args, "REV")
		}
		return append(args, g.limit()...), mode
	case 7, 8:
		ks := g.keys(3)
		args := cmd("ZMPOP", g.pick(strconv.Itoa(len(ks)), strconv.Itoa(len(ks)), "0", "x"), ks, g.pick("MIN", "MAX", "min", "MID"))
		if g.chance(0.5) {
			args = append(args, "COUNT", g.pick("1", "2", "10", "0", "-1"))
		}
		return args, ""
	case 9:
		return cmd(g.pick("BZPOPMIN", "BZPOPMAX"), g.keys(2), g.blockTimeout(inner)), ""
	case 10:
		ks := g.keys(2)
		args := cmd("BZMPOP", g.blockTimeout(inner), strconv.Itoa(len(ks)), ks, g.pick("MIN", "MAX"))
		if g.chance(0.5) {
			args = append(args, "COUNT", g.pick("1", "3", "0"))
		}
		return args, ""
	}
	args := []string{"ZADD", k}
	for range 1 + g.n(4) {
		args = append(args, g.score(), g.member())
	}
	return args, ""
}

// sortCmd: patterns reach the five keys through elements 1..5 ("k*"), so
// BY and GET read strings and hashes of every kind. Left out, because
// Redis's own answer is not deterministic:
//   - BY a pattern with ALPHA: ties stay in the order Redis's (partial)
//     quicksort leaves them, which differs between runs; not sent;
//   - on a set, BY nosort without STORE (the hash table's order), and
//     ALPHA over elements with a NUL byte (strcoll ties): skipped at top
//     level (skipSortTies); SORT is not sent inside MULTI or scripts;
//   - Redis 7.0 converts numbers with strtod without clearing errno, so a
//     numeric SORT after any command that left errno at ERANGE (an
//     overflowing tonumber, INCRBYFLOAT 1e309...) fails with "One or more
//     scores can't be converted into double" unless some system call
//     reset errno in between, which depends on timing. A top-level SORT
//     is preceded by GEORADIUS_RO on a missing key, which parses its
//     numbers with errno cleared.
func (g *gen) sortCmd(inner bool) ([]string, string) {
	if inner {
		return g.setAlgebraCmd(inner)
	}
	name := g.pick("SORT", "SORT", "SORT_RO")
	args := []string{name, g.key()}
	setOrder := false
	alpha := inner || g.chance(0.4)
	if !inner && g.chance(0.5) {
		by := g.pick("k*", "k*->f1", "k*->f2", "nosort", "*", "*->f1", "nokey", "k*->", "k[", "NOSORT")
		// A pattern without "*" means nosort too.
		setOrder = !strings.Contains(by, "*")
		// Ties between equal BY values under ALPHA are left in the order
		// of Redis's (partial) quicksort, which differs from run to run.
		alpha = alpha && setOrder
		args = append(args, "BY", by)
	}
	if g.chance(0.3) {
		args = append(args, "LIMIT", g.small(), g.small())
	}
	for range g.n(3) {
		args = append(args, "GET", g.pick("#", "k*", "k*->f1", "*", "*->f2", "#->f1", "nokey*"))
	}
	if g.chance(0.3) {
		args = append(args, g.pick("ASC", "DESC", "desc"))
	}
	if alpha {
		args = append(args, "ALPHA")
	}
	if g.chance(0.3) {
		args = append(args, "STORE", g.key())
	}
	if g.n(30) == 0 {
		args = append(args, g.pick("BOGUS", "LIMIT", "GET"))
	}
	if inner {
		return args, ""
	}
	if setOrder {
		return args, "noset"
	}
	return args, "errno"
}

// miscStringCmd: LCS, SUBSTR and MOVE.
func (g *gen) miscStringCmd(inner bool) ([]string, string) {
	k := g.key()
	switch g.n(8) {
	case 0, 1, 2:
		args := cmd("LCS", k, g.key())
		for range g.n(3) {
			switch g.n(4) {
			case 0:
				args = append(args, "LEN")
			case 1:
				args = append(args, "IDX")
			case 2:
				args = append(args, "MINMATCHLEN", g.pick("0", "1", "2", "-1", "x"))
			default:
				args = append(args, "WITHMATCHLEN")
			}
		}
		return args, ""
	case 3:
		return cmd("SET", k, g.pick("ohmytext", "mynewtext", "abcabc", "cba", "aXbXc", "xxabxx", strings.Repeat("ab", 20))), ""
	case 4, 5:
		return cmd("SUBSTR", k, g.small(), g.small()), ""
	}
	return cmd("MOVE", k, g.pick("1", "1", "0", "2", "16", "-1", "abc")), ""
}

func (g *gen) bitOffset() string {
	if g.n(10) == 0 {
		return g.pick("-1", "abc", "4294967296", "1.5", "")
	}
	return strconv.Itoa(g.n(70))
}

func (g *gen) bitfieldType() string {
	if g.n(10) == 0 {
		return g.pick("u64", "i65", "x8", "i0", "u0", "I8")
	}
	return g.pick("i1", "u1", "i4", "u4", "i8", "u8", "i13", "u16", "i32", "u32", "i63", "u63", "i64")
}

func (g *gen) bitfieldOffset() string {
	o := strconv.Itoa(g.n(40))
	if g.n(4) == 0 {
		return "#" + strconv.Itoa(g.n(6))
	}
	if g.n(20) == 0 {
		return g.pick("-1", "x", "#-1")
	}
	return o
}

func (g *gen) bitmapCmd(inner bool) ([]string, string) {
	k := g.key()
	switch g.n(16) {
	case 0, 1, 2:
		return cmd("SETBIT", k, g.bitOffset(), g.pick("1", "1", "0", "2", "-1", "x")), ""
	case 3, 4:
		return cmd("GETBIT", k, g.bitOffset()), ""
	case 5, 6:
		args := cmd("BITCOUNT", k)
		if g.chance(0.6) {
			args = append(args, g.small(), g.small())
			if g.chance(0.4) {
				args = append(args, g.pick("BYTE", "BIT", "bit", "WORD"))
			}
		}
		return args, ""
	case 7, 8:
		args := cmd("BITPOS", k, g.pick("0", "1", "2"))
		if g.chance(0.6) {
			args = append(args, g.small())
			if g.chance(0.6) {
				args = append(args, g.small())
				if g.chance(0.4) {
					args = append(args, g.pick("BYTE", "BIT", "bit"))
				}
			}
		}
		return args, ""
	case 9, 10:
		op := g.pick("AND", "OR", "XOR", "NOT", "and", "NAND")
		return cmd("BITOP", op, g.key(), g.keys(3)), ""
	case 11, 12, 13:
		name := g.pick("BITFIELD", "BITFIELD", "BITFIELD_RO")
		args := cmd(name, k)
		for range 1 + g.n(3) {
			switch g.n(5) {
			case 0, 1:
				args = append(args, "GET", g.bitfieldType(), g.bitfieldOffset())
			case 2:
				args = append(args, "SET", g.bitfieldType(), g.bitfieldOffset(), g.int())
			case 3:
				args = append(args, "INCRBY", g.bitfieldType(), g.bitfieldOffset(), g.int())
			default:
				args = append(args, "OVERFLOW", g.pick("WRAP", "SAT", "FAIL", "fail", "BAD"))
			}
		}
		return args, ""
	}
	return cmd("GET", k), ""
}

// hllCmd: HyperLogLog hashing is fixed (MurmurHash64A, seed 0xadc83b19),
// so registers, the cached cardinality and the sparse/dense encodings are
// compared byte for byte through GET.
func (g *gen) hllCmd(inner bool) ([]string, string) {
	k := g.key()
	switch g.n(12) {
	case 0, 1, 2:
		return cmd("PFADD", k, g.many(g.n(5), g.elem)), ""
	case 3:
		// Enough distinct elements now and then to reach the dense encoding.
		base := g.n(1000)
		n := g.pick("20", "300", "1500")
		c, _ := strconv.Atoi(n)
		els := make([]string, c)
		for i := range els {
			els[i] = "e" + strconv.Itoa(base+i)
		}
		return cmd("PFADD", k, els), ""
	case 4, 5, 6:
		return cmd("PFCOUNT", g.keys(3)), ""
	case 7, 8:
		return cmd("PFMERGE", k, g.many(g.n(3), g.key)), ""
	case 9, 10:
		return cmd("GET", k), ""
	}
	return cmd(g.pick("APPEND", "SETRANGE"), k, g.pick("x", "0")), ""
}

func (g *gen) lonLat() []string {
	if g.n(12) == 0 {
		return []string{g.pick("181", "-180.0001", "0", "x", "nan", "inf"), g.pick("85.06", "-86", "0", "x", "91")}
	}
	pts := [][2]string{
		{"13.361389", "38.115556"}, {"15.087269", "37.502669"}, {"0", "0"}, {"-122.4194", "37.7749"},
		{"179.9999", "85.05"}, {"-180", "-85.05112878"}, {"2.3522", "48.8566"}, {"13.5", "38"},
	}
	p := pts[g.n(len(pts))]
	return p[:]
}

func (g *gen) geoUnit() string { return g.pick("m", "km", "mi", "ft", "KM", "yd") }

func (g *gen) geoSearchTail(allowStore bool) []string {
	var args []string
	if g.chance(0.5) {
		args = append(args, "FROMMEMBER", g.member())
	} else {
		args = append(args, "FROMLONLAT")
		args = append(args, g.lonLat()...)
	}
	if g.chance(0.5) {
		args = append(args, "BYRADIUS", g.pick("100", "200", "5000", "0", "-1", "x"), g.geoUnit())
	} else {
		args = append(args, "BYBOX", g.pick("400", "10000", "0"), g.pick("400", "300", "-1"), g.geoUnit())
	}
	if g.chance(0.7) {
		args = append(args, g.pick("ASC", "DESC"))
	}
	if g.chance(0.3) {
		args = append(args, "COUNT", g.pick("1", "2", "0", "-1"))
		if g.chance(0.3) {
			args = append(args, "ANY")
		}
	}
	if !allowStore {
		for _, w := range []string{"WITHCOORD", "WITHDIST", "WITHHASH"} {
			if g.chance(0.3) {
				args = append(args, w)
			}
		}
	}
	return args
}

func (g *gen) geoCmd(inner bool) ([]string, string) {
	k := g.key()
	switch g.n(16) {
	case 0, 1, 2, 3:
		args := cmd("GEOADD", k)
		if g.chance(0.2) {
			args = append(args, g.pick("NX", "XX", "CH", "GT"))
		}
		for range 1 + g.n(3) {
			args = append(args, g.lonLat()...)
			args = append(args, g.member())
		}
		return args, ""
	case 4, 5:
		args := cmd("GEODIST", k, g.member(), g.member())
		if g.chance(0.5) {
			args = append(args, g.geoUnit())
		}
		return args, ""
	case 6:
		return cmd("GEOHASH", k, g.many(1+g.n(3), g.member)), ""
	case 7:
		return cmd("GEOPOS", k, g.many(1+g.n(3), g.member)), ""
	case 8, 9, 10:
		return cmd("GEOSEARCH", k, g.geoSearchTail(false)), ""
	case 11:
		args := cmd("GEOSEARCHSTORE", g.key(), k, g.geoSearchTail(true))
		if g.chance(0.3) {
			args = append(args, "STOREDIST")
		}
		return args, ""
	case 12, 13:
		args := []string{g.pick("GEORADIUS", "GEORADIUS_RO"), k}
		args = append(args, g.lonLat()...)
		args = append(args, g.pick("100", "200", "5000", "-1"), g.geoUnit())
		return append(args, g.radiusOpts(args[0] == "GEORADIUS")...), ""
	case 14:
		args := cmd(g.pick("GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO"), k, g.member(), g.pick("100", "200", "5000"), g.geoUnit())
		return append(args, g.radiusOpts(args[0] == "GEORADIUSBYMEMBER")...), ""
	}
	return cmd("ZRANGE", k, "0", "-1", "WITHSCORES"), ""
}

func (g *gen) radiusOpts(store bool) []string {
	var args []string
	for _, w := range []string{"WITHCOORD", "WITHDIST", "WITHHASH"} {
		if g.chance(0.25) {
			args = append(args, w)
		}
	}
	if g.chance(0.6) {
		args = append(args, g.pick("ASC", "DESC"))
	}
	if g.chance(0.3) {
		args = append(args, "COUNT", g.pick("1", "2", "0"))
	}
	if g.chance(0.2) {
		args = append(args, g.pick("STORE", "STOREDIST", "STORE"), g.key())
	}
	return args
}

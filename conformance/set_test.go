package conformance

import (
	"fmt"
	"strings"
	"testing"
)

func TestSet(t *testing.T) {
	var ints strings.Builder
	ints.WriteString("SADD big")
	for i := range 512 {
		fmt.Fprintf(&ints, " %d", 1000-i)
	}
	runCases(t, []tcase{
		{"intset", []string{
			"SADD s 3 1 2 -5 1", "SMEMBERS s", "SCARD s", "OBJECT ENCODING s", "TYPE s", "SADD s 10 2", "SMEMBERS s",
			"SADD n 9223372036854775807 -9223372036854775808 0", "SMEMBERS n", "OBJECT ENCODING n",
			"SISMEMBER s 3", "SISMEMBER s 4", "SISMEMBER s 03", "SISMEMBER s a", "SMISMEMBER s 1 4 3 x",
		}},
		{"intset-limit", []string{
			ints.String(), "OBJECT ENCODING big", "SCARD big", "SADD big 7", "OBJECT ENCODING big",
			"SADD big 5000", "OBJECT ENCODING big", "SCARD big", "SISMEMBER big 1000", "SISMEMBER big 488",
		}},
		{"to-hashtable", []string{
			"SADD s 1 2", "SADD s 01", "OBJECT ENCODING s", "!sort SMEMBERS s", "SREM s 01", "OBJECT ENCODING s",
			"SADD n 1", "SADD n -0", "OBJECT ENCODING n", "SADD f 1 1.0", "OBJECT ENCODING f",
			"SADD h a b c", "OBJECT ENCODING h", "!sort SMEMBERS h", "SISMEMBER h b", "SMISMEMBER h a z c",
			`SADD h "" "bin\x00ary"`, `SISMEMBER h "bin\x00ary"`, `SISMEMBER h ""`, "SCARD h",
		}},
		{"srem", []string{
			"SADD s 1 2 3", "SREM s 1 1 99", "SREM s x", "SMEMBERS s", "SREM nokey a", "SREM s 2 3", "EXISTS s",
			"SADD t a b", "SREM t a b c", "EXISTS t", "TYPE t",
		}},
		{"missing", []string{
			"SCARD nokey", "SMEMBERS nokey", "SISMEMBER nokey a", "SMISMEMBER nokey a b", "EXISTS nokey",
		}},
		{"arity", []string{
			"SADD", "SADD s", "SREM s", "SCARD", "SCARD a b", "SMEMBERS", "SMEMBERS a b", "SISMEMBER s",
			"SISMEMBER s a b", "SMISMEMBER s",
		}},
		{"wrongtype", []string{
			"SET str x", "SADD str a", "SREM str a", "SCARD str", "SMEMBERS str", "SISMEMBER str a",
			"SMISMEMBER str a", "GET str", "HSET h a 1", "SADD h a", "SADD s a", "HGET s a",
		}},
	})
}

// memberCheck is a script that calls a random-reply command and answers
// how many members it returned, or the first that is not in the set at
// KEYS[1], so random picks compare deterministically.
const memberCheck = `"local r = redis.call(unpack(ARGV)) if type(r) ~= 'table' then r = {r} end ` +
	`for _, m in ipairs(r) do if redis.call('SISMEMBER', KEYS[1], m) == 0 then return 'not a member: ' .. m end end return #r"`

func TestSetRandom(t *testing.T) {
	big := "SADD big"
	for i := range 300 {
		big += fmt.Sprintf(" m%d", i)
	}
	runCases(t, []tcase{
		{"spop", []string{
			"SADD s 1 2 3 4 5", "!distinct SPOP s 2", "SCARD s", "!type SPOP s", "SCARD s", "SPOP s 0", "SCARD s",
			"!distinct SPOP s 10", "EXISTS s", "SPOP s", "SPOP s 3", "SPOP nokey", "SPOP nokey 0", "SPOP nokey 5",
			"SADD t 5 3 1", "SPOP t 3", "EXISTS t", "SADD t 5 3 1 a", "SREM t a", "OBJECT ENCODING t", "SPOP t 5",
			"SADD one x", "SPOP one", "EXISTS one",
			big, "!distinct SPOP big 10", "SCARD big", "!distinct SPOP big 250", "SCARD big", "!distinct SPOP big 1000", "EXISTS big",
		}},
		{"spop-errors", []string{
			"SADD s 1 2", "SPOP s -1", "SPOP s a", "SPOP s 1.5", "SPOP s 1 2", "SPOP", "SPOP nokey -1",
			"SET str x", "SPOP str", "SPOP str 0", "SPOP str 2", "SPOP str -1", "SCARD s",
		}},
		{"spop-members", []string{
			big, "EVAL " + memberCheck + " 1 big SRANDMEMBER big 5", "EVAL " + memberCheck + " 1 big SRANDMEMBER big -400",
			"EVAL " + memberCheck + " 1 big SRANDMEMBER big", "EVAL " + memberCheck + " 1 big SRANDMEMBER big 1000",
			"EVAL \"local p = redis.call('SPOP', KEYS[1], 40) for _, m in ipairs(p) do redis.call('SADD', KEYS[2], m) end " +
				"return {redis.call('SCARD', KEYS[1]), redis.call('SCARD', KEYS[2]), redis.call('SINTERCARD', 2, KEYS[1], KEYS[2])}\" 2 big popped",
			"SUNIONSTORE all big popped", "SCARD all",
		}},
		{"srandmember", []string{
			"SADD s 1 2 3 4 5", "SRANDMEMBER s 5", "SRANDMEMBER s 100", "!distinct SRANDMEMBER s 3", "!type SRANDMEMBER s -3",
			"!type SRANDMEMBER s -10", "!type SRANDMEMBER s", "!distinct SRANDMEMBER s 1", "!type SRANDMEMBER s -1",
			"SRANDMEMBER s 0", "SRANDMEMBER nokey", "SRANDMEMBER nokey 3", "SRANDMEMBER nokey -3", "SRANDMEMBER nokey 0",
			"SCARD s", big, "!distinct SRANDMEMBER big 10", "!distinct SRANDMEMBER big 200", "!sort SRANDMEMBER big 300",
			"!type SRANDMEMBER big -5", "SADD one a", "SRANDMEMBER one", "SRANDMEMBER one -3", "SRANDMEMBER one 3",
		}},
		{"srandmember-errors", []string{
			"SADD s 1", "SRANDMEMBER s a", "SRANDMEMBER s 1 2", "SRANDMEMBER s -9223372036854775808",
			"SRANDMEMBER s 9223372036854775808", "SRANDMEMBER s 1.0", "SRANDMEMBER", "SRANDMEMBER nokey x",
			"SET str x", "SRANDMEMBER str", "SRANDMEMBER str 1", "SRANDMEMBER str -1", "SRANDMEMBER str 0",
		}},
	})
}

func TestSetMoveAndAlgebra(t *testing.T) {
	runCases(t, []tcase{
		{"smove", []string{
			"SADD a 1 2 3", "SADD b x", "SMOVE a b 1", "SMEMBERS a", "!sort SMEMBERS b", "OBJECT ENCODING b",
			"SMOVE a b 9", "SMOVE a a 2", "SMOVE a a 9", "SMOVE a c 2", "SMEMBERS c", "OBJECT ENCODING c",
			"SMOVE a c 3", "EXISTS a", "SMOVE nokey c 2", "SMEMBERS c", "SMOVE c c 2",
			"SADD d y", "SMOVE d e y", "EXISTS d", "OBJECT ENCODING e", "SADD e 5", "SMOVE e f 5", "OBJECT ENCODING e",
			"SET str v", "SMOVE str c 2", "SMOVE c str 2", "SMOVE nokey str 2", "SMOVE c str 999", "SMEMBERS c",
			"SMOVE a", "SMOVE a b", "SMOVE a b c d",
		}},
		{"smove-ttl", []string{
			"SADD a 1 2", "SADD b 3", "EXPIRE b 100", "SMOVE a b 1", "TTL b", "EXPIRE a 100", "SMOVE a c 2", "EXISTS a", "TTL c",
		}},
		{"sinter", []string{
			"SADD a 1 2 3 4", "SADD b 2 3 4 5", "SADD c 3 4 6", "SINTER a b c", "SINTER a", "SINTER a b", "SINTER a nokey",
			"SINTER nokey a", "SINTER a a", "SADD h 3 4 x", "!sort SINTER h a", "!sort SINTER a h", "!sort SINTER h",
			"SINTERSTORE d a b c", "SMEMBERS d", "OBJECT ENCODING d", "SINTERSTORE d a nokey", "EXISTS d",
			"SINTERSTORE d a b", "EXPIRE d 100", "SINTERSTORE d a b", "TTL d", "SINTERSTORE a a b", "SMEMBERS a",
			"SINTERSTORE dst nokey", "EXISTS dst", "SADD x p q r", "SADD y q r s", "!sort SINTER x y", "SINTERSTORE z x y",
			"!sort SMEMBERS z", "OBJECT ENCODING z",
		}},
		{"sunion-sdiff", []string{
			"SADD a 1 2 3 4", "SADD b 2 3 4 5", "SADD c 3 4 6", "SUNION a b c", "SUNION a", "SUNION nokey", "SUNION a nokey",
			"SDIFF a b", "SDIFF a b c", "SDIFF b a", "SDIFF a nokey", "SDIFF nokey a", "SDIFF a a", "SDIFF a b a",
			"SUNIONSTORE u a b c", "SMEMBERS u", "OBJECT ENCODING u", "SDIFFSTORE d a b", "SMEMBERS d",
			"SDIFFSTORE d a a", "EXISTS d", "SUNIONSTORE u nokey", "EXISTS u", "SUNIONSTORE a a b", "SMEMBERS a",
			"SADD h x y 1", "!sort SUNION h a", "!sort SDIFF h a", "SREM h x y", "OBJECT ENCODING h", "SUNION h",
			"SUNIONSTORE hu h", "OBJECT ENCODING hu", "SMEMBERS hu", "SDIFFSTORE hd h nokey", "OBJECT ENCODING hd",
		}},
		{"intersect-big", []string{
			bigInts("a", 0, 600), bigInts("b", 300, 900), "SINTERCARD 2 a b", "SINTERSTORE i a b", "SCARD i",
			"OBJECT ENCODING i", "SDIFFSTORE d a b", "OBJECT ENCODING d", "SCARD d", "SUNIONSTORE u a b", "SCARD u",
			"OBJECT ENCODING u", "SINTERCARD 2 a b LIMIT 10", "SINTERCARD 2 a b LIMIT 0",
		}},
		// A big hashtable source is copied whole into an empty result, a
		// key given twice is added once: the result must still be its own
		// set, with Redis's encoding.
		{"sunion-big-copied", []string{
			bigInts("k", 0, 600), "SUNIONSTORE d k k", "SCARD d", "OBJECT ENCODING d", "SISMEMBER d 599",
			"SADD k x", "SISMEMBER d x", "SREM d 7", "SISMEMBER k 7", "SCARD k", "SCARD d",
			"SUNIONSTORE d2 k nokey k", "SCARD d2", "!sort SUNION k k nokey k", "SUNIONSTORE k k k", "SCARD k",
			"SADD s a b", "SUNIONSTORE u s k s", "SCARD u", "SUNIONSTORE u k s", "SCARD u", "SISMEMBER u a",
			"SDIFFSTORE df k s", "SCARD df", "OBJECT ENCODING df", "SISMEMBER df x", "SDIFFSTORE df k nokey", "SCARD df",
			bigInts("small", 0, 600), strings.Replace(bigInts("small", 0, 200), "SADD", "SREM", 1), "OBJECT ENCODING small", "SCARD small",
			"SUNIONSTORE si small small", "OBJECT ENCODING si", "SCARD si", "SDIFFSTORE sd small nokey", "OBJECT ENCODING sd",
			"SADD small y", "SUNIONSTORE sy small small", "OBJECT ENCODING sy", "SCARD sy",
		}},
		{"sintercard", []string{
			"SADD a 1 2 3 4", "SADD b 2 3 4 5", "SINTERCARD 2 a b", "SINTERCARD 1 a", "SINTERCARD 2 a nokey",
			"SINTERCARD 2 a b LIMIT 2", "SINTERCARD 2 a b LIMIT 0", "SINTERCARD 2 a b limit 100", "SINTERCARD 2 a b LIMIT 1 LIMIT 2",
			"SINTERCARD 0 a", "SINTERCARD -1 a", "SINTERCARD x a", "SINTERCARD 3 a b", "SINTERCARD 2 a b LIMIT",
			"SINTERCARD 2 a b LIMIT -1", "SINTERCARD 2 a b LIMIT x", "SINTERCARD 2 a b FOO 1", "SINTERCARD 1 a b",
			"SINTERCARD", "SINTERCARD 1", "SET str x", "SINTERCARD 2 a str", "SINTERCARD 2 nokey str",
			"SINTERCARD 2 str a LIMIT -1",
		}},
		{"algebra-errors", []string{
			"SADD a 1", "SET str x", "SINTER a str", "SINTER nokey str", "SUNION a str", "SDIFF a str", "SDIFF nokey str",
			"SINTERSTORE d a str", "SUNIONSTORE d str", "SDIFFSTORE d str a", "SINTERSTORE str a", "TYPE str",
			"SUNIONSTORE str a", "TYPE str", "SINTER", "SINTERSTORE d", "SUNION", "SDIFFSTORE d",
		}},
		{"multi-and-scripts", []string{
			"MULTI", "SADD a 1 2 3", "SADD b 3 4", "SINTER a b", "SUNIONSTORE u a b", "SMOVE a b 1", "SPOP a 5", "SINTERCARD 1 b", "EXEC",
			"EVAL \"return redis.call('SUNION', KEYS[1], KEYS[2])\" 2 b u",
			"EVAL \"return redis.call('SINTERCARD', 2, KEYS[1], KEYS[2], 'LIMIT', 1)\" 2 b u",
			"EVAL \"return redis.pcall('SINTERCARD', 0, KEYS[1])\" 1 b", "EVAL \"return redis.call('SPOP', KEYS[1], 10)\" 1 u",
			"EVAL \"return redis.call('SMOVE', KEYS[1], KEYS[2], 4)\" 2 b c", "SMEMBERS c",
			"EVAL_RO \"return redis.call('SPOP', KEYS[1])\" 1 c", "EVAL_RO \"return redis.call('SINTERCARD', 1, KEYS[1])\" 1 c",
			"EVAL_RO \"return redis.call('SRANDMEMBER', KEYS[1], 5)\" 1 c", "EVAL_RO \"return redis.call('SUNIONSTORE', KEYS[1], KEYS[1])\" 1 c",
		}},
	})
}

// bigInts returns an SADD of the integers [from, to).
func bigInts(key string, from, to int) string {
	var b strings.Builder
	b.WriteString("SADD " + key)
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, " %d", i)
	}
	return b.String()
}

func TestSetScan(t *testing.T) {
	runCases(t, []tcase{
		{"intset", []string{
			"SADD s 5 1 3 10 20", "SSCAN s 0", "SSCAN s 0 COUNT 1", "SSCAN s 0 MATCH 1*", "SSCAN s 0 match *0 count 100",
			"SSCAN s 7", "SSCAN nokey 0", "SSCAN nokey 0 COUNT 0", "SSCAN s 0 COUNT 0", "SSCAN s 0 COUNT x", "SSCAN s 0 MATCH",
			"SSCAN s 0 FOO bar", "SSCAN s 0 TYPE set", "SSCAN s x", "SSCAN s -1", "SSCAN s ' 1'", "SSCAN s 18446744073709551616",
			"SET str x", "SSCAN str 0", "SSCAN str x", "SSCAN", "SSCAN s",
		}},
		{"hashtable", []string{
			"SADD h a b c d e", "OBJECT ENCODING h", "EVAL \"local seen, cursor = {}, '0' repeat local r = redis.call('SSCAN', KEYS[1], cursor, 'COUNT', 2) " +
				"cursor = r[1] for _, m in ipairs(r[2]) do seen[#seen+1] = m end until cursor == '0' table.sort(seen) return seen\" 1 h",
			"EVAL \"local seen, cursor = {}, '0' repeat local r = redis.call('SSCAN', KEYS[1], cursor, 'MATCH', '[ace]') " +
				"cursor = r[1] for _, m in ipairs(r[2]) do seen[#seen+1] = m end until cursor == '0' table.sort(seen) return seen\" 1 h",
		}},
	})
}

package conformance

import (
	"fmt"
	"strings"
	"testing"
)

// encodingDefaults puts every encoding threshold back to Redis's default:
// each encoding case starts with it, and the test ends with it, so no other
// case runs under a changed threshold.
const encodingDefaults = "CONFIG SET hash-max-listpack-entries 512 hash-max-listpack-value 64 " +
	"zset-max-listpack-entries 128 zset-max-listpack-value 64 set-max-intset-entries 512 " +
	"list-max-listpack-size -2 list-compress-depth 0"

// runEncodingCases runs cases that change the encoding thresholds, each
// from the defaults, and restores the defaults on both servers afterwards.
func runEncodingCases(t *testing.T, cases []tcase) {
	t.Helper()
	t.Cleanup(func() { setEverywhere(t, encodingDefaults) })
	for i := range cases {
		cases[i].lines = append([]string{encodingDefaults}, cases[i].lines...)
	}
	runCases(t, cases)
}

// encodingParams are the thresholds, by both their names.
var encodingParams = []string{
	"hash-max-listpack-entries", "hash-max-ziplist-entries", "hash-max-listpack-value", "hash-max-ziplist-value",
	"zset-max-listpack-entries", "zset-max-ziplist-entries", "zset-max-listpack-value", "zset-max-ziplist-value",
	"set-max-intset-entries", "list-max-listpack-size", "list-max-ziplist-size", "list-compress-depth",
}

func TestEncodingConfig(t *testing.T) {
	var get, bad []string
	for _, p := range encodingParams {
		get = append(get, "CONFIG GET "+p)
		for _, v := range []string{"-1", "abc", "1.5", "", "9223372036854775808", "2147483648", "-2147483649", "1kb", "2k", "0x10", " 5", "+5", "007"} {
			bad = append(bad, fmt.Sprintf("CONFIG SET %s %q", p, v), "CONFIG GET "+p)
		}
	}
	runEncodingCases(t, []tcase{
		{"get", append([]string{"!sort CONFIG GET *-max-*", "!sort CONFIG GET *listpack*", "!sort CONFIG GET *ziplist*",
			"CONFIG GET list-compress-depth", "!sort CONFIG GET set-max-intset-entries list-max-ziplist-size"}, get...)},
		{"set-get", []string{
			"CONFIG SET hash-max-ziplist-entries 3 hash-max-ziplist-value 1kb", "!sort CONFIG GET hash-max-*",
			"CONFIG SET zset-max-listpack-entries 1024 zset-max-ziplist-value 1g", "!sort CONFIG GET zset-max-*",
			"CONFIG SET set-max-intset-entries 9223372036854775807", "CONFIG GET set-max-intset-entries",
			"CONFIG SET list-max-ziplist-size -2147483648", "CONFIG GET list-max-listpack-size",
			"CONFIG SET list-max-listpack-size 2147483647", "CONFIG GET list-max-ziplist-size",
			"CONFIG SET list-compress-depth 2147483647", "CONFIG GET list-compress-depth",
			"CONFIG SET list-compress-depth 0 list-compress-depth 1", "CONFIG SET list-compress-depth 1 list-max-ziplist-size x",
			"CONFIG GET list-compress-depth",
		}},
		{"bad-values", bad},
		{"arity", []string{"CONFIG SET zset-max-ziplist-entries", "CONFIG SET zset-max-ziplist-entries 1 2", "CONFIG GET zset-max-ziplist-entries"}},
		{"in-multi", []string{
			"MULTI", "ZADD a 1 x", "CONFIG SET zset-max-ziplist-entries 0 set-max-intset-entries 0 hash-max-ziplist-entries 0",
			"ZADD b 1 x", "SADD s 1", "HSET h f v", "OBJECT ENCODING a", "OBJECT ENCODING b", "OBJECT ENCODING s", "OBJECT ENCODING h",
			"CONFIG SET zset-max-ziplist-entries -1", "EXEC", "CONFIG GET zset-max-ziplist-entries",
			"EVAL \"return redis.call('CONFIG', 'SET', 'zset-max-ziplist-entries', '5')\" 0", "CONFIG GET zset-max-ziplist-entries",
		}},
	})
}

func TestEncodingZSet(t *testing.T) {
	long := strings.Repeat("m", 100)
	var many strings.Builder
	many.WriteString("ZADD big")
	for i := range 300 {
		fmt.Fprintf(&many, " %d %s%d", i%37, long, i)
	}
	runEncodingCases(t, []tcase{
		{"zero-entries", []string{
			"CONFIG SET zset-max-ziplist-entries 0", "ZADD z 1 a", "OBJECT ENCODING z", "ZRANGE z 0 -1 WITHSCORES",
			"ZINCRBY n 1 a", "OBJECT ENCODING n", "ZADD x XX 1 a", "EXISTS x", "GEOADD g 13.361389 38.115556 p", "OBJECT ENCODING g",
			"CONFIG SET zset-max-ziplist-entries 128", "ZADD z2 1 a", "OBJECT ENCODING z2", "ZADD z 2 b", "OBJECT ENCODING z",
			"ZUNIONSTORE u 1 z", "OBJECT ENCODING u", "ZRANGE u 0 -1 WITHSCORES",
		}},
		{"entries", []string{
			"CONFIG SET zset-max-listpack-entries 3", "ZADD z 1 a 2 b 3 c", "OBJECT ENCODING z", "ZADD z 1 a", "ZADD z 5 a", "OBJECT ENCODING z",
			"ZADD z 4 d", "OBJECT ENCODING z", "ZREM z a b c", "OBJECT ENCODING z", "ZRANGE z 0 -1 WITHSCORES",
			"ZADD w 1 a 2 b 3 c 4 d", "OBJECT ENCODING w", "ZADD v 1 a 2 b 3 c", "CONFIG SET zset-max-listpack-entries 2",
			"ZADD v 9 a", "OBJECT ENCODING v", "ZADD v 1 e", "OBJECT ENCODING v", "ZINCRBY y 1 a", "OBJECT ENCODING y",
		}},
		{"value", []string{
			"CONFIG SET zset-max-listpack-value 3", "ZADD z 1 abc", "OBJECT ENCODING z", "ZADD z 2 abcd", "OBJECT ENCODING z",
			"ZADD l 1 abcd", "OBJECT ENCODING l", "ZADD m 1 ab 2 abcdef", "OBJECT ENCODING m",
			"CONFIG SET zset-max-listpack-value 0", "ZADD e 1 a", "OBJECT ENCODING e", `ZADD f 1 ""`, "OBJECT ENCODING f",
			"CONFIG SET zset-max-listpack-value 64 zset-max-listpack-entries 128", "ZADD p 1 ab", "CONFIG SET zset-max-listpack-value 1",
			"ZADD p 2 ab", "OBJECT ENCODING p", "ZADD p 3 cd", "OBJECT ENCODING p",
		}},
		{"large-thresholds", []string{
			"CONFIG SET zset-max-listpack-entries 1024 zset-max-listpack-value 1024", many.String(), "OBJECT ENCODING big", "ZCARD big",
			"ZRANGE big 0 4 WITHSCORES", "ZRANGE big -3 -1", "ZREVRANGE big 0 2 WITHSCORES", "ZRANK big " + long + "7", "ZREVRANK big " + long + "7",
			"ZSCORE big " + long + "299", "ZCOUNT big 3 5", "ZRANGEBYSCORE big 36 +inf LIMIT 0 3", "ZLEXCOUNT big - +",
			"ZREM big " + long + "0", "ZCARD big", "ZPOPMIN big 2", "ZPOPMAX big", "ZREMRANGEBYRANK big 0 9", "ZCARD big", "ZMSCORE big " + long + "1 x",
			"ZADD big 1 " + strings.Repeat("x", 1024), "OBJECT ENCODING big", "ZADD big 1 " + strings.Repeat("x", 1025), "OBJECT ENCODING big",
			"ZCARD big", "ZRANGE big 0 2",
		}},
		{"count-past-255", []string{
			"CONFIG SET zset-max-listpack-entries 2000", "EVAL \"for i = 1, 600 do redis.call('ZADD', KEYS[1], i, 'm' .. i) end\" 1 z",
			"OBJECT ENCODING z", "ZCARD z", "ZREMRANGEBYRANK z 0 399", "ZCARD z", "ZRANGE z 0 1", "ZREM z m401 m402 nope", "ZCARD z",
			"ZREMRANGEBYSCORE z 0 500", "ZCARD z", "ZREVRANGE z 0 1", "ZADD z 1 a", "ZCARD z", "OBJECT ENCODING z",
			"ZREMRANGEBYRANK z 0 -1", "EXISTS z",
		}},
		{"store-forms", []string{
			"CONFIG SET zset-max-listpack-entries 2", "ZADD a 1 x 2 y 3 z", "OBJECT ENCODING a", "ZADD b 1 x",
			"ZINTERSTORE i 2 a b", "OBJECT ENCODING i", "ZUNIONSTORE u 2 a b", "OBJECT ENCODING u", "ZDIFFSTORE d 2 a b", "OBJECT ENCODING d",
			"ZRANGESTORE r a 0 1", "OBJECT ENCODING r", "ZRANGESTORE r a 0 2", "OBJECT ENCODING r", "ZRANGESTORE r a 0 +inf BYSCORE LIMIT 0 1", "OBJECT ENCODING r",
			"CONFIG SET zset-max-listpack-entries 0", "ZRANGESTORE r a 0 0", "OBJECT ENCODING r", "ZRANGESTORE r a (0 +inf BYSCORE LIMIT 0 1", "OBJECT ENCODING r",
			"CONFIG SET zset-max-listpack-entries 128 zset-max-listpack-value 1", "ZADD c 1 aa 2 b", "OBJECT ENCODING c", "ZREM c aa",
			"OBJECT ENCODING c", "ZUNIONSTORE c2 1 c", "OBJECT ENCODING c2", "ZINTERSTORE c3 2 a c", "EXISTS c3",
			"GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", "OBJECT ENCODING g",
			"GEOSEARCHSTORE gs g FROMLONLAT 15 37 BYRADIUS 200 km ASC", "OBJECT ENCODING gs",
			"CONFIG SET zset-max-listpack-value 64", "GEOSEARCHSTORE gs g FROMLONLAT 15 37 BYRADIUS 200 km ASC STOREDIST", "OBJECT ENCODING gs",
			"GEORADIUS g 15 37 200 km STORE gr", "OBJECT ENCODING gr",
		}},
		{"copy-sort", []string{
			"CONFIG SET zset-max-listpack-entries 2", "ZADD a 1 x 2 y 3 z", "ZREM a x", "OBJECT ENCODING a", "COPY a b", "OBJECT ENCODING b",
			"ZADD c 1 x", "CONFIG SET zset-max-listpack-entries 0", "COPY c d", "OBJECT ENCODING d", "SORT c ALPHA", "OBJECT ENCODING c",
		}},
		{"dump-restore", []string{
			"CONFIG SET zset-max-listpack-value 200", "ZADD z 1 " + long + " 2.5 b -3 c", "OBJECT ENCODING z", "DUMP z",
			"CONFIG SET zset-max-listpack-value 64", "RESTORE z2 0 \"\\x11\\x00\"", "DEL z2",
			"EVAL \"redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1])) return redis.call('OBJECT', 'ENCODING', KEYS[2])\" 2 z z2",
			"ZRANGE z2 0 -1 WITHSCORES",
			"CONFIG SET zset-max-listpack-entries 2",
			"EVAL \"redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1])) return redis.call('OBJECT', 'ENCODING', KEYS[2])\" 2 z z3",
			"ZADD s 1 a 2 b 3 c 4 d", "OBJECT ENCODING s", "DUMP s", "ZREM s a b", "CONFIG SET zset-max-listpack-entries 128",
			"EVAL \"redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1])) return redis.call('OBJECT', 'ENCODING', KEYS[2])\" 2 s s2",
			"DUMP s2", "ZRANGE s2 0 -1 WITHSCORES",
			"CONFIG SET zset-max-listpack-value 1",
			"EVAL \"redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1])) return redis.call('OBJECT', 'ENCODING', KEYS[2])\" 2 s s3",
		}},
	})
}

// restoreEncoding is a script that copies KEYS[1] to KEYS[2] through DUMP
// and RESTORE, and answers the copy's encoding.
const restoreEncoding = "EVAL \"redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1])) return redis.call('OBJECT', 'ENCODING', KEYS[2])\" 2 "

func TestEncodingHash(t *testing.T) {
	runEncodingCases(t, []tcase{
		{"zero-entries", []string{
			"CONFIG SET hash-max-ziplist-entries 0", "HSET h f v", "OBJECT ENCODING h", "HSETNX n f v", "OBJECT ENCODING n",
			"HINCRBY i f 1", "OBJECT ENCODING i", "HINCRBYFLOAT fl f 1.5", "OBJECT ENCODING fl", "HGETALL h",
		}},
		{"entries", []string{
			"CONFIG SET hash-max-listpack-entries 2", "HSET h a 1 b 2", "OBJECT ENCODING h", "HSET h a 3", "OBJECT ENCODING h",
			"HSET h c 3", "OBJECT ENCODING h", "HDEL h a b", "OBJECT ENCODING h", "HGETALL h",
			"HSET u a 1 b 2", "CONFIG SET hash-max-listpack-entries 1", "HGET u a", "OBJECT ENCODING u", "HSET u a 5", "OBJECT ENCODING u",
			"HSET v a 1", "CONFIG SET hash-max-listpack-entries 2", "HSET v b 2", "CONFIG SET hash-max-listpack-entries 1",
			"HINCRBY v a 1", "OBJECT ENCODING v", "HSET w a 1 b 2", "HSETNX w a 2", "OBJECT ENCODING w", "HSETNX w c 3", "OBJECT ENCODING w",
		}},
		{"value", []string{
			"CONFIG SET hash-max-listpack-value 3", "HSET h abc xyz", "OBJECT ENCODING h", "HSET h abc wxyz", "OBJECT ENCODING h",
			"HSET k abcd 1", "OBJECT ENCODING k", "HSET m a 1 b 2 c 1234", "OBJECT ENCODING m", "!sort HGETALL m",
			"HSET i f 99", "HINCRBY i f 900", "OBJECT ENCODING i", "HINCRBY i f 1", "OBJECT ENCODING i",
			"HSET fl f 1", "HINCRBYFLOAT fl f 0.5", "OBJECT ENCODING fl", "HINCRBYFLOAT fl f 0.25", "OBJECT ENCODING fl",
			"HSET ok a 1", "CONFIG SET hash-max-listpack-value 0", "HGET ok a", "OBJECT ENCODING ok", "HDEL ok a", "EXISTS ok",
			"HSET e a 1", "OBJECT ENCODING e", "CONFIG SET hash-max-listpack-value 100", `HSET g "" ""`, "OBJECT ENCODING g",
			"HSET big " + strings.Repeat("f", 100) + " " + strings.Repeat("v", 100), "OBJECT ENCODING big", "HGETALL big",
			"HINCRBYFLOAT big x 1e80", "OBJECT ENCODING big", "HGET big x",
		}},
		{"dump-restore", []string{
			"CONFIG SET hash-max-listpack-value 200", "HSET h f " + strings.Repeat("v", 150) + " n 12 neg -7", "OBJECT ENCODING h", "DUMP h",
			"CONFIG SET hash-max-listpack-value 64", restoreEncoding + "h h2", "HGETALL h2", "DUMP h2",
			"CONFIG SET hash-max-listpack-entries 2", restoreEncoding + "h h3", "!sort HGETALL h3",
			"HSET small a 1", "OBJECT ENCODING small", restoreEncoding + "small s2",
			"CONFIG SET hash-max-listpack-entries 0", restoreEncoding + "small s3",
		}},
		{"copy", []string{
			"CONFIG SET hash-max-listpack-entries 1", "HSET h a 1", "COPY h h2", "CONFIG SET hash-max-listpack-entries 0",
			"COPY h h3", "OBJECT ENCODING h3", "HSET h2 a 2", "OBJECT ENCODING h2",
		}},
	})
}

func TestEncodingSet(t *testing.T) {
	runEncodingCases(t, []tcase{
		{"zero-entries", []string{
			"CONFIG SET set-max-intset-entries 0", "SADD s 1", "OBJECT ENCODING s", "SADD t a", "OBJECT ENCODING t",
			"SMEMBERS s", "SMOVE s u 1", "OBJECT ENCODING u", "SADD x 1 2", "SINTERSTORE y x x", "OBJECT ENCODING y", "!sort SMEMBERS y",
		}},
		{"entries", []string{
			"CONFIG SET set-max-intset-entries 3", "SADD s 3 1 2", "OBJECT ENCODING s", "SADD s 2", "OBJECT ENCODING s",
			"SADD s 4", "OBJECT ENCODING s", "SREM s 1 2 3", "OBJECT ENCODING s", "SMEMBERS s",
			"SADD a 5 1 3", "CONFIG SET set-max-intset-entries 2", "SADD a 1", "OBJECT ENCODING a", "SADD a 2", "OBJECT ENCODING a",
			"SADD b 1 2", "SADD c 2 3", "SUNIONSTORE u b c", "OBJECT ENCODING u", "SINTERSTORE i b c", "OBJECT ENCODING i", "SMEMBERS i",
			"SDIFFSTORE d b c", "OBJECT ENCODING d", "!sort SUNION b c", "SINTER b c",
			"CONFIG SET set-max-intset-entries 9223372036854775807", "SADD big 1 2 3 4 5 6", "OBJECT ENCODING big",
		}},
		{"spop-rebuild", []string{
			"CONFIG SET set-max-intset-entries 5", "SADD s 1 2 3 4 5 6 7 8 9 10 11 12", "OBJECT ENCODING s",
			"!distinct SPOP s 10", "OBJECT ENCODING s", "SCARD s",
			"SADD t 1 2 3 4 5 6 7 8 9 10 11 12", "!distinct SPOP t 9", "OBJECT ENCODING t", "SCARD t",
			"SADD m 1 2 3 4 5 6 7 8 9 10 11 a", "SREM m a", "!distinct SPOP m 10", "OBJECT ENCODING m",
			"SADD w 1 70000 2 3", "SREM w 70000", "!distinct SPOP w 3", "OBJECT ENCODING w",
			"SADD v 100000 1 2 3 4 5", "SREM v 100000", "SPOP v 5", "DEL v", "SADD v 1 2 3 4 100000", "SREM v 100000", "DUMP v",
			"SADD z 1 2 3 4 5 100000", "SREM z 100000", "!distinct SPOP z 4", "EXISTS z", "SCARD z",
		}},
		{"dump-restore", []string{
			"SADD s 1 2 3 4", "CONFIG SET set-max-intset-entries 3", restoreEncoding + "s s2", "SMEMBERS s",
			"CONFIG SET set-max-intset-entries 4", restoreEncoding + "s s3", "DUMP s3",
			"SADD h 1 2 3 4 5", "OBJECT ENCODING h", "CONFIG SET set-max-intset-entries 512", restoreEncoding + "h h2",
			"CONFIG SET set-max-intset-entries 0", restoreEncoding + "s s4",
		}},
	})
}

func TestEncodingList(t *testing.T) {
	push := func(key string, n, size int) string {
		var b strings.Builder
		b.WriteString("RPUSH " + key)
		for i := range n {
			fmt.Fprintf(&b, " %s%d", strings.Repeat("e", size), i)
		}
		return b.String()
	}
	var fills []string
	for _, fill := range []string{"-1", "-2", "-3", "-4", "-5", "-6", "-100", "0", "1", "4", "100", "1000", "32767", "40000"} {
		fills = append(fills, "CONFIG SET list-max-listpack-size "+fill, "DEL l", push("l", 700, 30), "OBJECT ENCODING l", "DUMP l",
			"DEL s", push("s", 50, 3), "DUMP s")
	}
	runEncodingCases(t, []tcase{
		{"fills", fills},
		{"kept-per-list", []string{
			"CONFIG SET list-max-ziplist-size 3", push("a", 10, 2), "CONFIG SET list-max-ziplist-size -2", push("a", 5, 2), "DUMP a",
			push("b", 10, 2), "DUMP b", "COPY a c", "DUMP c", "CONFIG SET list-max-ziplist-size 2", "RPUSH d z y x w", "DUMP d",
			"SORT d ALPHA STORE e", "DUMP e", "CONFIG SET list-compress-depth 1", "SORT b ALPHA STORE e2", "DUMP e2", "LMOVE d f LEFT RIGHT", "DUMP f", "CONFIG SET list-max-ziplist-size 0", "LRANGE e 0 -1",
		}},
		{"compress", []string{
			"CONFIG SET list-compress-depth 1 list-max-listpack-size 8", push("l", 100, 20), "DUMP l", "LRANGE l 40 42",
			"CONFIG SET list-compress-depth 2", push("m", 100, 20), "DUMP m", push("short", 30, 20), "DUMP short",
			"CONFIG SET list-compress-depth 1 list-max-listpack-size 2", push("tiny", 10, 1), "DUMP tiny",
			"CONFIG SET rdbcompression no", "DUMP l", "CONFIG SET rdbcompression yes", restoreEncoding + "l l2", "LLEN l2",
		}},
	})
}

// TestEncodingForced runs the same commands on values forced into each
// encoding, as Redis's own test files do (foreach encoding {listpack
// skiplist} { r config set zset-max-ziplist-entries ... }).
func TestEncodingForced(t *testing.T) {
	zsetLines := []string{
		"ZADD z 1 a 2 b 3 c 4 d 5 e 2 bb -1 neg", "OBJECT ENCODING z", "ZRANGE z 0 -1 WITHSCORES", "ZREVRANGE z 1 3",
		"ZRANGEBYSCORE z (1 4 WITHSCORES", "ZREVRANGEBYSCORE z +inf -inf LIMIT 1 2", "ZRANGEBYLEX z [b (d", "ZLEXCOUNT z - +",
		"ZRANK z bb", "ZREVRANK z bb", "ZSCORE z e", "ZMSCORE z a nope e", "ZINCRBY z 10 a", "ZADD z GT CH 0 e 9 d",
		"ZADD z NX INCR 1 new", "ZCOUNT z 2 (5", "ZPOPMIN z 2", "ZPOPMAX z", "ZREMRANGEBYSCORE z 2 2", "ZREMRANGEBYLEX z - [c",
		"ZRANGE z 0 -1 WITHSCORES", "ZUNIONSTORE u 2 z z WEIGHTS 1 2", "OBJECT ENCODING u", "ZRANGE u 0 -1 WITHSCORES",
		"ZINTER 2 z u WITHSCORES", "ZDIFF 2 u z", "ZRANGESTORE r z 0 1", "OBJECT ENCODING r", "ZMPOP 1 z MIN COUNT 2",
		"ZADD m 0 x 0 y 0 z", "ZRANGE m (x + BYLEX", "ZREMRANGEBYRANK m 0 0", "ZCARD m", "OBJECT ENCODING m",
		"ZADD w 1.5 a inf b -inf c", "ZRANGE w 0 -1 WITHSCORES", "DUMP w", "SORT w ALPHA", "OBJECT ENCODING w",
	}
	hashLines := []string{
		"HSET h a 1 b 2 c 3", "OBJECT ENCODING h", "HGET h b", "HMGET h a x c", "HLEN h", "HSTRLEN h c", "HEXISTS h a",
		"HINCRBY h a 10", "HINCRBYFLOAT h b 0.5", "HSETNX h a 9", "HSETNX h d 4", "HDEL h c x", "!sort HKEYS h", "!sort HVALS h",
		"!sort HGETALL h", "!sort HRANDFIELD h 10", "HDEL h a b d", "EXISTS h",
	}
	setLines := []string{
		"SADD s 5 1 3", "OBJECT ENCODING s", "!sort SMEMBERS s", "SISMEMBER s 3", "SMISMEMBER s 1 2", "SCARD s", "SREM s 3",
		"SADD t 1 9", "!sort SUNION s t", "SINTER s t", "SDIFF s t", "SINTERCARD 2 s t", "SMOVE s t 5", "OBJECT ENCODING t",
		"!sort SMEMBERS t", "SUNIONSTORE u s t", "OBJECT ENCODING u", "SPOP s", "EXISTS s",
	}
	var cases []tcase
	for _, c := range []struct{ name, config string }{
		{"listpack", "CONFIG SET zset-max-ziplist-entries 128 hash-max-ziplist-entries 512 set-max-intset-entries 512"},
		{"skiplist-hashtable", "CONFIG SET zset-max-ziplist-entries 0 hash-max-ziplist-entries 0 set-max-intset-entries 0"},
		{"value-0", "CONFIG SET zset-max-ziplist-value 0 hash-max-ziplist-value 0"},
		{"small", "CONFIG SET zset-max-ziplist-entries 3 hash-max-ziplist-entries 2 set-max-intset-entries 2"},
	} {
		cases = append(cases,
			tcase{"zset-" + c.name, append([]string{c.config}, zsetLines...)},
			tcase{"hash-" + c.name, append([]string{c.config}, hashLines...)},
			tcase{"set-" + c.name, append([]string{c.config}, setLines...)})
	}
	runEncodingCases(t, cases)
}

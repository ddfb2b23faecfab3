package conformance

import (
	"strings"
	"testing"
)

// The cases of this file reproduce differences the randomized differential
// run found (issue #29), each with its neighbours: the same rule at other
// values, and the error paths around it.

// restoreFrom RESTOREs KEYS[2] from KEYS[1]'s DUMP with the TTL and options
// given as ARGV, so a case needs no payload of its own.
const restoreFrom = "EVAL \"return redis.call('RESTORE', KEYS[2], ARGV[1], redis.call('DUMP', KEYS[1]), unpack(ARGV, 2))\" 2 a k "

func TestDiffMiscRestoreTTL(t *testing.T) {
	runCases(t, []tcase{
		{"relative-overflow", []string{
			// ttl+mstime() wraps to a time in the past: the key is not added.
			"SET a 1", restoreFrom + "9223372036854775807", "EXISTS k",
			restoreFrom + "9223372036854775000", "EXISTS k",
			restoreFrom + "9223370000000000000", "EXISTS k",
			// REPLACE deletes the old key even though nothing replaces it.
			"SET k old", restoreFrom + "9223372036854775807 REPLACE", "EXISTS k",
			// Far, but not wrapping.
			restoreFrom + "9000000000000000000", "EXISTS k", "!approx=60000 PEXPIRETIME k",
		}},
		{"absttl", []string{
			"SET a 1", restoreFrom + "9223372036854775807 ABSTTL", "EXISTS k", "PEXPIRETIME k",
			restoreFrom + "1 ABSTTL REPLACE", "EXISTS k",
			restoreFrom + "0 ABSTTL", "EXISTS k", "PEXPIRETIME k",
		}},
		{"errors", []string{
			"SET a 1", restoreFrom + "-1", restoreFrom + "-9223372036854775808", restoreFrom + "9223372036854775808",
			restoreFrom + "x", "SET k v", restoreFrom + "-1", restoreFrom + "0 IDLETIME -1",
			restoreFrom + "0 FREQ 256", restoreFrom + "0 FREQ 1 IDLETIME 1", restoreFrom + "0 IDLETIME 1 FREQ 1",
			restoreFrom + "0 IDLETIME", restoreFrom + "0 FREQ x", "GET k",
		}},
	})
}

func TestDiffMiscLPosRank(t *testing.T) {
	runCases(t, []tcase{
		{"llong-min", []string{
			// -LLONG_MIN is LLONG_MIN again: from the tail, and COUNT's
			// test overflows, so every match is returned.
			"RPUSH l a b a c a",
			"LPOS l a RANK -9223372036854775808 COUNT 1", "LPOS l a RANK -9223372036854775808 COUNT 2",
			"LPOS l a RANK -9223372036854775808 COUNT 0", "LPOS l a RANK -9223372036854775808",
			"LPOS l a RANK -9223372036854775808 COUNT 1 MAXLEN 3", "LPOS l z RANK -9223372036854775808 COUNT 1",
			"LPOS l a RANK -9223372036854775807 COUNT 1", "LPOS l a RANK 9223372036854775807 COUNT 0",
			"LPOS l a RANK -9223372036854775807", "LPOS missing a RANK -9223372036854775808 COUNT 1",
			"LPOS l a RANK -9223372036854775809", "LPOS l a RANK 0",
		}},
	})
}

// A listpack keeps an integral score as an integer, so -0 reads back as 0;
// a skiplist keeps the double. Each destination must take Redis's way
// there: the set operations build a skiplist and pack it at the end,
// ZRANGESTORE adds to a listpack (a skiplist for a long rank range).
func TestDiffMiscZSetNegativeZero(t *testing.T) {
	long := strings.Repeat("m", 70)
	var aggr []string
	for _, scores := range [][2]string{{"-0", "0"}, {"0", "-0"}, {"-0", "-0"}, {"0", "0"}} {
		for _, member := range []string{"a", long} {
			aggr = append(aggr, "DEL x y", "ZADD x "+scores[0]+" "+member, "ZADD y "+scores[1]+" "+member, "ZADD y 1 "+long+"x")
			for _, how := range []string{"SUM", "MIN", "MAX"} {
				for _, cmd := range []string{"ZUNIONSTORE", "ZINTERSTORE"} {
					aggr = append(aggr, cmd+" u 2 x y AGGREGATE "+how, "ZSCORE u "+member, "OBJECT ENCODING u")
				}
				aggr = append(aggr, "ZUNION 2 x y AGGREGATE "+how+" WITHSCORES", "ZINTER 2 y x AGGREGATE "+how+" WITHSCORES")
			}
		}
	}
	runEncodingCases(t, []tcase{
		{"weights", []string{
			"ZADD k 1 " + long + " -2 a", "ZUNIONSTORE u 1 k WEIGHTS 0", "ZSCORE u a", "OBJECT ENCODING u",
			"ZINTERSTORE u 1 k WEIGHTS 0", "ZSCORE u a", "ZUNION 1 k WEIGHTS 0 WITHSCORES", "ZINTER 1 k WEIGHTS 0 WITHSCORES",
			"ZUNIONSTORE u 1 k WEIGHTS -0", "ZSCORE u " + long, "ZUNIONSTORE u 2 k k WEIGHTS 0 -0", "ZSCORE u a",
			// All members short: the result is packed, and -0 becomes 0.
			"ZADD s -2 a 3 b", "ZUNIONSTORE u 1 s WEIGHTS 0", "ZSCORE u a", "OBJECT ENCODING u", "ZUNION 1 s WEIGHTS 0 WITHSCORES",
			"ZINTERSTORE u 2 s k WEIGHTS 0 1 AGGREGATE MIN", "ZSCORE u a",
		}},
		{"diff", []string{
			"ZADD k -0 " + long + " -0 a 1 b", "ZSCORE k a", "ZSCORE k " + long, "ZDIFFSTORE d 1 k", "ZSCORE d " + long, "OBJECT ENCODING d",
			"ZDIFFSTORE d 2 k s", "ZSCORE d a", "ZADD s 1 " + long, "ZDIFFSTORE d 2 k s", "ZSCORE d a", "OBJECT ENCODING d",
			"ZDIFF 1 k WITHSCORES",
		}},
		{"aggregate", aggr},
		{"rangestore", []string{
			"ZADD k -0 " + long + " -0 a -0 b -0 n", "ZRANGESTORE d k 0 -1", "ZSCORE d a", "ZSCORE d n", "ZSCORE d " + long,
			"OBJECT ENCODING d", "ZRANGESTORE d k -inf +inf BYSCORE", "ZSCORE d n", "ZRANGESTORE d k - + BYLEX", "ZSCORE d n",
			"CONFIG SET zset-max-listpack-entries 2", "ZRANGESTORE d k 0 -1", "ZSCORE d a", "OBJECT ENCODING d",
			"ZRANGESTORE d k 0 1", "ZSCORE d a", "ZSCORE d " + long, "OBJECT ENCODING d",
			"ZRANGESTORE d k -inf +inf BYSCORE", "ZSCORE d a", "ZSCORE d b", "ZSCORE d n",
		}},
	})
}

// A listpack sorted set holds an integral score within ±2^62 (Redis's
// double2ll) as an integer entry and any other score as d2string's text, so
// DUMP's bytes depend on the rule at each boundary.
func TestDiffMiscZSetDumpScores(t *testing.T) {
	scores := []string{
		"0", "-0", "1", "-1", "127", "128", "-4096", "4095", "-32768", "32768", "8388608", "2147483648",
		"4503599627370496", "9007199254740992", "9007199254740994", "5e17", "-5e17", "4611686018427387904",
		"4611686018427388928", "-4611686018427387904", "-4611686018427388928", "9223372036854775807",
		"-9223372036854775808", "1e19", "1.5", "-0.5", "0.1", "1e-300", "inf", "-inf", "123456789.125",
	}
	var lines []string
	for _, s := range scores {
		lines = append(lines, "DEL z", "ZADD z "+s+" m", "DUMP z", "ZADD z "+s+" "+strings.Repeat("x", 65), "DUMP z")
	}
	// Hash values and list elements that look like numbers: lpAppend stores
	// only the canonical ones as integers.
	var hash []string
	for _, v := range []string{"0", "-0", "00", "01", "+1", " 1", "1 ", "-", "-9223372036854775808", "9223372036854775807",
		"9223372036854775808", "-9223372036854775809", "18446744073709551616", "5e17", "1.0", "12345678901234567890"} {
		hash = append(hash, "DEL h l", "HSET h f "+quoteBytes(v), "DUMP h", "RPUSH l "+quoteBytes(v), "DUMP l")
	}
	runCases(t, []tcase{{"zset", lines}, {"hash-list", hash}})
}

// A set-operation destination starts as an intset and converts for good
// when a member added to it would, so its encoding follows the algorithm
// Redis picked: SDIFFSTORE's second algorithm adds all of the first set
// before it removes the others' members.
func TestDiffMiscSetStoreEncoding(t *testing.T) {
	runEncodingCases(t, []tcase{
		{"sdiffstore", []string{
			// Algorithm 2 (3*6/2 > 6+1+1): x passes through the result.
			"SADD a 1 2 3 4 5 x", "SADD b x", "SADD c 1", "SDIFFSTORE d a b c", "OBJECT ENCODING d", "!sort SMEMBERS d",
			"!sort SDIFF a b c", "SDIFFSTORE d a b c missing", "OBJECT ENCODING d", "SDIFFSTORE d a missing b", "OBJECT ENCODING d",
			// Algorithm 1 (2*6/2 <= 6+5): only survivors are added.
			"SADD big x y z w v", "SDIFFSTORE d a big", "OBJECT ENCODING d", "SMEMBERS d", "SDIFF a big",
			// The boundary: 2*6/2 = 6 <= 6+0 is algorithm 1; an empty second set cannot exist, so use sizes.
			"SADD e x", "SDIFFSTORE d a e", "OBJECT ENCODING d", "SDIFFSTORE d a e e e e", "OBJECT ENCODING d",
			// The same set twice: empty, the destination deleted.
			"SDIFFSTORE d a b a", "EXISTS d", "SDIFFSTORE d missing a", "EXISTS d",
			// Everything removed.
			"SADD f 1 2 3 4 5 x", "SDIFFSTORE d a f", "EXISTS d",
			"SADD ints 1 2 3 4 5 6", "SDIFFSTORE d ints c b", "OBJECT ENCODING d", "SMEMBERS d",
		}},
		{"sdiffstore-size", []string{
			// With a small set-max-intset-entries the copy of the first set
			// passes the limit although the result would not.
			"CONFIG SET set-max-intset-entries 4", "SADD h 1 2 3 4 5 6", "OBJECT ENCODING h",
			"SDIFFSTORE d h c", "OBJECT ENCODING d", "!sort SMEMBERS d",
			"SADD g 2 3", "SDIFFSTORE d h c g", "OBJECT ENCODING d", "SDIFFSTORE d h c g c c c c", "OBJECT ENCODING d",
			"SINTERSTORE d h h", "OBJECT ENCODING d", "SUNIONSTORE d c g", "OBJECT ENCODING d",
		}},
		{"sinter-sunion", []string{
			"SADD a 1 2 3 x", "SADD b 1 2 x", "SINTERSTORE d a b", "OBJECT ENCODING d", "SADD c 1 2 y", "SINTERSTORE d a c", "OBJECT ENCODING d",
			"!sort SMEMBERS d", "SUNIONSTORE d c", "OBJECT ENCODING d", "SREM c y", "OBJECT ENCODING c", "SUNIONSTORE d c", "OBJECT ENCODING d",
			"SINTERSTORE d c c", "OBJECT ENCODING d", "SDIFFSTORE d c missing", "OBJECT ENCODING d", "SINTERCARD 2 a c",
			"SADD s 01 1", "SINTERSTORE d s s", "OBJECT ENCODING d",
		}},
		{"smove-spop", []string{
			"SADD a 1 x", "SMOVE a d 1", "OBJECT ENCODING d", "SMOVE a e x", "OBJECT ENCODING e", "SMOVE missing d 2",
			"SADD w 1 2 3 4 5 6 7 8 9 10 11 x", "SREM w x", "OBJECT ENCODING w", "!distinct SPOP w 10", "OBJECT ENCODING w", "SCARD w",
			"SADD v 1 2 3 4 5 6 7 8 9 10 11 x", "SREM v x", "!distinct SPOP v 2", "OBJECT ENCODING v",
			"SADD u 1 2 x", "SREM u x", "!distinct SPOP u 3", "EXISTS u",
		}},
	})
}

// Every HLL command but multi-key PFCOUNT unshares the string it reads or
// writes (dbUnshareStringValue), so an HLL small enough to be an embstr
// becomes raw even when nothing in it changes.
func TestDiffMiscHLLEncoding(t *testing.T) {
	const (
		empty   = `"HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff"`
		corrupt = `"HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xfe"`
		// SET from a script makes an embstr of up to 44 bytes.
		setEmbstr = "EVAL \"return redis.call('SET', KEYS[1], ARGV[1])\" 1 "
	)
	var lines []string
	for _, cmd := range []string{
		"PFADD k", "PFADD k a", "PFCOUNT k", "PFCOUNT k other", "PFCOUNT other k", "PFMERGE k", "PFMERGE other k",
		"PFMERGE k other", "PFDEBUG ENCODING k", "PFDEBUG DECODE k", "PFDEBUG TODENSE k", "PFDEBUG BOGUS k",
		"PFDEBUG ENCODING other", "GET k", "STRLEN k", "GETRANGE k 0 3",
	} {
		lines = append(lines, "DEL k other", setEmbstr+"k "+empty, "OBJECT ENCODING k", cmd, "OBJECT ENCODING k",
			"EXISTS other")
	}
	lines = append(lines, "DEL k", setEmbstr+"k "+corrupt, "OBJECT ENCODING k", "PFCOUNT k", "OBJECT ENCODING k",
		setEmbstr+"k "+corrupt, "PFADD k a", "OBJECT ENCODING k",
		setEmbstr+"k HYLLnot", "PFADD k a", "PFCOUNT k", "PFDEBUG ENCODING k", "OBJECT ENCODING k",
		setEmbstr+"k "+empty, "PFDEBUG GETREG k", "OBJECT ENCODING k")
	runCases(t, []tcase{{"embstr", lines}})
}

// SORT ALPHA without STORE compares with strcoll, which stops at a NUL
// byte; with STORE it compares the bytes. Numeric SORT tests errno after
// each strtod without clearing it, so an ERANGE left by an earlier command
// fails a later SORT, until something clears errno (string2d's errno = 0
// in ZADD and the like, or a new connection's accept).
func TestDiffMiscSortCStrings(t *testing.T) {
	runCases(t, []tcase{
		{"alpha-nul", []string{
			"RPUSH l \"1\\x00\" 1", "SORT l ALPHA", "SORT l ALPHA DESC", "SORT l ALPHA STORE d", "LRANGE d 0 -1",
			"RPUSH m 1 \"1\\x00\"", "SORT m ALPHA", "SORT m ALPHA STORE d", "LRANGE d 0 -1",
			"RPUSH n \"a\\x00z\" \"a\\x00b\" a \"a\\x01\"", "SORT n ALPHA", "SORT n ALPHA STORE d", "LRANGE d 0 -1",
			"SET w_1 \"x\\x00b\"", "SET w_2 \"x\\x00a\"", "SET w_3 x", "RPUSH k 1 2 3",
			"SORT k BY w_* ALPHA", "SORT k BY w_* ALPHA STORE d", "LRANGE d 0 -1",
			// strtod stops at the NUL too.
			"RPUSH num \"2\\x00x\" \"1\\x00\" 3", "SORT num", "SORT num DESC",
		}},
		{"errno", []string{
			"RPUSH bad 1e400", "RPUSH l \"\" \"\"", "RPUSH f 1.5 0.5", "RPUSH i 2 1",
			"SORT l", "SORT bad", "SORT l", "SORT f", "SORT i", "SORT l ALPHA", "SORT l",
			// string2d's errno = 0 clears it, an out-of-range one sets it.
			"ZADD z 1 m", "SORT l", "SORT f",
			"SORT bad", "ZADD z 1e400 m", "SORT f", "ZADD z 2 m", "SORT f",
			"SORT bad", "ZUNIONSTORE u 1 z WEIGHTS 2", "SORT f",
			"SORT bad", "ZUNIONSTORE u 1 z WEIGHTS 1e999", "SORT f",
			"SORT bad", "ZINCRBY z 1 m", "SORT l",
			"SORT bad", "GEOADD g 1 1 p", "SORT l",
			// A subnormal sets ERANGE in glibc as well.
			"RPUSH sub 1e-310", "SORT sub", "ZADD z 1 m", "SORT l", "SORT sub", "SORT l",
			// A sorted set's listpack read back for SORT.
			"ZADD zs 1e-310 a 1 b", "ZADD z 1 m", "SORT zs", "SORT l", "ZADD z 1 m", "SORT l",
			// Other commands leave errno alone.
			"SORT bad", "SET x 1", "GET x", "LRANGE l 0 -1", "SORT l",
			// Integers of a list or an intset are int-encoded: no strtod.
			"SADD si 2 1", "SADD sh 2 1 x", "SREM sh x", "SORT bad", "SORT si", "SORT i", "SORT sh", "SORT si",
			// A new connection's accept leaves EAGAIN.
			"@2 PING", "SORT l", "SORT f",
		}},
	})
}

// lfuConfig makes LFU counters deterministic: with lfu-log-factor 0 every
// access adds one (the probability is 1/(0+1)), and with lfu-decay-time 0
// they never decay.
const (
	lfuConfig   = "CONFIG SET maxmemory-policy allkeys-lfu lfu-log-factor 0 lfu-decay-time 0"
	lfuDefaults = "CONFIG SET maxmemory-policy noeviction lfu-log-factor 10 lfu-decay-time 1"
)

// lfuFixture holds a key of every type (all at LFU_INIT_VAL, 5), and
// lfuKeys are the keys whose OBJECT FREQ each case compares afterwards.
var (
	lfuFixture = []string{
		"SET s hello", "SET n 12345", "RPUSH l a b c", "SADD a 1 2 x", "SADD b 2 x y", "ZADD z 1 m 2 o", "ZADD y 1 m",
		"HSET h f v g 1", "PFADD p x", "SET d old", "GEOADD g 1 1 m 2 2 o", "SET w_a 12345", "HSET wh_a k 2",
	}
	lfuKeys = []string{"s", "n", "l", "a", "b", "z", "y", "h", "p", "d", "g", "q", "w_a", "wh_a"}
)

// TestDiffMiscLFUTouches runs each command on fresh keys and compares every
// key's LFU counter with Redis's: a command touches a key exactly where
// Redis's lookupKey* calls do (LOOKUP_NOTOUCH and setKey's own
// lookupKeyWrite included).
func TestDiffMiscLFUTouches(t *testing.T) {
	commands := []string{
		// strings
		"GET s", "GET l", "SET s v", "SET s v GET", "SET s v NX", "SET s v XX", "SET q v XX", "SET l v GET", "SETNX s v",
		"SETEX s 10 v", "PSETEX s 10000 v", "GETSET s v", "GETSET q v", "GETDEL s", "GETEX s", "GETEX s PERSIST", "APPEND s x",
		"APPEND q x", "STRLEN s", "GETRANGE s 0 1", "SETRANGE s 1 x", "INCR n", "INCR s", "INCRBY n 2", "INCRBYFLOAT n 1.5",
		"DECR n", "DECRBY n 2", "MGET s n q", "MSET s x n y", "MSETNX s x q y", "MSETNX q x q2 y", "LCS s d", "SUBSTR s 0 1",
		// bitmaps
		"SETBIT s 1 1", "GETBIT s 1", "BITCOUNT s", "BITPOS s 1", "BITOP AND d s n", "BITOP AND q s n", "BITOP NOT d l",
		"BITFIELD s GET u8 0", "BITFIELD s SET u8 0 1", "BITFIELD_RO s GET u8 0",
		// generic
		"DEL s", "UNLINK s", "EXISTS s", "TYPE s", "TTL s", "PTTL s", "EXPIRE s 100", "PEXPIRE s 100000",
		"EXPIREAT s 99999999999", "PERSIST s", "EXPIRETIME s", "TOUCH s n", "RENAME s d", "RENAME s q", "RENAMENX s d",
		"RENAMENX s q", "COPY s d", "COPY s d REPLACE", "COPY s q", "COPY l d REPLACE", "MOVE s 1", "DUMP s", "OBJECT ENCODING s",
		"OBJECT FREQ s", "OBJECT IDLETIME s", "OBJECT REFCOUNT s", "RANDOMKEY", "KEYS *", "SCAN 0 COUNT 1000",
		"EVAL \"return redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1]))\" 2 s d",
		"EVAL \"return redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1]), 'REPLACE')\" 2 s d",
		"EVAL \"return redis.call('GET', KEYS[1])\" 1 s", "SORT l ALPHA", "SORT l ALPHA STORE d", "SORT l ALPHA STORE q",
		"SORT_RO l ALPHA", "SORT a BY w_* GET w_* GET wh_*->k", "SORT a BY nosort", "MULTI", "EXEC",
		// lists
		"LPUSH l x", "LPUSHX l x", "RPUSHX q x", "LPUSH s x", "LPOP l", "RPOP l 2", "LLEN l", "LRANGE l 0 -1", "LINDEX l 0",
		"LSET l 0 x", "LINSERT l BEFORE a x", "LREM l 0 a", "LTRIM l 0 1", "LPOS l a", "RPOPLPUSH l d", "RPOPLPUSH l q",
		"RPOPLPUSH l l", "LMOVE l q LEFT RIGHT", "LMPOP 2 q l LEFT", "BLPOP q l 0", "BRPOPLPUSH l q 0", "BLMPOP 0 1 l LEFT",
		// sets
		"SADD a z", "SREM a 1", "SCARD a", "SISMEMBER a 1", "SMISMEMBER a 1 2", "SMEMBERS a", "SRANDMEMBER a", "SPOP a",
		"SMOVE a b 1", "SMOVE a b 9", "SMOVE a s 1", "SMOVE s a 1", "SMOVE q a 1", "SMOVE a q 1", "SMOVE a a 1", "SINTER a b",
		"SINTERSTORE d a b", "SINTERSTORE d a q", "SINTERCARD 2 a b", "SUNION a b", "SUNIONSTORE d a b", "SDIFF a b",
		"SDIFFSTORE d a b", "SDIFFSTORE q a a", "SSCAN a 0",
		// sorted sets
		"ZADD z 3 q", "ZADD z XX 5 m", "ZINCRBY z 1 m", "ZSCORE z m", "ZMSCORE z m", "ZRANK z m", "ZCARD z", "ZCOUNT z 0 5",
		"ZRANGE z 0 -1", "ZRANGESTORE d z 0 -1", "ZRANGESTORE q z 0 -1", "ZRANGESTORE d z 5 9", "ZRANGEBYSCORE z 0 5",
		"ZREM z m", "ZREMRANGEBYRANK z 0 0", "ZPOPMIN z", "ZUNIONSTORE d 2 z y", "ZINTERSTORE d 2 z y", "ZDIFFSTORE d 2 z y",
		"ZUNION 2 z y", "ZINTERCARD 2 z y", "ZRANDMEMBER z", "ZMPOP 1 z MIN", "BZPOPMIN z 0", "BZMPOP 0 1 z MIN", "ZMPOP 2 q z MAX COUNT 1", "ZLEXCOUNT z - +", "ZSCAN z 0",
		// hashes
		"HSET h f x", "HSETNX h f x", "HGET h f", "HMGET h f g", "HGETALL h", "HDEL h f", "HLEN h", "HEXISTS h f",
		"HINCRBY h g 1", "HINCRBYFLOAT h g 1", "HKEYS h", "HVALS h", "HSTRLEN h f", "HRANDFIELD h", "HSCAN h 0", "HGET s f",
		// HyperLogLog
		"PFADD p y", "PFADD p", "PFCOUNT p", "PFCOUNT p q", "PFMERGE q p", "PFMERGE p q", "PFMERGE d p", "PFDEBUG ENCODING p",
		"PFDEBUG GETREG s",
		// geo
		"GEOADD g 3 3 q", "GEOPOS g m", "GEODIST g m o", "GEOHASH g m", "GEOSEARCH g FROMMEMBER m BYRADIUS 1000 km ASC",
		"GEOSEARCHSTORE d g FROMMEMBER m BYRADIUS 1000 km", "GEOSEARCHSTORE q g FROMLONLAT 0 0 BYRADIUS 1 m",
		"GEORADIUS g 1 1 1000 km STORE d", "GEORADIUSBYMEMBER g m 1000 km", "GEORADIUS_RO g 1 1 1000 km",
	}
	var freq []string
	for _, k := range lfuKeys {
		freq = append(freq, "OBJECT FREQ "+k)
	}
	var cases []tcase
	for _, cmd := range commands {
		lines := append([]string{lfuConfig}, lfuFixture...)
		lines = append(lines, "!type "+cmd)
		cases = append(cases, tcase{cmd, append(lines, freq...)})
	}
	t.Cleanup(func() { setEverywhere(t, lfuDefaults) })
	runCases(t, cases)
}

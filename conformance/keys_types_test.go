package conformance

import "testing"

func TestMoveLCSSubstr(t *testing.T) {
	runCases(t, []tcase{
		{"move", []string{
			"SET k v", "MOVE k 1", "EXISTS k", "SELECT 1", "GET k", "MOVE k 0", "SELECT 0", "GET k",
			"SADD s 1 2", "EXPIRE s 100", "MOVE s 2", "SELECT 2", "TTL s", "SMEMBERS s", "OBJECT ENCODING s", "SELECT 0",
			"ZADD z 1 a", "SELECT 3", "SET z other", "SELECT 0", "MOVE z 3", "ZSCORE z a", "MOVE nokey 1",
			"MOVE k x", "MOVE k 1.5", "MOVE k 99999999999", "MOVE k -1", "MOVE k 16", "MOVE k 0", "MOVE nokey 0", "MOVE nokey 16",
			"MOVE", "MOVE k", "MOVE k 1 2",
			"MULTI", "SET m 1", "MOVE m 4", "EXISTS m", "EXEC",
			"EVAL \"return redis.call('MOVE', KEYS[1], 5)\" 1 z", "EXISTS z",
		}},
		{"move-watch", []string{
			"SET k v", "WATCH k", "@2 MOVE k 1", "MULTI", "GET k", "EXEC",
		}},
		{"lcs", []string{
			"MSET a ohmytext b mynewtext", "LCS a b", "LCS a b LEN", "LCS a b IDX", "LCS a b IDX MINMATCHLEN 4",
			"LCS a b IDX WITHMATCHLEN", "LCS a b IDX MINMATCHLEN 4 WITHMATCHLEN", "LCS a b idx minmatchlen -5 withmatchlen",
			"LCS a nokey", "LCS nokey nokey2", "LCS nokey a LEN", "LCS nokey a IDX", "LCS a a", "LCS a a IDX WITHMATCHLEN",
			"MSET x ABCBDAB y BDCABA", "LCS x y", "LCS x y IDX WITHMATCHLEN", "LCS y x IDX", "SET n 12345", "SET m 234", "LCS n m IDX",
			`SET bin1 "a\x00b\xffc"`, `SET bin2 "\x00\xffc"`, "LCS bin1 bin2", "LCS bin1 bin2 IDX",
			"MSET e1 abc e2 xyz", "LCS e1 e2", "LCS e1 e2 IDX", "LCS e1 e2 LEN",
			"LCS a b LEN IDX", "LCS a b IDX LEN", "LCS a b FOO", "LCS a b MINMATCHLEN", "LCS a b MINMATCHLEN x", "LCS a b LEN MINMATCHLEN 1",
			"SADD s a", "LCS a s", "LCS s a", "LCS s nokey LEN", "LCS s a FOO", "LCS", "LCS a",
			"!type HELLO 2", "MULTI", "LCS a b IDX", "EXEC", "EVAL \"return redis.call('LCS', KEYS[1], KEYS[2], 'IDX')\" 2 a b",
		}},
		{"substr", []string{
			"SET k hello", "SUBSTR k 0 2", "SUBSTR k -3 -1", "SUBSTR k 10 20", "SUBSTR k 3 1", "SUBSTR nokey 0 1", "SET n 12345",
			"SUBSTR n 1 2", "SUBSTR k a 1", "SUBSTR k 0", "SADD s a", "SUBSTR s 0 1", "SUBSTR k 0 -100",
		}},
	})
}

// TestTypesAcrossKeyCommands: TYPE, OBJECT ENCODING, COPY, RENAME and
// SCAN TYPE for sets and sorted sets in every encoding.
func TestTypesAcrossKeyCommands(t *testing.T) {
	runCases(t, []tcase{
		{"type-encoding", []string{
			"SADD si 1 2", "SADD sh a b", bigInts("sbig", 0, 600), "ZADD zl 1 a", zaddMany("zs", 200, 1),
			"TYPE si", "TYPE sh", "TYPE sbig", "TYPE zl", "TYPE zs",
			"OBJECT ENCODING si", "OBJECT ENCODING sh", "OBJECT ENCODING sbig", "OBJECT ENCODING zl", "OBJECT ENCODING zs",
			"SADD w 1", "SADD w 40000", "OBJECT ENCODING w", "SADD w 3000000000", "OBJECT ENCODING w", "SMEMBERS w",
			"SADD w -9223372036854775808", "SMEMBERS w", "SREM w 3000000000 -9223372036854775808", "OBJECT ENCODING w", "SMEMBERS w",
		}},
		{"copy", []string{
			"SADD si 3 1 2", "SADD sh a b", "ZADD zl 1 a 2 b", zaddMany("zs", 200, 1), "EXPIRE si 100",
			"COPY si si2", "SMEMBERS si2", "OBJECT ENCODING si2", "TTL si2", "SADD si2 4", "SMEMBERS si", "COPY sh sh2", "!sort SMEMBERS sh2",
			"OBJECT ENCODING sh2", "COPY zl zl2", "ZRANGE zl2 0 -1 WITHSCORES", "COPY zs zs2", "OBJECT ENCODING zs2", "ZCARD zs2",
			"COPY zl zs2", "COPY zl zs2 REPLACE", "OBJECT ENCODING zs2", "COPY si x DB 1", "SELECT 1", "SMEMBERS x", "SELECT 0",
			"RENAME sh sh3", "TYPE sh3", "!sort SPOP sh2 2", "EXISTS sh2", "SCARD sh3",
		}},
		{"scan-type", []string{
			"SADD s1 a", "SADD s2 1", "ZADD z1 1 a", "SET str v", "HSET h f v",
			scanType + " set", scanType + " zset", scanType + " SET", scanType + " string", scanType + " list", scanType + " nosuch",
		}},
	})
}

// scanType is an EVAL, to be followed by a type name, answering SCAN's
// keys of that type sorted (SCAN's own order is the keyspace's).
const scanType = "EVAL \"local r = redis.call('SCAN', 0, 'TYPE', ARGV[1], 'COUNT', 100) table.sort(r[2]) return r\" 0"

func TestGetKeysOfNewCommands(t *testing.T) {
	runCases(t, []tcase{{"getkeys", []string{
		"COMMAND GETKEYS zunionstore d 2 a b", "COMMAND GETKEYS zunion 2 a b WITHSCORES", "COMMAND GETKEYS zinter 1 a",
		"COMMAND GETKEYS zdiffstore d 1 a", "COMMAND GETKEYS zintercard 2 a b LIMIT 1", "COMMAND GETKEYS sintercard 2 a b",
		"COMMAND GETKEYS zmpop 2 a b MIN", "COMMAND GETKEYS sunionstore d a b", "COMMAND GETKEYS smove a b m",
		"COMMAND GETKEYS zrangestore d s 0 -1", "COMMAND GETKEYS lcs a b", "COMMAND GETKEYS move k 1",
		"COMMAND GETKEYS sort k", "COMMAND GETKEYS sort k STORE d", "COMMAND GETKEYS sort k BY w_* GET o_* STORE d LIMIT 0 1",
		"COMMAND GETKEYS sort_ro k GET x", "COMMAND GETKEYS sort k STORE d STORE e", "COMMAND GETKEYS sort k GET store STORE",
		"COMMAND GETKEYS sort k STORE store x", "COMMAND GETKEYS sort k LIMIT store 1 STORE e",
		"COMMAND GETKEYSANDFLAGS zunionstore d 2 a b",
		"COMMAND GETKEYS zunionstore d 0 a", "COMMAND GETKEYS zmpop 0 a MIN", "COMMAND GETKEYS sintercard 5 a",
	}}})
}

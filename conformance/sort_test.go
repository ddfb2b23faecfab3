package conformance

import "testing"

// SORT of lists (and SORT ... STORE, which writes a list) waits for the
// list type; these cases cover sets and sorted sets.
func TestSort(t *testing.T) {
	weights := []string{
		"SADD s 3 1 2 10", "MSET w_1 30 w_2 20 w_3 10 w_10 5", "HSET h_1 f 3 n x", "HSET h_2 f 1 n y", "HSET h_3 f 2 n z",
		"MSET o_1 one o_2 two o_3 three",
	}
	with := func(lines ...string) []string { return append(append([]string{}, weights...), lines...) }
	runCases(t, []tcase{
		{"numeric", with(
			"SORT s", "SORT s DESC", "SORT s ASC", "SORT s LIMIT 1 2", "SORT s LIMIT 0 0", "SORT s LIMIT -5 2", "SORT s LIMIT 2 -1",
			"SORT s LIMIT 10 2", "SORT s LIMIT 3 100", "SORT s DESC LIMIT 0 1", "SORT_RO s", "SORT_RO s DESC LIMIT 1 1",
			"SORT s ALPHA", "SORT s ALPHA DESC", "SORT nokey", "SORT nokey LIMIT 0 1", "SORT nokey BY nosort",
		)},
		{"by", with(
			"SORT s BY w_*", "SORT s BY w_* DESC", "SORT s BY h_*->f", "SORT s BY h_*->n ALPHA", "SORT s BY h_*->n ALPHA DESC",
			"SORT s BY missing_*", "SORT s BY o_* ALPHA", "SORT s BY o_*", "SORT s BY w_* LIMIT 1 2", "SORT s BY h_*->", "SORT s BY *",
			"SORT s BY h_*->nofield", "SORT s BY w_*->f", "SORT s BY h_* ", "SORT s BY nosort LIMIT 0 10", "SORT s BY nosort DESC",
		)},
		{"get", with(
			"SORT s GET o_*", "SORT s GET # GET o_*", "SORT s GET o_* GET h_*->n GET #", "SORT s GET nostar", "SORT s GET h_*->n LIMIT 1 2",
			"SORT s BY w_* GET # GET w_*", "SORT s GET #", "SORT s GET ##", "SORT_RO s GET o_*", "SORT s GET w_*->f",
			"SORT s BY nosort GET # GET o_* LIMIT 0 1",
		)},
		{"zset", []string{
			"ZADD z 3 c 1 a 2 b 1.5 d", "OBJECT ENCODING z", "SORT z BY nosort", "OBJECT ENCODING z", "ZADD y 1 a", "SORT_RO y LIMIT 0 0",
			"OBJECT ENCODING y", "ZADD x 1 a", "SORT x GET nostar FOO", "OBJECT ENCODING x", "SORT z BY nosort DESC", "SORT z BY nosort LIMIT 1 2",
			"SORT z BY nosort DESC LIMIT 1 2", "SORT z BY nosort LIMIT 5 1", "SORT z ALPHA", "SORT z ALPHA DESC LIMIT 0 2",
			"SORT z", "ZADD n 1 10 2 9 3 -1", "SORT n", "SORT n DESC", "SORT n BY nosort", "SORT n ALPHA",
			zaddMany("big", 200, 1), "SORT big BY nosort LIMIT 10 3", "SORT big BY nosort DESC LIMIT 10 3", "SORT big ALPHA LIMIT 190 5",
		}},
		{"scores", []string{
			"SADD s a", "SORT s", "SADD n 1 2.5 -3 1e3 0x10 inf -inf", "SORT n", "SADD b 1 abc", "SORT b", "SORT b ALPHA",
			"SADD e 1", "SET k_1 ''", "SORT e BY k_*", "SET k_1 ' 2'", "SORT e BY k_*", "SET k_1 '2 '", "SORT e BY k_*",
			`SET k_1 "3\x00junk"`, "SORT e BY k_*", "SET k_1 nan", "SORT e BY k_*",
			// Last: Redis leaves strtod's ERANGE in errno, failing later SORTs
			// on the same server thread until something clears it.
			"SET k_1 1e400", "SORT e BY k_*",
			"SADD t 2 1 3", "SET v_1 5", "SET v_2 5", "SET v_3 1", "SORT t BY v_*", "SORT t BY v_* DESC",
		}},
		{"hashtable-sets", []string{
			"SADD h c a b 1", "SORT h ALPHA", "SORT h ALPHA DESC", "SORT h", "!sort SORT h BY nosort", "!sort SORT h BY nosort ALPHA LIMIT 0 10",
			"EVAL \"return redis.call('SORT', KEYS[1], 'BY', 'nosort')\" 1 h", "EVAL \"return redis.call('SORT_RO', KEYS[1], 'BY', 'nosort', 'DESC')\" 1 h",
		}},
		{"errors", with(
			"SORT s LIMIT", "SORT s LIMIT 1", "SORT s LIMIT a 1", "SORT s LIMIT 1 a", "SORT s BY", "SORT s GET", "SORT s FOO",
			"SORT s STORE", "SORT_RO s STORE d", "SET d x", "SORT nokey STORE d", "EXISTS d", "SET d x", "SORT s LIMIT 0 0 STORE d",
			"EXISTS d", "SORT s LIMIT 9 9 GET # STORE d", "SORT nokey2 STORE nokey3", "SORT str STORE d", "SORT s ASC DESC ALPHA FOO", "SET str v", "SORT str", "SORT str LIMIT a b",
			"HSET hh a 1", "SORT hh", "SORT_RO hh", "SORT", "SORT_RO", "SORT s LIMIT 0 1 BY w_* FOO", "SORT s BY w_* GET",
		)},
		{"multi-and-scripts", with(
			"MULTI", "SORT s", "SORT s BY w_* GET o_*", "SORT_RO s DESC", "EXEC",
			"EVAL \"return redis.call('SORT', KEYS[1], 'DESC', 'GET', '#', 'GET', 'o_*')\" 1 s",
			"EVAL_RO \"return redis.call('SORT_RO', KEYS[1], 'LIMIT', 0, 2)\" 1 s",
			"EVAL \"return redis.pcall('SORT', KEYS[1], 'LIMIT')\" 1 s",
			"EVAL_RO \"return redis.call('SORT', KEYS[1])\" 1 s", "EVAL_RO \"return redis.pcall('SORT', KEYS[1], 'BY', 'w_*')\" 1 s",
		)},
	})
}

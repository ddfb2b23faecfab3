package conformance

import "testing"

// TestSortLists: SORT of lists, and SORT ... STORE, which stores one.
func TestSortLists(t *testing.T) {
	setup := []string{"RPUSH l 3 1 10 2 1", "MSET w_1 5 w_2 4 w_3 3 w_10 2 o_1 one o_2 two o_3 three", "HSET h_1 f b", "HSET h_2 f a"}
	with := func(lines ...string) []string { return append(append([]string{}, setup...), lines...) }
	runCases(t, []tcase{
		{"list", with(
			"SORT l", "SORT l DESC", "SORT l ALPHA", "SORT l ALPHA DESC", "SORT l LIMIT 1 2", "SORT l BY nosort", "SORT l BY nosort DESC",
			"SORT l BY nosort LIMIT 1 3", "SORT l BY nosort DESC LIMIT 1 3", "SORT l BY nosort LIMIT 4 10", "SORT l BY nosort DESC LIMIT 4 10",
			"SORT l BY nosort LIMIT 5 1", "SORT l BY nosort LIMIT 0 0", "SORT l BY w_*", "SORT l BY w_* DESC", "SORT l BY h_*->f ALPHA",
			"SORT l GET o_* GET #", "SORT l BY nosort GET o_*", "SORT_RO l DESC", "OBJECT ENCODING l", "LRANGE l 0 -1",
			"EVAL \"return redis.call('SORT', KEYS[1], 'BY', 'nosort')\" 1 l",
		)},
		{"store", with(
			"SORT l STORE d", "LRANGE d 0 -1", "TYPE d", "OBJECT ENCODING d", "SORT l DESC LIMIT 0 2 STORE d", "LRANGE d 0 -1",
			"SORT l GET o_* GET # STORE d", "LRANGE d 0 -1", "SORT l LIMIT 0 0 STORE d", "EXISTS d", "SET d x", "EXPIRE d 100",
			"SORT l STORE d", "TTL d", "TYPE d", "SADD s c a b", "SORT s BY nosort STORE d", "LRANGE d 0 -1", "SORT s ALPHA STORE d",
			"LRANGE d 0 -1", "ZADD z 2 b 1 a", "SORT z BY nosort STORE d", "LRANGE d 0 -1", "SORT l STORE l", "LRANGE l 0 -1",
			"MULTI", "SORT l DESC STORE d", "LRANGE d 0 -1", "EXEC",
			"EVAL \"return redis.call('SORT', KEYS[1], 'ALPHA', 'STORE', KEYS[2])\" 2 s d", "LRANGE d 0 -1",
		)},
		{"types", with(
			"TYPE l", "COPY l l2", "LRANGE l2 0 -1", "MOVE l2 1", "SELECT 1", "LRANGE l2 0 -1", "SELECT 0",
			"SUNION l", "ZUNION 1 l", "SINTERCARD 1 l", "LCS l l", "SMOVE l s x", "SMOVE s l x",
		)},
	})
}

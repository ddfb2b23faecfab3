package conformance

import "testing"

func TestZSetAlgebra(t *testing.T) {
	setup := []string{"ZADD a 1 x 2 y 3 z", "ZADD b 10 y 20 z 30 w", "SADD s y w v"}
	with := func(lines ...string) []string { return append(append([]string{}, setup...), lines...) }
	runCases(t, []tcase{
		{"zunion", with(
			"ZUNION 2 a b", "ZUNION 2 a b WITHSCORES", "ZUNION 1 a withscores", "ZUNION 3 a b s WITHSCORES",
			"ZUNION 2 a b WEIGHTS 2 -1 WITHSCORES", "ZUNION 2 a b AGGREGATE MIN WITHSCORES", "ZUNION 2 a b aggregate max withscores",
			"ZUNION 2 a b WEIGHTS 0.5 0.25 AGGREGATE SUM WITHSCORES", "ZUNION 2 a nokey WITHSCORES", "ZUNION 1 nokey", "ZUNION 1 nokey WITHSCORES",
			"ZUNION 2 a a WITHSCORES", "ZUNION 2 a b WITHSCORES WITHSCORES", "ZUNION 2 a b AGGREGATE SUM AGGREGATE MAX WITHSCORES",
			"ZUNION 2 a b WEIGHTS 1 2 WEIGHTS 3 4 WITHSCORES", "ZUNION 2 s s WITHSCORES",
		)},
		{"zinter", with(
			"ZINTER 2 a b", "ZINTER 2 a b WITHSCORES", "ZINTER 3 a b s WITHSCORES", "ZINTER 2 b s WITHSCORES",
			"ZINTER 2 a b WEIGHTS 2 3 WITHSCORES", "ZINTER 2 a b AGGREGATE MIN WITHSCORES", "ZINTER 2 a b AGGREGATE MAX WITHSCORES",
			"ZINTER 2 a nokey", "ZINTER 2 a nokey WITHSCORES", "ZINTER 2 a a WITHSCORES", "ZINTER 1 s WITHSCORES",
			"ZINTER 2 s s WEIGHTS 2 3 WITHSCORES",
		)},
		{"zdiff", with(
			"ZDIFF 2 a b", "ZDIFF 2 a b WITHSCORES", "ZDIFF 2 b a WITHSCORES", "ZDIFF 3 b a s WITHSCORES", "ZDIFF 1 a WITHSCORES",
			"ZDIFF 2 a a", "ZDIFF 2 nokey a", "ZDIFF 2 a nokey WITHSCORES", "ZDIFF 2 s a WITHSCORES", "ZDIFF 2 s b",
		)},
		{"scores", []string{
			"ZADD p 0 zero 1 one -2 neg", "ZADD n inf i -inf j 1.5 f",
			"ZUNION 1 p WEIGHTS -1 WITHSCORES", "ZUNION 2 n n WITHSCORES", "ZUNION 2 n n WEIGHTS 1 -1 WITHSCORES",
			"ZUNION 1 n WEIGHTS 0 WITHSCORES", "ZINTER 2 n n WEIGHTS 0 1 WITHSCORES", "ZINTER 2 n n WEIGHTS 1 0 AGGREGATE MIN WITHSCORES",
			"ZINTER 2 n n WEIGHTS 1 -1 WITHSCORES", "ZUNION 1 n WEIGHTS 1e308 WITHSCORES", "ZUNION 2 p n WEIGHTS 0.1 0.2 WITHSCORES",
			"ZADD q 0.1 a 0.2 b", "ZADD r 0.2 a 0.1 b", "ZADD t 0.3 a", "ZUNION 3 q r t WITHSCORES", "ZUNION 3 t q r WITHSCORES",
			"ZINTER 3 q r t WITHSCORES", "ZUNION 1 p WEIGHTS inf WITHSCORES", "ZUNION 1 p WEIGHTS -inf WITHSCORES",
		}},
		{"store", with(
			"ZUNIONSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES", "OBJECT ENCODING d", "ZINTERSTORE d 2 a b WEIGHTS 1 2", "ZRANGE d 0 -1 WITHSCORES",
			"ZDIFFSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES", "EXPIRE d 100", "ZUNIONSTORE d 1 a", "TTL d",
			"ZINTERSTORE d 2 a nokey", "EXISTS d", "ZDIFFSTORE d 1 nokey", "ZUNIONSTORE a 2 a b", "ZRANGE a 0 -1 WITHSCORES",
			"SET str v", "ZUNIONSTORE str 1 b", "TYPE str", "ZUNIONSTORE s2 1 s", "TYPE s2", "ZRANGE s2 0 -1 WITHSCORES",
			"ZADD p 0 zero", "ZUNIONSTORE m 1 p WEIGHTS -1", "ZRANGE m 0 -1 WITHSCORES",
			"ZUNIONSTORE d 2 a b WITHSCORES", "ZINTERSTORE d 2 a b LIMIT 1",
		)},
		{"store-encoding", []string{
			zaddMany("big", 200, 1), "ZADD small 1 a 2 b", "ZUNIONSTORE u 2 big small", "OBJECT ENCODING u", "ZCARD u",
			"ZINTERSTORE i 2 big small", "EXISTS i", "ZDIFFSTORE d 2 big small", "OBJECT ENCODING d",
			"ZREMRANGEBYRANK big 0 99", "ZINTERSTORE i2 2 big big", "OBJECT ENCODING i2", "ZRANGE i2 0 2 WITHSCORES",
			"ZADD long 1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "ZUNIONSTORE l 2 long small", "OBJECT ENCODING l",
			"ZRANGESTORE r big 0 -1", "OBJECT ENCODING r", "ZRANGESTORE r big 0 9", "OBJECT ENCODING r",
		}},
		{"zintercard", with(
			"ZINTERCARD 2 a b", "ZINTERCARD 3 a b s", "ZINTERCARD 2 a nokey", "ZINTERCARD 1 a", "ZINTERCARD 2 a b LIMIT 1",
			"ZINTERCARD 2 a b LIMIT 0", "ZINTERCARD 2 a b LIMIT 10", "ZINTERCARD 2 a b limit 1 limit 5", "ZINTERCARD 2 a b LIMIT -1",
			"ZINTERCARD 2 a b LIMIT x", "ZINTERCARD 2 a b LIMIT", "ZINTERCARD 2 a b WITHSCORES", "ZINTERCARD 2 a b WEIGHTS 1 2",
			"ZINTERCARD 2 a b AGGREGATE MIN", "ZINTERCARD 0 a", "ZINTERCARD -1 a", "ZINTERCARD x a", "ZINTERCARD 3 a b", "ZINTERCARD 1",
		)},
		{"errors", with(
			"ZUNION 0 a", "ZUNION -1 a", "ZUNION x a", "ZUNION 3 a b", "ZUNION 2 a", "ZUNIONSTORE d 0 a", "ZINTERSTORE d 0 a",
			"ZDIFFSTORE d 0 a", "ZINTER 0 a", "ZDIFF 0 a", "ZUNIONSTORE d 3 a b", "ZUNIONSTORE d x a",
			"ZUNION 2 a b WEIGHTS 1", "ZUNION 2 a b WEIGHTS 1 x", "ZUNION 2 a b WEIGHTS 1 nan", "ZUNION 2 a b WEIGHTS 1 2 3",
			"ZUNION 2 a b AGGREGATE", "ZUNION 2 a b AGGREGATE AVG", "ZUNION 2 a b FOO", "ZDIFF 2 a b WEIGHTS 1 1",
			"ZDIFF 2 a b AGGREGATE SUM", "ZDIFFSTORE d 2 a b WITHSCORES", "ZUNION 2 a b LIMIT 1",
			"SET str v", "ZUNION 2 a str", "ZUNION 2 nokey str", "ZINTER 2 nokey str", "ZDIFF 2 a str", "ZUNION 2 str a WEIGHTS x",
			"ZINTERCARD 2 a str", "ZUNIONSTORE d 2 a str",
			"ZUNION", "ZUNION 1", "ZUNIONSTORE d 1", "ZINTERCARD",
		)},
		{"multi-and-scripts", with(
			"MULTI", "ZUNIONSTORE d 2 a b", "ZINTER 2 a b WITHSCORES", "ZUNION 0 a", "ZINTERCARD 2 a b", "EXEC",
			"EVAL \"return redis.call('ZUNION', 2, KEYS[1], KEYS[2], 'WITHSCORES')\" 2 a b",
			"EVAL \"return redis.call('ZINTERSTORE', KEYS[1], 2, KEYS[2], KEYS[3])\" 3 d a b",
			"EVAL \"return redis.pcall('ZINTERCARD', 0, KEYS[1])\" 1 a",
			"EVAL_RO \"return redis.call('ZDIFFSTORE', KEYS[1], 1, KEYS[2])\" 2 d a",
			"!type HELLO 3", "EVAL \"redis.setresp(3) return redis.call('ZUNION', 2, KEYS[1], KEYS[2], 'WITHSCORES')\" 2 a b",
		)},
	})
}

func TestZRangeStore(t *testing.T) {
	cases := bothEncodings("zrangestore", []string{"ZADD k 1 a 2 b 3 c 4 d 5 e"}, []string{
		"ZRANGESTORE d k 0 -1", "ZRANGE d 0 -1 WITHSCORES", "ZRANGESTORE d k 1 2", "ZRANGE d 0 -1 WITHSCORES",
		"ZRANGESTORE d k 0 1 REV", "ZRANGE d 0 -1 WITHSCORES", "ZRANGESTORE d k 2 4 BYSCORE", "ZRANGE d 0 -1 WITHSCORES",
		"ZRANGESTORE d k (4 -inf BYSCORE REV LIMIT 1 2", "ZRANGE d 0 -1 WITHSCORES", "ZRANGESTORE d k [b (e BYLEX", "ZRANGE d 0 -1",
		"ZRANGESTORE d k 10 20", "EXISTS d", "ZRANGESTORE d k 0 -1", "EXPIRE d 100", "ZRANGESTORE d k 0 0", "TTL d",
		"ZRANGESTORE d nokey 0 -1", "EXISTS d", "ZRANGESTORE k k 1 2", "ZRANGE k 0 -1 WITHSCORES",
		"ZRANGESTORE d k 0 -1 WITHSCORES", "ZRANGESTORE d k 0 -1 LIMIT 0 1", "ZRANGESTORE d k a b", "ZRANGESTORE d k a b BYSCORE",
		"ZRANGESTORE d k a b BYLEX", "ZRANGESTORE d k 0 -1 BYSCORE BYLEX", "ZRANGESTORE d k 0 -1 REV REV", "ZRANGESTORE d k 0 -1 FOO",
		"SET str v", "ZRANGESTORE d str 0 -1", "ZRANGESTORE str k 0 -1", "TYPE str", "ZRANGESTORE d k 0", "ZRANGESTORE d k",
		"ZRANGESTORE d k (1 (2 BYSCORE", "EXISTS d",
	})
	runCases(t, cases)
}

func TestZMPop(t *testing.T) {
	runCases(t, []tcase{
		{"zmpop", []string{
			"ZADD a 1 x 2 y 3 z", "ZADD b 5 p", "ZMPOP 1 a MIN", "ZMPOP 1 a MAX", "ZMPOP 2 nokey a MIN COUNT 5", "EXISTS a",
			"ZMPOP 2 a b MAX", "EXISTS b", "ZMPOP 2 a b MIN", "ZADD a 1 x 2 y 3 z", "ZMPOP 1 a max count 2", "ZMPOP 1 a MIN COUNT 1",
			"ZADD c 1.5 m -inf n", "ZMPOP 1 c MIN COUNT 10",
		}},
		{"zmpop-errors", []string{
			"ZADD a 1 x", "ZMPOP 0 a MIN", "ZMPOP -1 a MIN", "ZMPOP x a MIN", "ZMPOP 2 a MIN", "ZMPOP 1 a", "ZMPOP 1 a LEFT",
			"ZMPOP 1 a MIN COUNT", "ZMPOP 1 a MIN COUNT 0", "ZMPOP 1 a MIN COUNT -1", "ZMPOP 1 a MIN COUNT x",
			"ZMPOP 1 a MIN COUNT 1 COUNT 2", "ZMPOP 1 a MIN FOO", "ZMPOP 5 a MIN", "ZMPOP 9223372036854775807 a MIN",
			"SET str v", "ZMPOP 1 str MIN", "ZMPOP 2 nokey str MIN", "ZMPOP 2 a str MIN", "ZMPOP 1 nokey MIN COUNT 0",
			"SADD s m", "ZMPOP 1 s MIN", "ZMPOP", "ZMPOP 1",
		}},
		{"zmpop-multi-scripts", []string{
			"ZADD a 1 x 2 y 3 z", "MULTI", "ZMPOP 1 a MIN", "ZMPOP 1 a MAX COUNT 5", "ZMPOP 1 a MIN", "EXEC",
			"ZADD a 1 x 2 y", "EVAL \"return redis.call('ZMPOP', 1, KEYS[1], 'MIN')\" 1 a",
			"EVAL \"return redis.call('ZMPOP', 1, KEYS[1], 'MIN')\" 1 a", "EVAL \"return redis.pcall('ZMPOP', 0, KEYS[1], 'MIN')\" 1 a",
			"EVAL_RO \"return redis.call('ZMPOP', 1, KEYS[1], 'MIN')\" 1 a", "EVAL_RO \"return redis.call('ZUNION', 1, KEYS[1])\" 1 a",
			"EVAL_RO \"return redis.call('ZUNIONSTORE', 'd', 1, KEYS[1])\" 1 a",
		}},
	})
}

// A score of -0 is 0 in a listpack and stays -0 in a skiplist, in stored
// results as in ZADD.
func TestZSetNegativeZero(t *testing.T) {
	runCases(t, []tcase{{"negative-zero", []string{
		zaddMany("big", 200, 1), "ZADD big -0 newm", "ZSCORE big newm", "ZADD small -0 x", "ZSCORE small x",
		"ZUNIONSTORE d 1 big WEIGHTS -1", "OBJECT ENCODING d", "ZSCORE d m000", "ZRANGE d -1 -1 WITHSCORES",
		"ZUNIONSTORE e 1 small WEIGHTS -1", "ZSCORE e x", "ZINCRBY big -0 m005", "ZADD big INCR -0 m008", "ZSCORE big m008",
		"ZRANGESTORE r d 0 -1", "ZSCORE r m000", "ZRANGEBYSCORE d -0 0 WITHSCORES", "ZCOUNT d 0 0",
	}}})
}

package conformance

import (
	"fmt"
	"strings"
	"testing"
)

// zaddMany returns a ZADD line adding n members "m<i>" with score i*step.
func zaddMany(key string, n int, step float64) string {
	var b strings.Builder
	b.WriteString("ZADD " + key)
	for i := range n {
		fmt.Fprintf(&b, " %v m%03d", float64(i)*step, i)
	}
	return b.String()
}

// bothEncodings runs lines on a set built by setup twice: as built (a
// listpack in Redis) and after 200 fillers were added around the setup and
// removed again, which leaves the same members in a skiplist (neither Redis
// nor floodgate converts back), so range commands are compared on both of
// Redis's encodings.
func bothEncodings(name string, setup, lines []string) []tcase {
	add, rem := "ZADD k", "ZREM k"
	for i := range 200 {
		add += fmt.Sprintf(" %d filler%d", i, i)
		rem += fmt.Sprintf(" filler%d", i)
	}
	small := append(append([]string{}, setup...), lines...)
	big := append(append([]string{add}, setup...), rem)
	big = append(big, lines...)
	return []tcase{{name + "/listpack", small}, {name + "/skiplist", big}}
}

func TestZSet(t *testing.T) {
	cases := []tcase{
		{"zadd-basic", []string{
			"ZADD k 1 a", "ZADD k 2 b 3 c", "ZADD k 1 a", "ZADD k 5 a", "ZCARD k", "ZSCORE k a",
			"ZADD k 1 x 2 x", "ZSCORE k x", "ZRANGE k 0 -1 WITHSCORES",
			"ZADD k", "ZADD k 1", "ZADD k 1 a 2", "ZADD", "ZADD k nx", "ZADD k nx 1",
		}},
		// A ZADD that converts to the large form sizes its map for the
		// pairs still to come: duplicates, updates and a second ZADD must
		// not show it.
		{"zadd-many-converts", []string{
			zaddMany("k", 3000, 1), "ZCARD k", "OBJECT ENCODING k", "ZSCORE k m2999", "ZRANK k m1500",
			zaddMany("k", 3000, 2) + " 7 m000 8 m000", "ZCARD k", "ZSCORE k m000", "ZSCORE k m1001",
			"ZADD s 1 a", zaddMany("s", 2000, 0.5) + " 3 a", "ZCARD s", "ZSCORE s a", "ZRANGE s 0 4 WITHSCORES",
			"ZADD n NX 1 a " + strings.TrimPrefix(zaddMany("", 1500, 1), "ZADD  "), "ZCARD n", "OBJECT ENCODING n",
		}},
		{"zadd-flags", []string{
			"ZADD k 1 a 2 b",
			"ZADD k NX 5 a 3 c", "ZSCORE k a", "ZSCORE k c",
			"ZADD k XX 5 a 4 d", "ZSCORE k a", "ZSCORE k d",
			"ZADD k XX CH 6 a 2 b", "ZADD k CH 7 a 8 e", "ZADD k ch ch 7 a",
			"ZADD k GT 1 a", "ZADD k GT CH 10 a", "ZSCORE k a",
			"ZADD k LT 20 a", "ZADD k LT CH 0 a 9 new", "ZSCORE k a", "ZSCORE k new",
			"ZADD k GT XX CH 1 b 100 b", "ZSCORE k b",
			"ZADD k xx nx 1 a", "ZADD k NX XX 1 a", "ZADD k gt nx 1 a", "ZADD k LT NX 1 a",
			"ZADD k GT LT 1 a", "ZADD k gt lt nx 1 a", "ZADD k xx nx gt 1 a",
			"ZADD k NX XX", "ZADD k NX XX 1", "ZADD k BOGUS 1 a", "ZADD k NX 1 a BOGUS",
			"ZADD k GT GT 3 z", "ZRANGE k 0 -1 WITHSCORES",
		}},
		{"zadd-incr", []string{
			"ZADD k INCR 1 a", "ZADD k INCR 2.5 a", "ZADD k incr -0.5 a",
			"ZADD k INCR 1 a 2 b", "ZADD k INCR 1", "ZADD k INCR a 1",
			"ZADD k NX INCR 1 a", "ZADD k NX INCR 1 b", "ZADD k XX INCR 1 c", "ZADD k XX INCR 1 a",
			"ZADD k GT INCR -1 a", "ZADD k GT INCR 1 a", "ZADD k LT INCR 1 a", "ZADD k LT INCR -10 a",
			"ZADD k CH INCR 0 a", "ZADD k INCR 0 a",
			"ZADD k 0 inf", "ZADD k INCR +inf inf", "ZADD k INCR -inf inf", "ZSCORE k inf",
			"ZADD k XX INCR 1 nokey2", "ZADD nokey XX INCR 1 a", "ZADD nokey XX 1 a", "DBSIZE",
			"ZADD k INCR 1e308 big", "ZADD k INCR 1e308 big",
		}},
		{"zadd-scores", []string{
			"ZADD k 0.1 a", "ZSCORE k a", "ZADD k 123456789012345678 b", "ZSCORE k b",
			"ZADD k 1e3 c", "ZADD k +inf d", "ZADD k -inf e", "ZADD k inf f", "ZADD k Infinity g", "ZADD k -INFINITY h",
			"ZADD k 0x10 i", "ZADD k 0X1p3 j", "ZADD k 0x1.8 l", "ZADD k .5 m", "ZADD k 5. n", "ZADD k +.5e1 o",
			"ZADD k 00012 p", "ZADD k -0 q", "ZADD k 1e-310 r", "ZADD k 2.5e-324 s", "ZADD k 1.7976931348623157e308 t",
			"ZADD k 3.0000000000000004 u", "ZADD k -1.5 v", "ZADD k 1e-5 w", "ZADD k 1234567.125 x",
			"ZRANGE k 0 -1 WITHSCORES",
			"ZADD k nan z", "ZADD k NaN z", "ZADD k ' 1' z", "ZADD k '1 ' z", "ZADD k '' z", "ZADD k 0x z",
			"ZADD k infx z", "ZADD k 1e400 z", "ZADD k -1e400 z", "ZADD k 1e-400 z", "ZADD k 1_0 z", "ZADD k . z",
			"ZADD k 1e z", "ZADD k 1e+ z", "ZADD k +-1 z", "ZADD k 0x1p-1080 z", `ZADD k "1\x00" z`, "ZADD k abc z",
			"ZADD k 1 ok 2 ok2 x bad", "ZCARD k", `ZADD k "\t1" z`, "ZADD k nan(123) z", "ZADD k 0x1p z", "ZADD k 1e5x z",
		}},
		{"wrongtype", []string{
			"INCR s", "ZADD s 1 a", "ZADD s XX 1 a", "ZADD s xx nx 1 a", "ZADD s x a", "ZINCRBY s 1 a",
			"ZCARD s", "ZSCORE s a", "ZMSCORE s a", "ZREM s a", "ZRANK s a", "ZREVRANK s a", "ZCOUNT s 0 1",
			"ZLEXCOUNT s - +", "ZRANGE s 0 -1", "ZRANGE s x y", "ZRANGEBYSCORE s 0 1", "ZREVRANGEBYSCORE s 1 0",
			"ZRANGEBYLEX s - +", "ZREVRANGEBYLEX s + -", "ZREVRANGE s 0 1", "ZREMRANGEBYSCORE s 0 1",
			"ZREMRANGEBYRANK s 0 1", "ZREMRANGEBYLEX s - +", "ZPOPMIN s", "ZPOPMAX s 2", "ZPOPMIN s 0",
			"ZRANDMEMBER s", "ZRANDMEMBER s 0", "ZRANDMEMBER s 2 WITHSCORES", "ZSCAN s 0", "ZSCAN s x",
			"ZSCAN s 0 COUNT 0", "GET s",
		}},
		{"zincrby", []string{
			"ZINCRBY k 1 a", "ZINCRBY k 0.1 a", "ZINCRBY k -2 a", "ZINCRBY k x a", "ZINCRBY k nan a",
			"ZINCRBY k inf a", "ZINCRBY k -inf a", "ZSCORE k a", "ZINCRBY k", "ZINCRBY k 1", "ZINCRBY k 1 a b",
			"ZINCRBY k 1e400 a", "ZINCRBY k 0x10 b", "ZRANGE k 0 -1 WITHSCORES",
		}},
		{"zrem-and-delete", []string{
			"ZADD k 1 a 2 b 3 c", "ZREM k a x", "ZREM k x", "ZREM nokey a", "ZREM k b c c", "DBSIZE", "ZCARD k",
			"ZSCORE k a", "ZREM k", "ZADD k 1 a", "ZREM k a", "ZRANGE k 0 -1", "DBSIZE",
		}},
		{"zscore-zmscore", []string{
			"ZADD k 1.5 a 2 b", "ZSCORE k a", "ZSCORE k x", "ZSCORE nokey a", "ZSCORE k", "ZSCORE k a b",
			"ZMSCORE k a x b", "ZMSCORE nokey a b", "ZMSCORE k", "ZMSCORE k a",
		}},
		{"zcard", []string{"ZCARD nokey", "ZADD k 1 a 1 b", "ZCARD k", "ZCARD", "ZCARD k x"}},
		{"zrank", []string{
			"ZADD k 1 a 2 b 3 c 3 d", "ZRANK k a", "ZRANK k d", "ZREVRANK k a", "ZREVRANK k d", "ZRANK k x",
			"ZREVRANK k x", "ZRANK nokey a", "ZREVRANK nokey a", "ZRANK k", "ZRANK k a withscore", "ZREVRANK k a b",
		}},
		{"zpop", []string{
			"ZADD k 1 a 2 b 3 c 4 d 5 e", "ZPOPMIN k", "ZPOPMAX k", "ZPOPMIN k 2", "ZPOPMAX k 0", "ZPOPMAX k 10",
			"DBSIZE", "ZPOPMIN k", "ZPOPMIN nokey", "ZPOPMIN nokey 3", "ZPOPMIN nokey -1", "ZPOPMIN k -1",
			"ZPOPMAX k x", "ZPOPMAX k 1.5", "ZPOPMIN k 1 2", "ZPOPMIN", "ZADD k 1 a", "ZPOPMAX k 1", "DBSIZE",
			"ZPOPMIN k 9223372036854775807", "ZPOPMIN k 9223372036854775808",
		}},
		{"zrandmember", []string{
			"ZRANDMEMBER nokey", "ZRANDMEMBER nokey 5", "ZRANDMEMBER nokey -5 WITHSCORES",
			"ZADD k 1 a 2 b 3 c",
			"!type ZRANDMEMBER k", "ZRANDMEMBER k 0", "ZRANDMEMBER k 0 WITHSCORES", "ZRANDMEMBER k 3", "ZRANDMEMBER k 10 WITHSCORES",
			"!type ZRANDMEMBER k 2", "!type ZRANDMEMBER k 2 WITHSCORES", "!type ZRANDMEMBER k -5", "!type ZRANDMEMBER k -5 WITHSCORES",
			"ZRANDMEMBER k x", "ZRANDMEMBER k 1 withscore", "ZRANDMEMBER k 1 WITHSCORES x", "ZRANDMEMBER k -9223372036854775808",
			"ZRANDMEMBER k 9223372036854775807 WITHSCORES", "ZRANDMEMBER k -9223372036854775807 WITHSCORES",
			"ZRANDMEMBER k 9223372036854775808", "ZRANDMEMBER", "ZRANDMEMBER k 1.0",
		}},
		{"zrandmember-one", []string{"ZADD k 7 only", "ZRANDMEMBER k", "ZRANDMEMBER k -3", "ZRANDMEMBER k -2 WITHSCORES", "ZRANDMEMBER k 1 WITHSCORES"}},
		{"zrange-options", []string{
			"ZADD k 1 a 2 b 3 c 4 d 5 e",
			"ZRANGE k 0 -1 LIMIT 0 -1", "ZRANGE k 0 -1 LIMIT 0 1", "ZRANGE k 0 -1 LIMIT 0", "ZRANGE k 0 -1 LIMIT",
			"ZRANGE k 0 -1 LIMIT x 1", "ZRANGE k 0 -1 LIMIT 0 x", "ZRANGE k (1 3 BYSCORE LIMIT x 1",
			"ZRANGE k - + BYLEX WITHSCORES", "ZRANGE k - + BYLEX BYSCORE", "ZRANGE k 0 1 BYSCORE BYSCORE",
			"ZRANGE k 0 1 REV REV", "ZRANGE k 0 1 bogus", "ZRANGE k 0 -1 withscores withscores",
			"ZRANGE k 1 3 BYSCORE LIMIT 1 1 WITHSCORES", "ZRANGE k 3 1 BYSCORE REV LIMIT 0 2",
			"ZRANGE k [b [d BYLEX LIMIT 1 5", "ZRANGE k [d [b BYLEX REV", "ZRANGE k x y BYSCORE", "ZRANGE k a b BYLEX",
			"ZRANGE k x 1", "ZRANGE k 0 9223372036854775808", "ZRANGE k 0 -1 LIMIT 0 -1 BYSCORE", "ZRANGE nokey 0 -1",
			"ZRANGE nokey x y", "ZRANGE k 0", "ZRANGE nokey 0 -1 LIMIT 0 1",
			"ZREVRANGE k 0 -1 LIMIT 0 1", "ZREVRANGE k 0 -1 REV", "ZREVRANGE k 0 -1 BYSCORE",
			"ZRANGEBYSCORE k 0 10 BYSCORE", "ZRANGEBYSCORE k 0 10 REV", "ZRANGEBYSCORE k 0 10 BYLEX",
			"ZRANGEBYLEX k - + WITHSCORES", "ZRANGEBYLEX k - + REV", "ZREVRANGEBYLEX k + - WITHSCORES",
			"ZRANGEBYSCORE k 0 10 LIMIT 1", "ZRANGEBYSCORE k 0 10 LIMIT 1 2 3",
		}},
		{"zscan", []string{
			"ZSCAN nokey 0", "ZSCAN nokey 0 COUNT 0", "ZSCAN nokey 0 bogus", "ZSCAN nokey x",
			"ZADD k 1 a 2.5 b 3 c 0.1 ab",
			"ZSCAN k 0", "ZSCAN k 0 COUNT 1", "ZSCAN k 7", "ZSCAN k 0 MATCH a*", "ZSCAN k 0 match ?b count 100",
			"ZSCAN k 0 MATCH *", "ZSCAN k 0 COUNT 0", "ZSCAN k 0 COUNT -1", "ZSCAN k 0 COUNT x", "ZSCAN k 0 COUNT",
			"ZSCAN k 0 MATCH", "ZSCAN k 0 TYPE zset", "ZSCAN k 0 bogus 1", "ZSCAN k x", "ZSCAN k -1", "ZSCAN k ' 1'",
			"ZSCAN k 18446744073709551616", "ZSCAN k 18446744073709551615", "ZSCAN k ''", "ZSCAN k +0", "ZSCAN k",
			"ZSCAN k 0 MATCH [ab] COUNT 5", "ZSCAN k 1x",
		}},
		{"zscan-skiplist", []string{zaddMany("k", 300, 1), "!type ZSCAN k 0 COUNT 1000", "ZSCAN k x"}},
		{"arity", []string{
			"ZCOUNT k 0", "ZLEXCOUNT k -", "ZREMRANGEBYSCORE k 0", "ZREMRANGEBYRANK k 0", "ZREMRANGEBYLEX k -",
			"ZRANGEBYSCORE k 0", "ZREVRANGEBYSCORE k 0", "ZRANGEBYLEX k -", "ZREVRANGEBYLEX k +", "ZREVRANGE k 0",
			"ZCOUNT k 0 1 2", "ZREMRANGEBYRANK k 0 1 2", "ZSCORE k", "ZMSCORE k", "ZREM k", "ZCARD",
		}},
		{"sliding-window", []string{
			"ZADD rl 1000 1000-1 1500 1500-1 2000 2000-1 2500 2500-1",
			"ZREMRANGEBYSCORE rl -inf 1500", "ZCARD rl", "ZADD rl 3000 3000-1",
			"ZREMRANGEBYSCORE rl 0 (2500", "ZCARD rl", "ZRANGE rl 0 -1 WITHSCORES",
			"ZREMRANGEBYSCORE rl -inf +inf", "DBSIZE", "ZCARD rl",
		}},
		{"zremrange-empties", []string{
			"ZADD a 0 x 0 y", "ZREMRANGEBYLEX a - +", "DBSIZE", "ZADD b 1 x 2 y", "ZREMRANGEBYRANK b 0 -1", "DBSIZE",
			"ZADD c 1 x 2 y", "ZREMRANGEBYSCORE c -inf +inf", "DBSIZE", "ZADD d 1 x", "ZPOPMIN d 5", "DBSIZE",
		}},
		{"skiplist-conversion", []string{
			zaddMany("k", 128, 1), "ZCARD k", "ZADD k 200 one-more", "ZCARD k", "ZRANGE k 120 -1 WITHSCORES",
			"ZRANK k m064", "ZREVRANK k m064", "ZSCORE k m127", "ZINCRBY k 1000 m000", "ZRANGE k -2 -1 WITHSCORES",
			"ZREMRANGEBYSCORE k 10 (100", "ZCARD k", "ZRANGE k 0 20", "ZREMRANGEBYRANK k 5 -5", "ZRANGE k 0 -1 WITHSCORES",
			"ZADD k 1 " + strings.Repeat("x", 64), "ZADD k 1 " + strings.Repeat("y", 65), "ZRANGEBYSCORE k 1 1",
			"ZPOPMIN k 3", "ZPOPMAX k 2", "ZCARD k", "ZREMRANGEBYRANK k 0 -1", "DBSIZE",
		}},
		{"skiplist-long-member", []string{
			"ZADD k 1 " + strings.Repeat("z", 100) + " 0 a", "ZRANGE k 0 -1 WITHSCORES", "ZREM k a", "ZCARD k",
		}},
		{"skiplist-window", []string{
			zaddMany("k", 1000, 0.5), "ZREMRANGEBYSCORE k -inf (100", "ZCARD k", "ZCOUNT k 100 (200", "ZRANGE k 0 2 WITHSCORES",
			"ZRANK k m500", "ZREVRANK k m500", "ZRANGEBYSCORE k 300 310 WITHSCORES LIMIT 2 3",
			"ZREVRANGEBYSCORE k 310 300 LIMIT 2 3", "ZREMRANGEBYRANK k 0 99", "ZRANGE k 0 0", "ZPOPMIN k", "ZPOPMAX k 2",
			"ZRANGE k -3 -1 REV WITHSCORES", "ZRANDMEMBER k 2000 WITHSCORES", "!type ZRANDMEMBER k 5 WITHSCORES", "!type ZRANDMEMBER k -3",
		}},
	}
	cases = append(cases, bothEncodings("zrange-rank", []string{"ZADD k 1 a 2 b 3 c 4 d 5 e"}, []string{
		"ZRANGE k 0 -1", "ZRANGE k 0 -1 WITHSCORES", "ZRANGE k 1 3", "ZRANGE k -2 -1", "ZRANGE k -100 1",
		"ZRANGE k 3 1", "ZRANGE k 5 10", "ZRANGE k 2 100 WITHSCORES", "ZRANGE k 0 -1 REV", "ZRANGE k 0 1 REV WITHSCORES",
		"ZRANGE k -2 -1 REV", "ZREVRANGE k 0 -1", "ZREVRANGE k 0 0 WITHSCORES", "ZREVRANGE k 1 -2", "ZREVRANGE k -1 -1",
		"ZRANGE k 0 -1 rev withscores", "ZRANGE k -1 -2", "ZRANK k c", "ZREVRANK k c",
	})...)
	cases = append(cases, bothEncodings("zrange-score", []string{"ZADD k 1 a 2 b 2 bb 3 c 4 d 5.5 e"}, []string{
		"ZRANGEBYSCORE k -inf +inf", "ZRANGEBYSCORE k 2 3 WITHSCORES", "ZRANGEBYSCORE k (2 3", "ZRANGEBYSCORE k 2 (3",
		"ZRANGEBYSCORE k (2 (3", "ZRANGEBYSCORE k (1 (1", "ZRANGEBYSCORE k 1 1", "ZRANGEBYSCORE k 3 1", "ZRANGEBYSCORE k -inf 2",
		"ZRANGEBYSCORE k 5 +inf WITHSCORES", "ZRANGEBYSCORE k ' 2' 3", "ZRANGEBYSCORE k '' 2", "ZRANGEBYSCORE k ( 2",
		"ZRANGEBYSCORE k 0x2 0x3", "ZRANGEBYSCORE k 1e400 inf", "ZRANGEBYSCORE k -1e400 1", `ZRANGEBYSCORE k "2\x00junk" 3`,
		"ZRANGEBYSCORE k 2 '3 '", "ZRANGEBYSCORE k nan 3", "ZRANGEBYSCORE k (nan 3", "ZRANGEBYSCORE k 1 x", "ZRANGEBYSCORE k [1 3",
		"ZRANGEBYSCORE k -inf +inf LIMIT 1 2", "ZRANGEBYSCORE k -inf +inf LIMIT 0 0", "ZRANGEBYSCORE k -inf +inf LIMIT 2 -1",
		"ZRANGEBYSCORE k -inf +inf LIMIT -1 2", "ZRANGEBYSCORE k -inf +inf LIMIT 5 10 WITHSCORES", "ZRANGEBYSCORE k -inf +inf LIMIT 6 1",
		"ZRANGEBYSCORE k -inf +inf LIMIT 1000 1", "ZRANGEBYSCORE k 2 2 LIMIT 1 1",
		"ZREVRANGEBYSCORE k +inf -inf", "ZREVRANGEBYSCORE k 3 2 WITHSCORES", "ZREVRANGEBYSCORE k (3 2", "ZREVRANGEBYSCORE k 3 (2",
		"ZREVRANGEBYSCORE k 2 3", "ZREVRANGEBYSCORE k +inf -inf LIMIT 1 2", "ZREVRANGEBYSCORE k +inf -inf LIMIT 2 -1 WITHSCORES",
		"ZREVRANGEBYSCORE k +inf -inf LIMIT 0 100", "ZREVRANGEBYSCORE k x 1",
		"ZRANGE k 2 4 BYSCORE", "ZRANGE k (2 4 BYSCORE WITHSCORES", "ZRANGE k 4 2 BYSCORE REV", "ZRANGE k +inf -inf BYSCORE REV LIMIT 1 3",
		"ZCOUNT k -inf +inf", "ZCOUNT k 2 2", "ZCOUNT k (2 3", "ZCOUNT k 3 1", "ZCOUNT k (1 (1", "ZCOUNT k x 1", "ZCOUNT k 1 (x",
		"ZCOUNT nokey 0 1", "ZCOUNT nokey x 1",
	})...)
	cases = append(cases, bothEncodings("zrange-lex", []string{`ZADD k 0 a 0 b 0 ba 0 c 0 d 0 e 0 ""`}, []string{
		"ZRANGEBYLEX k - +", "ZRANGEBYLEX k [b [d", "ZRANGEBYLEX k (b (d", "ZRANGEBYLEX k [b (ba", "ZRANGEBYLEX k (a [ba",
		"ZRANGEBYLEX k + -", "ZRANGEBYLEX k - [c", "ZRANGEBYLEX k [c +", "ZRANGEBYLEX k [ +", "ZRANGEBYLEX k ( +", "ZRANGEBYLEX k [z +",
		"ZRANGEBYLEX k [d [b", "ZRANGEBYLEX k [b [b", "ZRANGEBYLEX k (b [b", "ZRANGEBYLEX k - + LIMIT 1 2", "ZRANGEBYLEX k - + LIMIT 2 -1",
		"ZRANGEBYLEX k - + LIMIT -1 1", "ZRANGEBYLEX k a +", "ZRANGEBYLEX k - c", "ZRANGEBYLEX k -x +", "ZRANGEBYLEX k - +x",
		"ZRANGEBYLEX k '' +", `ZRANGEBYLEX k "-\x00" +`,
		"ZREVRANGEBYLEX k + -", "ZREVRANGEBYLEX k [d [b", "ZREVRANGEBYLEX k (d (b", "ZREVRANGEBYLEX k - +", "ZREVRANGEBYLEX k + - LIMIT 1 2",
		"ZREVRANGEBYLEX k + - LIMIT 0 -1", "ZREVRANGEBYLEX k [d a",
		"ZRANGE k [b [d BYLEX", "ZRANGE k [d [b BYLEX REV LIMIT 0 2", "ZRANGE k - + BYLEX LIMIT 1 1",
		"ZLEXCOUNT k - +", "ZLEXCOUNT k [b [d", "ZLEXCOUNT k (b (d", "ZLEXCOUNT k + -", "ZLEXCOUNT k [d [b", "ZLEXCOUNT k b d",
		"ZLEXCOUNT k [b", "ZLEXCOUNT nokey - +", "ZLEXCOUNT nokey x y",
	})...)
	cases = append(cases, bothEncodings("zremrange", []string{"ZADD k 1 a 2 b 3 c 4 d 5 e 6 f 7 g 8 h"}, []string{
		"ZREMRANGEBYSCORE k 1 1", "ZREMRANGEBYSCORE k (2 3", "ZREMRANGEBYSCORE k 10 20", "ZREMRANGEBYSCORE k 3 1",
		"ZREMRANGEBYSCORE k x 1", "ZREMRANGEBYSCORE k 1 nan", "ZRANGE k 0 -1 WITHSCORES",
		"ZREMRANGEBYRANK k 0 0", "ZREMRANGEBYRANK k -1 -1", "ZREMRANGEBYRANK k 10 20", "ZREMRANGEBYRANK k 2 1",
		"ZREMRANGEBYRANK k x 1", "ZREMRANGEBYRANK k 0 1.5", "ZRANGE k 0 -1 WITHSCORES",
		"ZREMRANGEBYLEX k [x [z", "ZREMRANGEBYLEX k x y", "ZREMRANGEBYLEX k + -", "ZCARD k",
		"ZREMRANGEBYSCORE nokey 0 1", "ZREMRANGEBYRANK nokey 0 1", "ZREMRANGEBYLEX nokey - +",
		"ZREMRANGEBYSCORE nokey x 1", "ZREMRANGEBYRANK nokey x 1", "ZREMRANGEBYLEX nokey x y",
	})...)
	cases = append(cases, bothEncodings("zpop-both", []string{"ZADD k 1 a 2 b 3 c 4 d"}, []string{
		"ZPOPMIN k", "ZPOPMAX k 2", "ZRANDMEMBER k 5 WITHSCORES", "ZPOPMIN k 5", "DBSIZE",
	})...)
	cases = append(cases,
		tcase{"encoding-and-existence", []string{
			"ZADD k 1 a", "TYPE k", "OBJECT ENCODING k", "EXISTS k", zaddMany("k", 127, 1), "ZCARD k", "OBJECT ENCODING k",
			"ZADD k 5 m001", "OBJECT ENCODING k", "ZADD k 1000 new", "OBJECT ENCODING k", "ZREMRANGEBYRANK k 0 -3",
			"OBJECT ENCODING k", "ZPOPMIN k 2", "EXISTS k", "TYPE k",
			"ZADD j 1 " + strings.Repeat("x", 64), "OBJECT ENCODING j", "ZADD j 2 " + strings.Repeat("y", 65), "OBJECT ENCODING j",
			"ZINCRBY i 1 " + strings.Repeat("z", 65), "OBJECT ENCODING i", "ZADD h XX 1 " + strings.Repeat("z", 65), "EXISTS h",
			"ZADD g 1 a", "ZREM g a", "EXISTS g", "ZADD g 1 a", "ZREMRANGEBYSCORE g 1 1", "EXISTS g",
		}},
		tcase{"edges", []string{
			"ZADD n GT INCR 5 a", "ZADD n LT CH 1 a 7 b", "ZADD n GT CH 2 a 8 b 9 c", "ZRANGE n 0 -1 WITHSCORES",
			"ZINCRBY fresh 2.5 x", "ZRANGE fresh 0 -1 WITHSCORES",
			`ZADD bin 0 "\xff" 0 a 0 "a\x00" 0 "" 0 A`, "ZRANGE bin 0 -1", `ZRANK bin "\xff"`, `ZRANGEBYLEX bin "[a" "(\xff"`,
			`ZLEXCOUNT bin "(a" +`, `ZRANGEBYLEX bin - "[a\x00"`,
			"ZADD s 1 a 2 b 3 c", "ZRANGEBYSCORE s (-inf (inf", "ZRANGEBYSCORE s (inf +inf", "ZRANGEBYSCORE s -inf (-inf",
			"ZRANGE s 0 -1 BYSCORE", "ZRANGE s 0 9223372036854775807", "ZRANGE s -9223372036854775808 1",
			"ZRANGE s 1 3 BYSCORE LIMIT 0 0", "ZRANGE s (1 3 BYSCORE LIMIT 1 -5", "ZREMRANGEBYRANK s -9223372036854775808 0",
			"ZRANGE s 0 -1", "ZPOPMAX nokey 0", "ZREM s b c a", "EXISTS s", "ZCOUNT s 1 2",
			"ZADD t 1 a", "ZADD t 1.0 a", "ZADD t CH 1e0 a", "ZADD t CH 0x1 a", "ZADD t INCR 0 a", "ZADD t INCR -1 a", "ZSCORE t a",
		}},
		tcase{"from-scripts", []string{
			`EVAL "return redis.call('ZADD', KEYS[1], 1.5, 'a', 2, 'b')" 1 k`,
			`EVAL "return redis.call('ZSCORE', KEYS[1], 'a')" 1 k`,
			`EVAL "return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')" 1 k`,
			`EVAL "return redis.call('ZINCRBY', KEYS[1], 0.1, 'a')" 1 k`,
			`EVAL "return redis.call('ZADD', KEYS[1], 'XX', 'INCR', 1, 'nosuch')" 1 k`,
			`EVAL "return redis.pcall('ZADD', KEYS[1], 'NX', 'XX', 1, 'a')" 1 k`,
			`EVAL "return redis.call('ZMSCORE', KEYS[1], 'a', 'x')" 1 k`,
			`EVAL "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1]) local n = redis.call('ZCARD', KEYS[1]) if n < 5 then redis.call('ZADD', KEYS[1], ARGV[2], ARGV[2] .. '-1') return 1 end return 0" 1 rl 1000 2000`,
			"ZRANGE rl 0 -1 WITHSCORES",
		}},
		tcase{"command-info", []string{
			"COMMAND INFO zadd zincrby zrem zremrangebyscore zremrangebyrank zremrangebylex zpopmin zpopmax",
			"COMMAND INFO zcard zscore zmscore zcount zlexcount zrank zrevrank zrange zrangebyscore zrevrangebyscore",
			"COMMAND INFO zrangebylex zrevrangebylex zrevrange zrandmember zscan",
		}},
	)
	runCases(t, cases)
}

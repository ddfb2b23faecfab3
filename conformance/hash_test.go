package conformance

import (
	"fmt"
	"strings"
	"testing"
)

// hsetMany returns an HSET line adding n fields "f<i>" with values "v<i>".
func hsetMany(key string, n int) string {
	var b strings.Builder
	b.WriteString("HSET " + key)
	for i := range n {
		fmt.Fprintf(&b, " f%03d v%d", i, i)
	}
	return b.String()
}

func TestHash(t *testing.T) {
	long64, long65 := strings.Repeat("x", 64), strings.Repeat("x", 65)
	runCases(t, []tcase{
		{"hset-hget", []string{
			"HSET h a 1 b 2", "HSET h a 3 c 4", "HGET h a", "HGET h nope", "HGET nokey a",
			"HGETALL h", "HKEYS h", "HVALS h", "HLEN h", "HLEN nokey", "TYPE h", "OBJECT ENCODING h",
			"HSET h", "HSET h a", "HSET h a 1 b", "HGET h", "HGET h a b", "HGETALL", "HKEYS h x",
			`HSET h "" "" "bin\x00ary" "v\r\n"`, `HGET h "bin\x00ary"`, `HGET h ""`,
		}},
		{"insertion-order", []string{
			"HSET h z 1 y 2 x 3", "HDEL h y", "HSET h y 4 z 5", "HGETALL h", "HKEYS h", "HVALS h",
		}},
		{"hsetnx", []string{
			"HSETNX h a 1", "HSETNX h a 2", "HGET h a", "HSETNX h", "HSETNX h a 1 2",
			"HSETNX h a " + long65, "OBJECT ENCODING h", "HSETNX h b " + long65, "OBJECT ENCODING h",
		}},
		{"hmset-hmget", []string{
			"HMSET h a 1", "HMSET h x", "HMSET h x 1 y", "HMGET h a nope a", "HMGET nokey a b", "HMGET h",
			"HMSET h a 2 b 3", "HGETALL h",
		}},
		{"hdel-hexists", []string{
			"HSET h a 1 b 2 c 3", "HDEL h a nope a", "HDEL nokey a", "HEXISTS h a", "HEXISTS h b",
			"HEXISTS nokey b", "HDEL h", "HEXISTS h", "HDEL h b c", "EXISTS h", "TYPE h",
		}},
		{"hstrlen", []string{
			"HSET h a hello n 12345", "HSTRLEN h a", "HSTRLEN h n", "HSTRLEN h nope", "HSTRLEN nokey a", "HSTRLEN h",
		}},
		{"hincrby", []string{
			"HINCRBY h n 5", "HINCRBY h n -7", "HGET h n", "HINCRBY h n x", "HINCRBY h n 1.5", "HINCRBY h n",
			"HSET h s abc sp \" 1\" z 0 big 9223372036854775807 small -9223372036854775808",
			"HINCRBY h s 1", "HINCRBY h sp 1", "HINCRBY h big 1", "HINCRBY h big -1", "HINCRBY h small -1",
			"HINCRBY h small 1", "HINCRBY h z 9223372036854775807", "HINCRBY h z 9223372036854775808",
			"HINCRBY nokey2 x y", "EXISTS nokey2",
		}},
		{"hincrbyfloat", []string{
			"HINCRBYFLOAT h f 1.5", "HINCRBYFLOAT h f 0.1", "HINCRBYFLOAT h f -1.6", "HINCRBYFLOAT h g 0.1",
			"HINCRBYFLOAT h g 0.2", "HINCRBYFLOAT h f x", "HINCRBYFLOAT h f inf", "HINCRBYFLOAT h f -inf",
			"HINCRBYFLOAT h f nan", "HINCRBYFLOAT h f \" 1\"", "HINCRBYFLOAT h f 0x10", "HINCRBYFLOAT h f 1e2",
			"HSET h s abc i 10 inf inf huge 1e400", "HINCRBYFLOAT h s 1", "HINCRBYFLOAT h i .1",
			"HINCRBYFLOAT h i -10.1", "HINCRBYFLOAT h inf 1", "HINCRBYFLOAT h huge 1",
			"HINCRBYFLOAT h i 1e60", "OBJECT ENCODING h", "HINCRBYFLOAT h j 1e70", "OBJECT ENCODING h",
			"HINCRBYFLOAT h f", "HINCRBYFLOAT h f 1 2", "HINCRBYFLOAT nokey f inf", "EXISTS nokey",
			"HINCRBY h f 1",
		}},
		{"wrongtype", []string{
			"SET str x", "HSET str a 1", "HSETNX str a 1", "HGET str a", "HMGET str a", "HMSET str a 1",
			"HGETALL str", "HDEL str a", "HEXISTS str a", "HLEN str", "HKEYS str", "HVALS str",
			"HINCRBY str a 1", "HINCRBY str a x", "HINCRBYFLOAT str a 1", "HINCRBYFLOAT str a x",
			"HSTRLEN str a", "HRANDFIELD str", "HRANDFIELD str 1", "HRANDFIELD str x", "HRANDFIELD str 0",
			"HSCAN str 0", "HSCAN str x", "GET str",
		}},
		{"encoding", []string{
			"HSET h a " + long64, "OBJECT ENCODING h", "HSET h b " + long65, "OBJECT ENCODING h",
			"HDEL h b", "OBJECT ENCODING h", "HSET h2 " + long65 + " 1", "OBJECT ENCODING h2",
			hsetMany("h3", 512), "OBJECT ENCODING h3", "HSET h3 one more", "OBJECT ENCODING h3",
			"HLEN h3", "!sort HKEYS h3", "!sort HVALS h3", "!sort HGETALL h3",
		}},
		{"encoding-transitions", []string{
			// Integer-like fields and values, which a listpack packs as integers,
			// come back byte for byte, in insertion order.
			"HSET h 0 -0 -1 007 9223372036854775807 -9223372036854775808 2305843009213693952 x 1700000000000 17e2",
			"HSET h 10.0.0.1 1700000000000 -2305843009213693951 +1 '' 0", "HGETALL h", "HGET h 0",
			"HGET h -9223372036854775808", "HGET h ''", "HSTRLEN h 1700000000000", "HINCRBY h 1700000000000 1",
			"HINCRBY h 9223372036854775807 -9223372036854775807", "HINCRBYFLOAT h -1 .5", "HGETALL h",
			"HDEL h 0 10.0.0.1", "HSET h 0 again", "HKEYS h", "OBJECT ENCODING h",
			// A long value converts even when it replaces an existing field's,
			// whether set by HSET, HMSET among short ones, or HINCRBYFLOAT.
			"HSET a f 1", "HSET a f " + long65, "OBJECT ENCODING a", "HSET a f 1", "OBJECT ENCODING a",
			"HMSET b f 1 g 2 h " + long65 + " i 3", "OBJECT ENCODING b", "!sort HGETALL b",
			"HSET c f 1", "HINCRBYFLOAT c f 1e40", "OBJECT ENCODING c", "HINCRBYFLOAT c f 1e60", "OBJECT ENCODING c",
			// HSETNX of an existing field never converts; of a new long one does.
			"HSET d f 1", "HSETNX d f " + long65, "OBJECT ENCODING d", "HSETNX d " + long65 + " 1", "OBJECT ENCODING d",
			// Emptied and recreated, a hash starts over as a listpack; COPY and
			// RENAME keep the encoding.
			"HDEL a f", "EXISTS a", "HSET a f 1", "OBJECT ENCODING a", "COPY b b2", "OBJECT ENCODING b2",
			"RENAME b2 b3", "OBJECT ENCODING b3", "HLEN b3",
		}},
		{"encoding-by-count", []string{
			hsetMany("h", 511), "HINCRBY h n 1", "OBJECT ENCODING h", "HINCRBY h m 1", "OBJECT ENCODING h",
			"HDEL h m n f000 f001", "OBJECT ENCODING h", "HLEN h", "HGET h f510",
			"MULTI", hsetMany("t", 512), "OBJECT ENCODING t", "HSETNX t x 1", "OBJECT ENCODING t", "EXEC",
			"EVAL \"redis.call('HSET', KEYS[1], 'a', 1) for i = 1, 512 do redis.call('HSET', KEYS[1], 'f'..i, i) end return redis.call('OBJECT', 'ENCODING', KEYS[1])\" 1 s",
			"HLEN s", "HGET s f512",
		}},
		{"hrandfield", []string{
			"HRANDFIELD nokey", "HRANDFIELD nokey 3", "HRANDFIELD nokey 3 WITHVALUES", "HRANDFIELD nokey x",
			"HSET one a 1", "HRANDFIELD one", "HRANDFIELD one 1", "HRANDFIELD one -3", "HRANDFIELD one 1 WITHVALUES",
			"HRANDFIELD one -2 withvalues", "HSET h a 1 b 2 c 3",
			"!type HRANDFIELD h", "!type HRANDFIELD h 2", "!type HRANDFIELD h -5", "!type HRANDFIELD h 2 WITHVALUES",
			"!type HRANDFIELD h -5 WITHVALUES", "HRANDFIELD h 3", "HRANDFIELD h 10 WITHVALUES", "HRANDFIELD h 0",
			"HRANDFIELD h 0 WITHVALUES", "HRANDFIELD h x", "HRANDFIELD h 1 WITHVALUE", "HRANDFIELD h 1 WITHVALUES x",
			"HRANDFIELD h -9223372036854775808", "HRANDFIELD h -9223372036854775808 WITHVALUES",
			"HRANDFIELD h -4611686018427387904 WITHVALUES", "HRANDFIELD h 4611686018427387904 WITHVALUES",
			"HRANDFIELD h 9223372036854775808", "HRANDFIELD",
		}},
		{"hscan", []string{
			"HSCAN nokey 0", "HSCAN nokey x", "HSCAN nokey 0 COUNT 0", "HSET h a 1 b 2 ab 3", "HSCAN h 0",
			"HSCAN h 5", "HSCAN h -1", "HSCAN h 18446744073709551615", "HSCAN h 18446744073709551616",
			"HSCAN h x", `HSCAN h " 0"`, "HSCAN h 0 MATCH a*", "HSCAN h 0 MATCH a* COUNT 1",
			"HSCAN h 0 match b MATCH a", "HSCAN h 0 COUNT 0", "HSCAN h 0 COUNT -1", "HSCAN h 0 COUNT x",
			"HSCAN h 0 MATCH", "HSCAN h 0 FOO 1", "HSCAN h 0 TYPE string", "HSCAN", "HSCAN h",
		}},
		{"hscan-hashtable", []string{
			hsetMany("h", 600), "OBJECT ENCODING h", "!type HSCAN h 0 COUNT 1000", "HSCAN h 0 MATCH f199 COUNT 1000",
		}},
	})
}

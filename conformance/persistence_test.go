package conformance

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/rdb"
	"github.com/redis/go-redis/v9"
)

// redisPayloads asks real Redis for the DUMP of values made by commands,
// so RESTORE cases feed both servers payloads Redis wrote.
func redisPayloads(t *testing.T, setup [][]any, keys ...string) map[string]string {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: redisAddr, DB: 13, Protocol: 2})
	defer c.Close()
	ctx := context.Background()
	c.FlushDB(ctx)
	defer c.FlushDB(ctx)
	for _, cmd := range setup {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	out := map[string]string{}
	for _, k := range keys {
		p, err := c.Dump(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		out[k] = quoteBytes(p)
	}
	return out
}

// withFooter makes a DUMP payload of body with a right version and CRC.
func withFooter(body []byte, version uint16) string {
	b := binary.LittleEndian.AppendUint16(append([]byte(nil), body...), version)
	return quoteBytes(string(binary.LittleEndian.AppendUint64(b, rdb.CRC64(0, b))))
}

func TestDumpRestore(t *testing.T) {
	var hll, lp, big []any
	hll = []any{"PFADD", "hll"}
	for i := range 50 {
		hll = append(hll, fmt.Sprint("e", i))
	}
	lp = []any{"HSET", "h"}
	big = []any{"SADD", "bigset"}
	for i := range 20 {
		lp = append(lp, fmt.Sprint("field", i), i*1000)
	}
	for i := range 600 {
		big = append(big, fmt.Sprint("m", i))
	}
	p := redisPayloads(t, [][]any{
		{"SET", "s", "hello"}, {"SET", "i", "-123456"}, {"SET", "c", strings.Repeat("compress me ", 40)},
		{"SADD", "is", 1, 2, 70000}, {"ZADD", "z", 1, "a", 2.5, "b", "-inf", "c"}, hll, lp, big,
		{"HSET", "bh", "f", strings.Repeat("long", 30)}, {"ZADD", "bz", 1, strings.Repeat("m", 100)},
	}, "s", "i", "c", "is", "z", "hll", "h", "bigset", "bh", "bz")
	roundTrip := `EVAL "local p = redis.call('DUMP', KEYS[1]) redis.call('DEL', KEYS[1]) return {redis.call('RESTORE', KEYS[1], 0, p), redis.call('DUMP', KEYS[1]) == p}" 1 `
	long := strings.Repeat("abcdefgh", 100)
	runCases(t, []tcase{
		{"dump", []string{
			"SET s hello", "DUMP s", "SET i 12345", "DUMP i", "SET n -9223372036854775808", "DUMP n",
			"SET e ''", "DUMP e", "SET l " + long, "DUMP l", "SET r 0123", "DUMP r", "APPEND ap x", "DUMP ap",
			"SET f 1.5", "DUMP f", "SET x21 aaaaaaaaaaaaaaaaaaaaa", "DUMP x21",
			"SADD is 5 1 -3", "DUMP is", "SADD is 99999999999", "DUMP is", "SREM is 99999999999", "DUMP is",
			"HSET h f v n 12 neg -5000 big 9999999999", "DUMP h", "HSET hl f " + long[:60], "DUMP hl",
			"ZADD z 1 a 2.5 b -3 c 1e100 d inf e", "DUMP z", "ZADD z2 0.1 x -0 y", "DUMP z2",
			"PFADD hll a b c", "DUMP hll", "DUMP nokey", "DUMP", "DUMP a b",
		}},
		{"restore-redis-payloads", []string{
			"RESTORE s 0 " + p["s"], "GET s", "OBJECT ENCODING s",
			"RESTORE i 0 " + p["i"], "GET i", "OBJECT ENCODING i", "INCR i",
			"RESTORE c 0 " + p["c"], "STRLEN c", "GETRANGE c 0 20",
			"RESTORE is 0 " + p["is"], "SMEMBERS is", "OBJECT ENCODING is",
			"RESTORE z 0 " + p["z"], "ZRANGE z 0 -1 WITHSCORES", "OBJECT ENCODING z",
			"RESTORE hll 0 " + p["hll"], "PFCOUNT hll",
			"RESTORE h 0 " + p["h"], "HGETALL h", "OBJECT ENCODING h",
			"RESTORE bigset 0 " + p["bigset"], "SCARD bigset", "OBJECT ENCODING bigset", "SISMEMBER bigset m77",
			"RESTORE bh 0 " + p["bh"], "HGETALL bh", "OBJECT ENCODING bh",
			"RESTORE bz 0 " + p["bz"], "ZRANGE bz 0 -1 WITHSCORES", "OBJECT ENCODING bz",
			"DUMP s", "DUMP i", "DUMP is", "DUMP z", "DUMP h",
		}},
		{"round-trip", []string{
			"SET s v", roundTrip + "s", "SET n 77", roundTrip + "n", "SADD st 3 1 2", roundTrip + "st",
			"HSET h a 1 b 2", roundTrip + "h", "ZADD z 1 a 2 b", roundTrip + "z", "SET big " + long, roundTrip + "big",
			"GET big", "SMEMBERS st",
			// A hashtable's order is Redis's hash order, so only the content compares.
			"SADD ht a b c", `EVAL "local p = redis.call('DUMP', KEYS[1]) redis.call('DEL', KEYS[1]) return redis.call('RESTORE', KEYS[1], 0, p)" 1 ht`, "!sort SMEMBERS ht",
		}},
		{"restore-options", []string{
			"SET s v", "DUMP s",
			"RESTORE s 0 " + p["s"], "RESTORE s 0 " + p["s"] + " REPLACE", "GET s",
			"RESTORE t 100000 " + p["s"], "!approx=1 TTL t",
			"RESTORE u 1 " + p["s"] + " ABSTTL", "EXISTS u",
			"RESTORE s 1 " + p["s"] + " ABSTTL REPLACE", "EXISTS s",
			"RESTORE v 4102444800000 " + p["s"] + " ABSTTL", "PEXPIRETIME v",
			"RESTORE w 0 " + p["s"] + " IDLETIME 100", "GET w", "RESTORE x 0 " + p["s"] + " FREQ 5", "GET x",
			"RESTORE y 0 " + p["s"] + " REPLACE ABSTTL IDLETIME 3", "GET y",
		}},
		{"restore-errors", []string{
			"RESTORE k 0 garbage", "RESTORE k 0 ''", "RESTORE k -1 " + p["s"], "RESTORE k abc " + p["s"],
			"RESTORE k 0 " + p["s"] + " foo", "RESTORE k 0 " + p["s"] + " IDLETIME", "RESTORE k 0 " + p["s"] + " IDLETIME -1",
			"RESTORE k 0 " + p["s"] + " IDLETIME x", "RESTORE k 0 " + p["s"] + " FREQ 256", "RESTORE k 0 " + p["s"] + " FREQ -1",
			"RESTORE k 0 " + p["s"] + " IDLETIME 1 FREQ 1", "RESTORE k 0 " + p["s"] + " FREQ 1 IDLETIME 1",
			"SET k x", "RESTORE k 0 " + p["s"], "RESTORE k -1 garbage", "RESTORE k 0 garbage REPLACE", "RESTORE k -5 garbage REPLACE",
			"RESTORE k 0 " + withFooter([]byte{2, 5}, 10) + " REPLACE", "RESTORE k 0 " + withFooter([]byte{0, 3, 'a'}, 11) + " REPLACE",
			"RESTORE k 0 " + withFooter([]byte{99, 1, 'a'}, 10) + " REPLACE", "RESTORE k 0 " + withFooter([]byte{0, 0xc3, 5, 10, 1, 2}, 10) + " REPLACE",
			"RESTORE k 0 " + withFooter([]byte{0, 3, 'a', 'b', 'c'}, 9) + " REPLACE", "GET k",
			"RESTORE", "RESTORE k", "RESTORE k 0",
		}},
		{"in-multi-and-scripts", []string{
			"SET s v", "MULTI", "DUMP s", "RESTORE t 0 " + p["s"], "EXEC", "GET t",
			`EVAL "return redis.call('RESTORE', KEYS[1], 0, ARGV[1])" 1 u ` + p["s"], "GET u",
			`EVAL "return redis.pcall('RESTORE', KEYS[1], 0, 'x')" 1 u`,
			`EVAL "return redis.call('DUMP', KEYS[1]) == ARGV[1]" 1 u ` + p["s"],
		}},
		{"wrong-type-is-fine", []string{
			"HSET h a 1", "RESTORE h 0 " + p["s"] + " REPLACE", "TYPE h", "GET h",
		}},
	})
}

func TestSaveCommands(t *testing.T) {
	runCases(t, []tcase{
		{"save", []string{
			"SET k v", "SAVE", "!type LASTSAVE", "SAVE x", "LASTSAVE x", "BGSAVE x", "BGSAVE SCHEDULE x",
			"MULTI", "SAVE", "EXEC", `EVAL "return redis.call('SAVE')" 0`, `EVAL "return redis.call('BGSAVE')" 0`,
			`EVAL "return redis.call('LASTSAVE') > 0" 0`,
		}},
		{"config", []string{
			"CONFIG GET save", "CONFIG SET save '3600 1 300 100'", "CONFIG GET save", "CONFIG SET save ''", "CONFIG GET save",
			"CONFIG SET save 3600", "CONFIG SET save '3600 x'", "CONFIG SET save '0 1'", "CONFIG SET save '10 -1'",
			"CONFIG GET rdbcompression", "CONFIG SET rdbcompression no", "CONFIG GET rdbcompression", "CONFIG SET rdbcompression yes",
			"CONFIG GET rdbchecksum", "CONFIG SET rdbchecksum maybe", "CONFIG GET stop-writes-on-bgsave-error",
			"CONFIG SET dir /tmp", "CONFIG SET dbfilename x.rdb", "CONFIG GET dbfilename",
		}},
		{"replconf", []string{"REPLCONF listening-port 6380", "REPLCONF capa eof capa psync2", "REPLCONF rdb-only 1", "REPLCONF x"}},
	})
}

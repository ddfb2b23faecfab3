package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// Every case that sets maxmemory ends by setting it back to 0 and the
// policy to noeviction: the servers are shared by the whole suite.
// memoryReset puts back what the LFU cases change. They set lfu-decay-time
// 0 because with the default (1 minute) a minute boundary between creating a
// key and touching it decays the counter first (5, 4, then 5 again), on Redis
// and on floodgate independently.
const memoryReset = "CONFIG SET maxmemory 0 maxmemory-policy noeviction lfu-decay-time 1"

func TestMemoryOOM(t *testing.T) {
	runCases(t, []tcase{
		{"noeviction", []string{
			"SET a x", "HSET h f v", "CONFIG SET maxmemory 1",
			"SET b x", "INCR n", "HSET h g v", "SADD s m", "ZADD z 1 m", "APPEND a y", "SETNX c x", "MSET d 1 e 2",
			"GET a", "HGET h f", "DEL a", "EXISTS a", "DBSIZE", "EXPIRE h 100", "PERSIST h", "PING",
			memoryReset, "SET b x",
		}},
		{"scripts", []string{
			"CONFIG SET maxmemory 1",
			`EVAL "return redis.call('set','x','y')" 0`,
			`EVAL "return redis.pcall('set','x','y')" 0`,
			`EVAL "return redis.call('get','x')" 0`,
			`EVAL "redis.call('del','x') return redis.call('set','x','y')" 0`,
			"EVAL \"#!lua\nreturn redis.call('set','x','y')\" 0",
			"EVAL \"#!lua\nreturn 1\" 0",
			"EVAL \"#!lua flags=allow-oom\nreturn redis.call('set','x','y')\" 0",
			"EVAL \"#!lua flags=no-writes\nreturn redis.call('get','x')\" 0",
			"EVAL_RO \"#!lua\nreturn 1\" 0",
			"EVAL_RO \"#!lua flags=no-writes\nreturn 1\" 0",
			// EVALSHA is judged by the flags of the script it names.
			memoryReset, "SCRIPT LOAD \"#!lua\nreturn 2\"", "SCRIPT LOAD \"#!lua flags=no-writes\nreturn 3\"",
			"CONFIG SET maxmemory 1",
			"EVALSHA 327e60b78547ebb77ec450ead371d5bd10cbdd69 0", "EVALSHA 50ad2340de91fe7294d5c746ad721ff185c16fc5 0",
			"EVALSHA_RO 50ad2340de91fe7294d5c746ad721ff185c16fc5 0", "EVALSHA 0000000000000000000000000000000000000000 0",
			memoryReset,
		}},
		{"multi", []string{
			"CONFIG SET maxmemory 1",
			"MULTI", "SET a x", "GET a", "PING", "EXEC",
			"MULTI", "DISCARD",
			memoryReset,
			"MULTI", "SET a x", "@2 CONFIG SET maxmemory 1", "EXEC", "GET a",
			"MULTI", "GET a", "@2 CONFIG SET maxmemory 1", "EXEC",
			memoryReset,
			// EXEC is denyoom when a queued script is; a script without a
			// shebang instead fails at its first denyoom redis.call.
			"MULTI", "EVAL \"#!lua\nreturn 1\" 0", "@2 CONFIG SET maxmemory 1", "EXEC",
			memoryReset,
			"MULTI", "EVAL \"return redis.call('set','b','1')\" 0", "GET a", "@2 CONFIG SET maxmemory 1", "EXEC",
			memoryReset,
		}},
		{"volatile-without-ttls", []string{
			"SET a x", "SET b y", "CONFIG SET maxmemory-policy volatile-lru maxmemory 1",
			"SET c z", "DBSIZE", "CONFIG SET maxmemory-policy volatile-ttl", "SET c z", "DBSIZE",
			"CONFIG SET maxmemory-policy volatile-random", "INCR c", "DBSIZE",
			"CONFIG SET maxmemory-policy volatile-lfu", "SADD c z", "DBSIZE",
			memoryReset,
		}},
		{"volatile-evicts-only-ttls", []string{
			"SET a x", "SET b y EX 100", "SET c z PX 100000", "CONFIG SET maxmemory-policy volatile-ttl maxmemory 1",
			"SET d w", "DBSIZE", "EXISTS a b c", memoryReset,
		}},
		{"allkeys-evicts-everything", []string{
			"SET a x", "SET b y EX 100", "HSET h f v", "CONFIG SET maxmemory-policy allkeys-random maxmemory 1",
			"SET d w", "DBSIZE", memoryReset,
			"SET a x", "CONFIG SET maxmemory-policy allkeys-lru maxmemory 1", "GET a", "DBSIZE", memoryReset,
			"SET a x", "CONFIG SET maxmemory-policy allkeys-lfu maxmemory 1", "GET a", "DBSIZE", memoryReset,
		}},
	})
}

func TestMemoryObject(t *testing.T) {
	runCases(t, []tcase{
		{"freq-and-idletime-errors", []string{
			"SET a x", "OBJECT FREQ a", "OBJECT FREQ nokey", "!approx=1 OBJECT IDLETIME a", "OBJECT IDLETIME nokey",
			"CONFIG SET maxmemory-policy allkeys-lfu", "OBJECT IDLETIME a", "OBJECT IDLETIME nokey",
			"CONFIG SET maxmemory-policy volatile-lfu", "OBJECT IDLETIME a",
			"CONFIG SET maxmemory-policy volatile-ttl", "OBJECT FREQ a", "!approx=1 OBJECT IDLETIME a",
			memoryReset,
		}},
		{"lfu-counter", []string{
			// A new key starts at LFU_INIT_VAL (5); the first access is
			// certain to count (probability 1/((5-5)*10+1)). TYPE, EXISTS,
			// TTL and OBJECT are no access, TOUCH and GET are.
			"CONFIG SET maxmemory-policy allkeys-lfu lfu-decay-time 0", "SET a x", "OBJECT FREQ a",
			"TYPE a", "EXISTS a", "TTL a", "PTTL a", "OBJECT ENCODING a", "OBJECT FREQ a",
			"GET a", "OBJECT FREQ a", "SET b x", "TOUCH b", "OBJECT FREQ b",
			"SET c x", "SET c y", "OBJECT FREQ c",
			"HSET h f v", "HGET h f", "OBJECT FREQ h",
			"CONFIG SET lfu-log-factor 0", "GET a", "GET a", "OBJECT FREQ a",
			memoryReset, "CONFIG SET lfu-log-factor 10",
		}},
	})
}

// TestMemoryAccess checks which commands count as an access to a key: under
// LFU a new key's counter is 5 and its first access certainly makes it 6,
// so one command between SET and OBJECT FREQ shows whether it touched the
// key (and a moved key keeps its counter, as Redis moves the object).
// Integers below 10,000 are left out: Redis shares one object among all keys
// holding them while maxmemory is 0, and with it one counter.
func TestMemoryAccess(t *testing.T) {
	lines := []string{"CONFIG SET maxmemory-policy allkeys-lfu lfu-decay-time 0"}
	for i, cmd := range []string{"GET %s", "STRLEN %s", "APPEND %s y", "EXPIRE %s 100", "PEXPIRE %s 100000", "PERSIST %s",
		"TTL %s", "PTTL %s", "EXPIRETIME %s", "TYPE %s", "EXISTS %s", "TOUCH %s", "OBJECT ENCODING %s",
		"GETRANGE %s 0 1", "SETRANGE %s 0 y", "GETEX %s", "GETEX %s EX 100", "SETNX %s y", "SET %s y NX",
		"SET %s y XX", "SET %s y KEEPTTL", "MSET %s y", "MSETNX %s y", "MGET %s", "RENAME %[1]s %[1]s2",
		"RENAMENX %[1]s %[1]s2", "COPY %[1]s %[1]s2", "MOVE %s 1", "RANDOMKEY", "SCAN 0", "KEYS *", "SETBIT %s 1 1",
		"GETBIT %s 1", "BITCOUNT %s", "INCRBYFLOAT %s 1", "SORT %s"} {
		k := fmt.Sprintf("k%d", i)
		lines = append(lines, "SET "+k+" x", fmt.Sprintf(cmd, k), "OBJECT FREQ "+k, "OBJECT FREQ "+k+"2",
			"SELECT 1", "OBJECT FREQ "+k, "SELECT 0", "FLUSHALL")
	}
	for i, cmd := range []string{"INCR %s", "INCRBY %s 2", "DECR %s", "SET %s 20000", "EXPIRE %s 10", "INCRBYFLOAT %s 1.5"} {
		k := fmt.Sprintf("n%d", i)
		lines = append(lines, "SET "+k+" 10000", fmt.Sprintf(cmd, k), "OBJECT FREQ "+k)
	}
	for i, cmd := range []string{"HGET %s f", "HSET %s f w", "HLEN %s", "HGETALL %s", "HEXISTS %s f", "HDEL %s g",
		"HINCRBY %s i 1", "HSCAN %s 0", "HRANDFIELD %s"} {
		k := fmt.Sprintf("h%d", i)
		lines = append(lines, "HSET "+k+" f v", fmt.Sprintf(cmd, k), "OBJECT FREQ "+k)
	}
	for i, cmd := range []string{"SADD %s b", "SCARD %s", "SISMEMBER %s a", "SMEMBERS %s", "SSCAN %s 0", "SUNIONSTORE d %s",
		"SINTERCARD 1 %s", "SMOVE %s t a"} {
		k := fmt.Sprintf("s%d", i)
		lines = append(lines, "SADD "+k+" a", fmt.Sprintf(cmd, k), "OBJECT FREQ "+k, "OBJECT FREQ d", "OBJECT FREQ t", "DEL d t")
	}
	for i, cmd := range []string{"ZADD %s 1 b", "ZSCORE %s a", "ZCARD %s", "ZRANGE %s 0 -1", "ZRANGESTORE d %s 0 -1",
		"ZINCRBY %s 1 a", "ZRANK %s a", "ZCOUNT %s -inf +inf", "ZREM %s b"} {
		k := fmt.Sprintf("z%d", i)
		lines = append(lines, "ZADD "+k+" 1 a", fmt.Sprintf(cmd, k), "OBJECT FREQ "+k, "OBJECT FREQ d", "DEL d")
	}
	for i, cmd := range []string{"PFADD %s b", "PFCOUNT %s", "PFMERGE d %s"} {
		k := fmt.Sprintf("p%d", i)
		lines = append(lines, "PFADD "+k+" a", fmt.Sprintf(cmd, k), "OBJECT FREQ "+k, "OBJECT FREQ d", "DEL d")
	}
	lines = append(lines, memoryReset)
	runCases(t, []tcase{{"lfu-first-access", lines}})
}

func TestMemoryConfig(t *testing.T) {
	runCases(t, []tcase{
		{"get", []string{
			"CONFIG GET maxmemory", "CONFIG GET maxmemory-policy", "CONFIG GET maxmemory-samples",
			"CONFIG GET lfu-log-factor", "CONFIG GET lfu-decay-time", "CONFIG GET maxmemory-eviction-tenacity",
			"!sort CONFIG GET lfu-*",
		}},
		{"set", []string{
			"CONFIG SET maxmemory 100mb", "CONFIG GET maxmemory", "CONFIG SET maxmemory 1GB", "CONFIG GET maxmemory",
			"CONFIG SET maxmemory 10k", "CONFIG GET maxmemory", "CONFIG SET maxmemory 12345", "CONFIG GET maxmemory",
			"CONFIG SET maxmemory 1tb", "CONFIG SET maxmemory 18446744073709551615", "CONFIG GET maxmemory",
			"CONFIG SET maxmemory 18446744073709551616", "CONFIG SET maxmemory ''", "CONFIG GET maxmemory",
			"CONFIG SET maxmemory 18446744073709551614", "CONFIG GET maxmemory", "CONFIG SET maxmemory 18446744073709551615kb",
			"CONFIG GET maxmemory", "CONFIG SET maxmemory 99999999999999999999999", "CONFIG GET maxmemory",
			"CONFIG SET maxmemory +5", `CONFIG SET maxmemory " 5"`, "CONFIG SET maxmemory k", "CONFIG GET maxmemory",
			"CONFIG SET maxmemory 0x10", "CONFIG SET maxmemory -0", "CONFIG SET maxmemory 1Kb", "CONFIG GET maxmemory",
			"CONFIG SET maxmemory 0",
			"CONFIG SET maxmemory-policy ALLKEYS-LRU", "CONFIG GET maxmemory-policy",
			"CONFIG SET maxmemory-policy volatile-lfu", "CONFIG GET maxmemory-policy",
			"CONFIG SET maxmemory-policy lru", "CONFIG SET maxmemory-policy ''", "CONFIG GET maxmemory-policy",
			"CONFIG SET maxmemory-samples 10", "CONFIG GET maxmemory-samples", "CONFIG SET maxmemory-samples 0",
			"CONFIG SET maxmemory-samples -1", "CONFIG SET maxmemory-samples x", "CONFIG SET maxmemory-samples 2147483648",
			"CONFIG SET maxmemory-samples 5",
			"CONFIG SET lfu-log-factor 0", "CONFIG GET lfu-log-factor", "CONFIG SET lfu-log-factor -1",
			"CONFIG SET lfu-log-factor 10", "CONFIG SET lfu-decay-time 0", "CONFIG SET lfu-decay-time 1.5",
			"CONFIG SET lfu-decay-time 1", "CONFIG GET lfu-decay-time",
			"CONFIG SET maxmemory-eviction-tenacity 100", "CONFIG GET maxmemory-eviction-tenacity",
			"CONFIG SET maxmemory-eviction-tenacity 101", "CONFIG SET maxmemory-eviction-tenacity -1",
			"CONFIG SET maxmemory-eviction-tenacity 10",
			"CONFIG SET maxmemory 1mb maxmemory-samples 0", "CONFIG GET maxmemory",
			memoryReset, "CONFIG GET maxmemory-policy",
		}},
	})
}

// TestMemoryEvictionCounts fills both servers, lowers maxmemory under
// each policy, and compares what was evicted by shape and bounds: the
// victims are sampled, so which keys go differs, but not which kind, nor
// that INFO's evicted_keys counts exactly the keys that went.
func TestMemoryEvictionCounts(t *testing.T) {
	type result struct{ dbsize, evicted, volatileLeft, persistentLeft int }
	run := func(t *testing.T, addr, policy string) result {
		c, err := dialRaw(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		do := func(args ...string) string {
			r, err := c.do(args...)
			if err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			return string(r)
		}
		defer do(strings.Fields(memoryReset)...)
		do("FLUSHALL")
		do("CONFIG", "RESETSTAT")
		value := strings.Repeat("v", 100)
		for i := range 2000 {
			if i%2 == 0 {
				do("SET", fmt.Sprintf("p:%d", i), value)
			} else {
				do("SET", fmt.Sprintf("v:%d", i), value, "EX", "1000")
			}
		}
		used := infoField(t, do("INFO", "memory"), "used_memory")
		// Room for about three quarters of the keys, evicted in one go: at
		// tenacity 100 Redis leaves no eviction to its background timer,
		// which would race with the counts read below.
		do("CONFIG", "SET", "maxmemory-eviction-tenacity", "100")
		defer do("CONFIG", "SET", "maxmemory-eviction-tenacity", "10")
		do("CONFIG", "SET", "maxmemory-policy", policy)
		do("CONFIG", "SET", "maxmemory", strconv.Itoa(used-used/4))
		do("PING")
		// No more evictions while counting (client buffers move Redis's
		// used_memory by kilobytes).
		do("CONFIG", "SET", "maxmemory", "0")
		var r result
		r.evicted = infoField(t, do("INFO", "stats"), "evicted_keys")
		r.dbsize = intReply(t, do("DBSIZE"))
		for i := range 2000 {
			if intReply(t, do("EXISTS", fmt.Sprintf("p:%d", i), fmt.Sprintf("v:%d", i))) == 1 {
				if i%2 == 0 {
					r.persistentLeft++
				} else {
					r.volatileLeft++
				}
			}
		}
		return r
	}
	for _, policy := range []string{"allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"} {
		t.Run(policy, func(t *testing.T) {
			want, got := run(t, redisAddr, policy), run(t, floodgateAddr, policy)
			for name, r := range map[string]result{"redis": want, "floodgate": got} {
				if r.evicted == 0 || r.dbsize+r.evicted != 2000 || r.dbsize != r.volatileLeft+r.persistentLeft {
					t.Errorf("%s: %+v: evicted_keys and DBSIZE do not add up to the 2000 keys", name, r)
				}
				if strings.HasPrefix(policy, "volatile") && r.persistentLeft != 1000 {
					t.Errorf("%s: %+v: a volatile policy evicted keys without a TTL", name, r)
				}
			}
		})
	}
}

func infoField(t *testing.T, info, name string) int {
	t.Helper()
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("INFO %s: %q", name, v)
			}
			return n
		}
	}
	t.Fatalf("INFO has no %s", name)
	return 0
}

func intReply(t *testing.T, r string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r, ":"), "\r\n"))
	if err != nil {
		t.Fatalf("not an integer reply: %q", r)
	}
	return n
}

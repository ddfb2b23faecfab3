package conformance

import (
	"strings"
	"testing"
)

// TestSlowlog compares SLOWLOG's replies and errors and its settings; the
// log is off (-1) while the lines run, so what it holds is known.
func TestSlowlog(t *testing.T) {
	runCases(t, []tcase{
		{"slowlog", []string{
			"CONFIG SET slowlog-log-slower-than -1", "SLOWLOG RESET", "SLOWLOG LEN", "SLOWLOG GET", "SLOWLOG GET -1",
			"SLOWLOG GET 0", "SLOWLOG GET 5", "SLOWLOG GET -2", "SLOWLOG GET x", "SLOWLOG GET 1.5", "SLOWLOG GET 1 2",
			"SLOWLOG LEN 1", "SLOWLOG RESET 1", "SLOWLOG HELP", "SLOWLOG help x", "SLOWLOG foo", "SLOWLOG",
			"CONFIG SET slowlog-log-slower-than -2", "CONFIG SET slowlog-log-slower-than x", "CONFIG SET slowlog-max-len -1",
			"CONFIG SET slowlog-max-len 1.5", "CONFIG SET slowlog-max-len 2", "!sort CONFIG GET slowlog*",
			"CONFIG SET slowlog-log-slower-than 0", "SET a b", "INCR n", "GET a", "SLOWLOG LEN", "!type SLOWLOG GET",
			"SLOWLOG GET 0", "CONFIG SET slowlog-max-len 0", "SLOWLOG LEN", "SLOWLOG GET",
			"CONFIG SET slowlog-log-slower-than 10000 slowlog-max-len 128", "SLOWLOG RESET", "!sort CONFIG GET slowlog*",
		}},
		{"slowlog-in-scripts-and-multi", []string{
			"EVAL \"return redis.call('SLOWLOG', 'LEN')\" 0", "MULTI", "SLOWLOG LEN", "SLOWLOG GET x", "EXEC",
		}},
	})
}

// TestSlowlogEntries compares what the slow log holds after the same
// commands on both servers: arguments (cut at 32 and at 128 bytes, secrets
// redacted), order, client names, and the script client's "?:0" address.
// Ids, times, durations and the client's port differ by nature and are
// left out; the shape of each entry is compared whole.
func TestSlowlogEntries(t *testing.T) {
	long := strings.Repeat("v", 200)
	many := []string{"RPUSH", "l"}
	for i := range 40 {
		many = append(many, strings.Repeat("x", i%3+1))
	}
	script := []([]string){
		{"CONFIG", "SET", "slowlog-log-slower-than", "0", "slowlog-max-len", "1000"},
		{"SLOWLOG", "RESET"},
		{"CLIENT", "SETNAME", "slow"},
		{"SET", "a", long},
		many,
		{"AUTH", "nosuch"},
		{"AUTH", "user", "pass"},
		{"HELLO", "2", "AUTH", "default", "wrong"},
		{"CONFIG", "SET", "requirepass", "", "timeout", "0"},
		{"EVAL", "redis.call('SET', 'b', ARGV[1]) return redis.call('INCR', 'n')", "0", "x"},
		{"MULTI"}, {"INCR", "n"}, {"GET", "n"}, {"EXEC"},
		{"SLOWLOG", "LEN"},
		{"CONFIG", "SET", "slowlog-log-slower-than", "-1"},
	}
	restore := [][]string{{"CONFIG", "SET", "slowlog-log-slower-than", "10000", "slowlog-max-len", "128"}, {"SLOWLOG", "RESET"}, {"FLUSHALL"}}
	logOf := func(addr string) string {
		c, err := dialRaw(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		defer func() {
			for _, cmd := range restore {
				c.do(cmd...)
			}
		}()
		for _, cmd := range script {
			if _, err := c.do(cmd...); err != nil {
				t.Fatalf("%v: %v", cmd, err)
			}
		}
		entries, ok := queryOnce(t, addr, "SLOWLOG", "GET", "-1").([]any)
		if !ok {
			t.Fatalf("%s: SLOWLOG GET -1 is not an array", addr)
		}
		var out []string
		for _, e := range entries {
			f, ok := e.([]any)
			if !ok || len(f) != 6 {
				t.Fatalf("%s: entry %v", addr, e)
			}
			peer := f[4].(string)
			if peer != "?:0" {
				peer = "client"
			}
			out = append(out, formatValue(f[3])+" "+peer+" name="+f[5].(string))
		}
		return strings.Join(out, "\n")
	}
	want := logOf(redisAddr)
	for _, addr := range floodgates() {
		if got := logOf(addr); got != want {
			t.Errorf("%s slow log:\n%s\nredis:\n%s", transportName(addr), got, want)
		}
	}
}

// TestMemory compares MEMORY's replies: errors exactly, and the numbers,
// which measure each server's own allocations, by type and shape.
func TestMemory(t *testing.T) {
	runCases(t, []tcase{
		{"memory", []string{
			"MEMORY HELP", "MEMORY help x", "MEMORY foo", "MEMORY", "MEMORY USAGE", "MEMORY USAGE nosuch",
			"SET a b", "!type MEMORY USAGE a", "!type MEMORY USAGE a SAMPLES 0", "!type MEMORY usage a samples 5 samples 1",
			"MEMORY USAGE a SAMPLES", "MEMORY USAGE a SAMPLES x", "MEMORY USAGE a SAMPLES -1", "MEMORY USAGE a foo",
			"MEMORY USAGE nosuch SAMPLES x", "MEMORY USAGE nosuch SAMPLES 1",
			"RPUSH l 1 2 3", "HSET h f v", "ZADD z 1 m", "SADD s 1", "!type MEMORY USAGE l", "!type MEMORY USAGE h",
			"!type MEMORY USAGE z", "!type MEMORY USAGE s",
			"!type MEMORY STATS", "MEMORY STATS x", "MEMORY DOCTOR", "MEMORY DOCTOR x", "MEMORY PURGE", "MEMORY PURGE x",
			"!known=the-Go-runtime-has-no-jemalloc-report-so-floodgate-answers-as-Redis-built-with-libc MEMORY MALLOC-STATS", "MEMORY MALLOC-STATS x",
			"EVAL \"return redis.call('MEMORY', 'USAGE', 'nosuch')\" 0", "MULTI", "MEMORY USAGE nosuch", "MEMORY DOCTOR", "EXEC",
		}},
	})
}

// TestLatency compares LATENCY's replies with the latency monitor off (its
// default) and on with a threshold no command here reaches, and the
// latency-tracking settings; histograms hold each server's own durations,
// so they are compared by shape after CONFIG RESETSTAT leaves one call in
// them.
func TestLatency(t *testing.T) {
	runCases(t, []tcase{
		{"latency", []string{
			"LATENCY HELP", "LATENCY help x", "LATENCY foo", "LATENCY", "LATENCY LATEST", "LATENCY LATEST x",
			"LATENCY HISTORY", "LATENCY HISTORY command", "LATENCY HISTORY a b", "LATENCY GRAPH command", "LATENCY GRAPH",
			"LATENCY RESET", "LATENCY RESET command fast-command", "LATENCY DOCTOR", "LATENCY DOCTOR x",
			"CONFIG RESETSTAT", "!type LATENCY HISTOGRAM", "LATENCY HISTOGRAM nosuch", "!type LATENCY HISTOGRAM config|resetstat nosuch",
			"!type LATENCY HISTOGRAM CONFIG|RESETSTAT", "!type LATENCY HISTOGRAM config", "LATENCY HISTOGRAM get",
		}},
		{"latency-monitor", []string{
			"CONFIG GET latency-monitor-threshold", "CONFIG SET latency-monitor-threshold -1", "CONFIG SET latency-monitor-threshold x",
			"CONFIG SET latency-monitor-threshold 1.5", "CONFIG SET latency-monitor-threshold 100000", "CONFIG GET latency-monitor-threshold",
			"SET a b", "LATENCY LATEST", "LATENCY HISTORY command", "LATENCY DOCTOR", "LATENCY GRAPH command", "LATENCY RESET",
			"CONFIG SET latency-monitor-threshold 0", "LATENCY DOCTOR",
		}},
		{"latency-tracking-config", []string{
			"!sort CONFIG GET latency-tracking*", "CONFIG SET latency-tracking-info-percentiles 101",
			"CONFIG SET latency-tracking-info-percentiles x", "CONFIG SET latency-tracking-info-percentiles -1",
			`CONFIG SET latency-tracking-info-percentiles "50  99"`, `CONFIG SET latency-tracking-info-percentiles "1e1 99.999 0"`,
			"CONFIG GET latency-tracking-info-percentiles", `CONFIG SET latency-tracking-info-percentiles ""`,
			"CONFIG GET latency-tracking-info-percentiles", `CONFIG SET latency-tracking-info-percentiles "50 99 99.9"`,
			"CONFIG SET latency-tracking maybe", "CONFIG SET latency-tracking no", "CONFIG RESETSTAT", "SET a b",
			"LATENCY HISTOGRAM", "INFO latencystats", "CONFIG SET latency-tracking yes", "CONFIG GET latency-tracking",
		}},
	})
}

// TestReplicationAdmin compares what a master with no replicas answers
// (ROLE, WAIT, FAILOVER) and DEBUG and MODULE as Redis 7.0 refuses them
// by default.
func TestReplicationAdmin(t *testing.T) {
	runCases(t, []tcase{
		{"role-wait-failover", []string{
			"ROLE", "ROLE x", "WAIT 0 0", "WAIT -1 0", "WAIT 0", "WAIT x 0", "WAIT 0 x", "WAIT 0 -1", "WAIT 0 1.5",
			"WAIT 1 50", "SET a b", "WAIT 2 10", "MULTI", "WAIT 1 0", "EXEC", "EVAL \"return redis.call('WAIT', 0, 0)\" 0",
			"FAILOVER", "FAILOVER ABORT", "FAILOVER x", "FAILOVER TIMEOUT", "FAILOVER TIMEOUT 0", "FAILOVER TIMEOUT x",
			"FAILOVER TIMEOUT 10 TIMEOUT 5", "FAILOVER TO h", "FAILOVER TO h x", "FAILOVER TO h 1 FORCE", "FAILOVER FORCE FORCE",
			"FAILOVER ABORT x", "FAILOVER FORCE",
		}},
		{"wait-unblock", []string{
			"@2 !id", "@2 !send WAIT 1 0", "!blocked=1", "CLIENT UNBLOCK {id@2}", "@2 !recv WAIT",
			"@2 !send WAIT 3 0", "!blocked=1", "CLIENT UNBLOCK {id@2} ERROR", "@2 !recv WAIT",
		}},
		{"replication-errors", []string{
			"REPLCONF x y", "REPLCONF listening-port x", "REPLCONF capa", "REPLCONF script-loads", "REPLCONF rdb-only 2", "REPLCONF rdb-filter-only x",
			"REPLCONF rdb-only x", "REPLCONF rdb-only 0",
			"REPLICAOF 127.0.0.1 x", "REPLICAOF a", "SLAVEOF a b c", "REPLICAOF NO ONE", "SLAVEOF no one",
			"MULTI", "REPLICAOF NO ONE", "EXEC",
			"CONFIG GET replicaof", "CONFIG GET repl-backlog-size", "CONFIG GET repl-diskless-sync", "CONFIG GET repl-diskless-sync-delay",
			"CONFIG GET min-replicas-to-write", "CONFIG GET min-replicas-max-lag", "CONFIG GET repl-ping-replica-period", "CONFIG GET replica-read-only",
			"CONFIG SET min-replicas-to-write 1", "SET repl:k v", "GET repl:k", "EVAL \"return redis.call('set', 'repl:k', 'v')\" 0",
			"MULTI", "SET repl:k v", "EXEC", "CONFIG SET min-replicas-to-write 0", "SET repl:k v", "DEL repl:k",
		}},
		{"replica-of-nothing", []string{
			// A replica whose master never answers (nothing listens on
			// port 1): FAILOVER is refused as on a replica, writes are
			// READONLY, reads are served (replica-serve-stale-data).
			"SET repl:k v", "REPLICAOF 127.0.0.1 1", "REPLICAOF 127.0.0.1 1", "FAILOVER", "FAILOVER TIMEOUT 10",
			"SET repl:k w", "GET repl:k", "EVAL \"return redis.call('set', 'repl:k', 'w')\" 0",
			"REPLICAOF NO ONE", "SET repl:k w", "DEL repl:k",
		}},
		{"debug-module", []string{
			"DEBUG", "DEBUG HELP", "DEBUG SLEEP 0", "DEBUG OBJECT a", "debug reload",
			"MODULE", "MODULE HELP", "MODULE LIST", "MODULE LIST x", "MODULE LOAD /nosuch.so", "MODULE LOAD",
			"MODULE LOADEX /x CONFIG a b", "MODULE UNLOAD x", "MODULE UNLOAD", "MODULE foo",
			"EVAL \"return redis.call('MODULE', 'LIST')\" 0", "EVAL \"return redis.call('DEBUG', 'SLEEP', 0)\" 0",
		}},
	})
}

// TestClusterDisabled compares the cluster commands of a server with
// cluster support off.
func TestClusterDisabled(t *testing.T) {
	runCases(t, []tcase{
		{"cluster", []string{
			"CLUSTER", "CLUSTER INFO", "CLUSTER HELP", "CLUSTER foo", "CLUSTER KEYSLOT", "CLUSTER KEYSLOT a",
			"CLUSTER SLOTS", "CLUSTER NODES x", "CLUSTER SETSLOT 1", "CLUSTER RESET HARD", "CLUSTER SHARDS",
			"READONLY", "READONLY x", "READWRITE", "ASKING", "MULTI", "ASKING", "CLUSTER INFO", "EXEC",
			"EVAL \"return redis.call('CLUSTER', 'INFO')\" 0", "EVAL \"return redis.call('READONLY')\" 0",
		}},
	})
}

// TestKeyspaceHits compares INFO's keyspace_hits and keyspace_misses after
// the same commands: read lookups count (expired keys as misses), writes'
// lookups do not, and the sources of the STORE commands do.
func TestKeyspaceHits(t *testing.T) {
	script := [][]string{
		{"FLUSHALL"}, {"SET", "a", "1"}, {"SET", "e", "1", "PX", "1"}, {"GET", "a"}, {"GET", "nosuch"}, {"MGET", "a", "b", "a"},
		{"EXISTS", "a", "nosuch"}, {"TYPE", "a"}, {"TTL", "nosuch"}, {"INCR", "a"}, {"DEL", "a"}, {"GET", "a"},
		{"SADD", "s", "1", "2"}, {"SADD", "t", "2"}, {"SMEMBERS", "s"}, {"SINTERSTORE", "d", "s", "t", "nosuch"},
		{"SINTER", "s", "t"}, {"HSET", "h", "f", "v"}, {"HGET", "h", "f"}, {"HGET", "nosuch", "f"},
		{"EVAL", "return redis.call('GET', KEYS[1])", "1", "h2"}, {"MULTI"}, {"GET", "s"}, {"LLEN", "l"}, {"EXEC"},
		{"GETDEL", "t"}, {"OBJECT", "ENCODING", "s"}, {"DUMP", "nosuch"}, {"STRLEN", "z"},
	}
	counts := func(addr string) string {
		c, err := dialRaw(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		for _, cmd := range script[:3] {
			c.do(cmd...)
		}
		// The key set with PX 1 has expired once TTL says so.
		for {
			b, _ := c.do("PTTL", "e")
			if string(b) == ":-2\r\n" {
				break
			}
		}
		c.do("CONFIG", "RESETSTAT")
		c.do("GET", "e") // an expired key is a miss
		for _, cmd := range script[3:] {
			if _, err := c.do(cmd...); err != nil {
				t.Fatal(err)
			}
		}
		r := infoOf(t, addr, "INFO", "stats")
		return "hits=" + r.values["keyspace_hits"] + " misses=" + r.values["keyspace_misses"]
	}
	want := counts(redisAddr)
	for _, addr := range floodgates() {
		if got := counts(addr); got != want {
			t.Errorf("%s: %s, redis: %s", transportName(addr), got, want)
		}
	}
}

// TestKeyspaceHitsInWrites compares keyspace_hits and keyspace_misses
// command by command for write commands: a destination is looked up for
// writing (counted nowhere), the reads inside a write (SET GET, GETSET,
// PFMERGE's sources, BITFIELD with GETs only, the consumer-group
// commands) count, and OBJECT counts without raising keymiss.
func TestKeyspaceHitsInWrites(t *testing.T) {
	setup := []string{"FLUSHALL", "RPUSH l 2 1", "SADD s a", "ZADD z 1 a", "SET str 1", "GEOADD g 1 1 m",
		"XADD st 1-0 f v", "XGROUP CREATE st g 0"}
	cmds := []string{
		"SORT l STORE d1", "SORT l BY w_* GET # STORE d2", "SUNIONSTORE d3 s nos", "ZUNIONSTORE d4 1 z",
		"ZRANGESTORE d5 z 0 -1", "COPY str d6", "COPY str d6", "BITOP OR d7 str", "GEOSEARCHSTORE d8 g FROMLONLAT 1 1 BYRADIUS 10 km",
		"MSET d9 1", "LMOVE l d10 LEFT LEFT", "PFMERGE h1 h2", "PFMERGE h1", "PFMERGE h3 str", "GETSET n1 v",
		"GETSET n1 w", "SET n2 v GET", "SET n2 w GET", "SET n3 v", "BITFIELD n4 GET u8 0", "BITFIELD n5 SET u8 0 1",
		"BITFIELD str GET u8 0", "XREADGROUP GROUP g c STREAMS nost >", "XREADGROUP GROUP g c STREAMS st >",
		"XCLAIM st g c2 0 1-0", "XCLAIM nost g c 0 1-0", "XAUTOCLAIM st g c3 0 0", "XACK st g 1-0", "XACK nost g 1-0",
		"OBJECT ENCODING nok", "OBJECT ENCODING str",
	}
	counts := func(addr string) []string {
		c, err := dialRaw(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		do := func(cmd string) {
			args, err := splitArgs(cmd)
			if err == nil {
				_, err = c.do(args...)
			}
			if err != nil {
				t.Fatalf("%s: %s: %v", addr, cmd, err)
			}
		}
		for _, cmd := range setup {
			do(cmd)
		}
		var out []string
		for _, cmd := range cmds {
			do("CONFIG RESETSTAT")
			do(cmd)
			r := infoOf(t, addr, "INFO", "stats")
			out = append(out, cmd+": hits="+r.values["keyspace_hits"]+" misses="+r.values["keyspace_misses"])
		}
		return out
	}
	want := counts(redisAddr)
	for _, addr := range floodgates() {
		got := counts(addr)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: %s, redis: %s", transportName(addr), got[i], want[i])
			}
		}
	}
}

// TestClientPause compares CLIENT PAUSE and UNPAUSE: what a pause holds
// back (under WRITE, writes, a transaction with one, a script that may
// write; commands sent inside MULTI too, as Redis checks the pause before
// queueing) and that it runs once the pause ends. The pauses last 5 s, so
// that a case that fails cannot leave a server paused for the next ones;
// whether UNPAUSE or the timeout releases a client, its reply is the same.
func TestClientPause(t *testing.T) {
	runCases(t, []tcase{
		{"client-pause-errors", []string{
			"CLIENT PAUSE", "CLIENT PAUSE x", "CLIENT PAUSE -1", "CLIENT PAUSE 1.5", "CLIENT PAUSE 10 foo", "CLIENT PAUSE 10 WRITE x",
			"CLIENT UNPAUSE x", "CLIENT UNPAUSE", "EVAL \"return redis.call('CLIENT', 'PAUSE', 10)\" 0",
		}},
		{"client-pause-write", []string{
			"SET k 1", "CLIENT PAUSE 5000 WRITE", "@2 GET k", "@2 !send INCR k", "!blocked=1", "GET k", "CLIENT UNPAUSE",
			"@2 !recv INCR", "!blocked=0", "@2 GET k",
			"@2 MULTI", "@2 INCR k", "@2 GET k", "CLIENT PAUSE 5000 write", "@2 !send EXEC", "!blocked=1", "CLIENT UNPAUSE", "@2 !recv EXEC",
			"CLIENT PAUSE 5000 WRITE", "@2 MULTI", "@2 GET k", "@2 EXEC", "@2 !send INCR k", "!blocked=1", "CLIENT UNPAUSE", "@2 !recv INCR",
			"CLIENT PAUSE 5000 WRITE", "@2 !send EVAL \"return redis.call('INCR', 'k')\" 0", "!blocked=1", "CLIENT UNPAUSE", "@2 !recv EVAL",
			"CLIENT PAUSE 5000 WRITE", "@2 EVAL \"#!lua flags=no-writes\nreturn redis.call('GET', 'k')\" 0", "CLIENT UNPAUSE", "GET k",
		}},
		{"client-pause-all", []string{
			// ALL outranks the WRITE pause, which keeps its longer end: reads
			// are held back until then (UNPAUSE would be held back too). One
			// second, each read waits for on each server, is well past 50 ms.
			"SET k 1", "CLIENT PAUSE 1000 WRITE", "CLIENT PAUSE 50 ALL", "@2 !send GET k", "@2 !recv GET",
			"CLIENT UNPAUSE", "@2 INCR k",
		}},
	})
}

package conformance

import "testing"

// Blocking commands, with a blocked client (@2, @3) and a pusher (@1).
// Each !send is followed by !blocked=N, so that the next line runs only
// once the command has blocked on both servers.
func TestBlocking(t *testing.T) {
	runCases(t, []tcase{
		{"served-by-push", []string{
			"@2 !send BLPOP l 0", "!blocked=1", "RPUSH l a b", "@2 !recv BLPOP", "!blocked=0", "LRANGE l 0 -1",
			"@2 !send BRPOP nokey other 0", "!blocked=1", "RPUSH other x y", "@2 !recv BRPOP", "LRANGE other 0 -1",
		}},
		{"fifo", []string{
			"@2 !send BLPOP l 0", "!blocked=1", "@3 !send BLPOP l 0", "!blocked=2", "RPUSH l a",
			"@2 !recv BLPOP", "!blocked=1", "RPUSH l b c", "@3 !recv BLPOP", "LRANGE l 0 -1",
		}},
		{"one-push-serves-several", []string{
			"@2 !send BLPOP l 0", "!blocked=1", "@3 !send BRPOP l 0", "!blocked=2", "RPUSH l a b c",
			"@2 !recv BLPOP", "@3 !recv BRPOP", "LRANGE l 0 -1",
		}},
		{"immediate", []string{
			"RPUSH l a b", "BLPOP nokey l 0", "BRPOP l 1", "EXISTS l", "BLPOP l l 0.01",
			"RPUSH s 1 2 3", "BRPOPLPUSH s d 0", "BLMOVE s d LEFT LEFT 0", "LRANGE d 0 -1",
			"BLMPOP 0 2 nokey s LEFT COUNT 5", "EXISTS s", "ZADD z 1 a 2 b 3 c", "BZPOPMIN z 0", "BZPOPMAX nokey z 0",
			"BZMPOP 0 1 z MIN COUNT 5", "EXISTS z",
		}},
		{"timeout", []string{
			"@2 !send BLPOP l 0.05", "@2 !recv BLPOP", "@2 !send BRPOPLPUSH l d 0.01", "@2 !recv BRPOPLPUSH",
			"@2 !send BLMOVE l d LEFT RIGHT 0.01", "@2 !recv BLMOVE", "@2 !send BLMPOP 0.01 1 l LEFT", "@2 !recv BLMPOP",
			"@2 !send BZPOPMIN z 0.01", "@2 !recv BZPOPMIN", "@2 !send BZMPOP 0.01 1 z MAX COUNT 2", "@2 !recv BZMPOP",
			"!blocked=0", "@2 PING",
		}},
		{"timeout-then-next-waiter", []string{
			"@2 !send BLPOP l 0.02", "@3 !send BLPOP l 0", "@2 !recv BLPOP", "!blocked=1", "RPUSH l x", "@3 !recv BLPOP",
		}},
		{"timeout-errors", []string{
			"BLPOP l abc", "BLPOP l -1", "BLPOP l -0.5", "BLPOP l inf", "BLPOP l -inf", "BLPOP l 1e400", "BLPOP l nan",
			`BLPOP l ""`, `BLPOP l " 1"`, "BLPOP l 9.3e15", "BLPOP l 1e-400", "BLPOP l 1e5000", "BLPOP l -1e5000", "BLPOP l 1e4900", "BLPOP l 1e-5000", "BRPOP l x", "BRPOPLPUSH a b x", "BLMOVE a b LEFT LEFT x",
			"BLMOVE a b UP LEFT x", "BLMPOP x 1 l LEFT", "BLMPOP 0 0 l LEFT", "BLMPOP x 1 l MIDDLE", "BLMPOP -1 1 l LEFT",
			"BZPOPMIN z x", "BZPOPMAX z -1", "BZMPOP x 1 z MIN", "BZMPOP 0 1 z LEFT", "BZMPOP 0 1 z MIN COUNT 0",
			"BZMPOP 0 x z MIN",
		}},
		{"wrongtype", []string{
			"SET str x", "BLPOP nokey str 0", "BRPOP str 0", "BRPOPLPUSH str d 0", "BLMOVE str d LEFT LEFT 0",
			"RPUSH l a", "BRPOPLPUSH l str 0", "LRANGE l 0 -1", "BLMPOP 0 2 nokey str LEFT", "BZPOPMIN str 0",
			"BZMPOP 0 1 str MIN", "ZADD z 1 a", "BLPOP z 0", "BZPOPMIN l 0",
		}},
		{"arity", []string{
			"BLPOP", "BLPOP l", "BRPOP l", "BLMOVE a b LEFT LEFT", "BRPOPLPUSH a b", "BLMPOP 0 1 l", "BZPOPMIN z",
			"BZPOPMAX", "BZMPOP 0 1 z",
		}},
		{"in-multi", []string{
			"MULTI", "BLPOP l 0", "BRPOP l 0", "BRPOPLPUSH l d 0", "BLMOVE l d LEFT LEFT 0", "BLMPOP 0 1 l LEFT",
			"BZPOPMIN z 0", "BZPOPMAX z 0", "BZMPOP 0 1 z MIN", "RPUSH l a", "BLPOP l 0", "EXEC", "!blocked=0",
		}},
		{"push-in-multi-serves-after-exec", []string{
			"@2 !send BLPOP l 0", "!blocked=1", "MULTI", "RPUSH l a", "LPOP l", "RPUSH l b", "LLEN l", "EXEC",
			"@2 !recv BLPOP", "EXISTS l",
		}},
		{"in-script", []string{
			`EVAL "return redis.call('blpop', KEYS[1], 0)" 1 l`, `EVAL "return redis.pcall('brpoplpush', KEYS[1], 'd', 0)" 1 l`,
			`EVAL "return redis.call('bzpopmin', KEYS[1], 0)" 1 l`, `EVAL "return redis.call('blmpop', 0, 1, KEYS[1], 'LEFT')" 1 l`,
			`EVAL "return redis.call('bzmpop', 0, 1, KEYS[1], 'MIN')" 1 l`,
			"@2 !send BLPOP l 0", "!blocked=1",
			`EVAL "redis.call('rpush', KEYS[1], 'a', 'b'); redis.call('lpop', KEYS[1]); return redis.call('llen', KEYS[1])" 1 l`,
			"@2 !recv BLPOP", "EXISTS l",
		}},
		{"blmove-chain", []string{
			"@2 !send BLMOVE a b LEFT RIGHT 0", "!blocked=1", "@3 !send BLPOP b 0", "!blocked=2", "RPUSH a x y",
			"@2 !recv BLMOVE", "@3 !recv BLPOP", "LRANGE a 0 -1", "EXISTS b",
			"@2 !send BRPOPLPUSH a a 0", "RPUSH c z", "LRANGE a 0 -1",
		}},
		{"blmove-target-turned-wrongtype", []string{
			"@2 !send BLMOVE a s LEFT LEFT 0", "!blocked=1", "SET s str", "RPUSH a x", "@2 !recv BLMOVE", "LRANGE a 0 -1",
			"GET s",
		}},
		{"other-type-keeps-waiting", []string{
			"@2 !send BLPOP k 0", "!blocked=1", "ZADD k 1 m", "SET k2 v", "RPUSH k3 v", "!blocked=1", "DEL k", "RPUSH k v",
			"@2 !recv BLPOP", "@2 !send BZPOPMIN k 0", "!blocked=1", "RPUSH k a", "!blocked=1", "DEL k", "ZADD k 5 m 6 n",
			"@2 !recv BZPOPMIN", "ZRANGE k 0 -1 WITHSCORES",
		}},
		{"zset", []string{
			"@2 !send BZPOPMAX z1 z2 0", "!blocked=1", "ZADD z2 1 a 2 b", "@2 !recv BZPOPMAX",
			"@2 !send BZMPOP 0 2 z3 z4 MIN COUNT 3", "!blocked=1", "ZADD z4 3 c 1 a 2 b 4 d", "@2 !recv BZMPOP", "ZRANGE z4 0 -1",
			"@2 !send BZMPOP 0 1 z5 MAX", "!blocked=1", "ZADD z5 1.5 a", "@2 !recv BZMPOP", "EXISTS z5",
		}},
		{"blmpop-served", []string{
			"@2 !send BLMPOP 0 2 a b RIGHT COUNT 2", "!blocked=1", "RPUSH b 1 2 3", "@2 !recv BLMPOP", "LRANGE b 0 -1",
		}},
		{"rename-and-copy-serve", []string{
			"@2 !send BLPOP dst 0", "!blocked=1", "RPUSH src a", "RENAME src dst", "@2 !recv BLPOP", "EXISTS dst",
			"@2 !send BLPOP cp 0", "!blocked=1", "RPUSH orig a b", "COPY orig cp", "@2 !recv BLPOP", "LRANGE cp 0 -1",
		}},
		{"swapdb-serves", []string{
			"@2 !send BLPOP l 0", "!blocked=1", "SELECT 1", "RPUSH l a", "SWAPDB 0 1", "@2 !recv BLPOP", "SELECT 0",
			"EXISTS l",
		}},
		{"duplicate-key", []string{
			"@2 !send BLPOP l l 0", "!blocked=1", "RPUSH l a b", "@2 !recv BLPOP", "LRANGE l 0 -1",
		}},
		{"pipelined-behind-blocked", []string{
			"@2 !send BLPOP l 0", "@2 !send RPUSH l mine", "@2 !send LRANGE l 0 -1", "!blocked=1", "LLEN l",
			"RPUSH l a", "@2 !recv BLPOP", "@2 !recv RPUSH", "@2 !recv LRANGE",
		}},
		{"disconnect-leaves-nothing", []string{
			"@2 !send BLPOP l 0", "!blocked=1", "@2 !close", "!blocked=0", "RPUSH l a", "LRANGE l 0 -1",
		}},
		{"client-unblock", []string{
			"@2 !id", "@2 !send BLPOP l 0", "!blocked=1", "CLIENT UNBLOCK {id@2}", "@2 !recv BLPOP", "!blocked=0",
			"CLIENT UNBLOCK {id@2}", "@2 !send BRPOPLPUSH l d 0", "!blocked=1", "CLIENT UNBLOCK {id@2} TIMEOUT",
			"@2 !recv BRPOPLPUSH", "@2 !send BZPOPMIN z 0", "!blocked=1", "CLIENT UNBLOCK {id@2} error", "@2 !recv BZPOPMIN",
			"@2 !send BLMOVE a b LEFT LEFT 0", "!blocked=1", "CLIENT UNBLOCK {id@2} ERROR", "@2 !recv BLMOVE", "@2 PING",
			"CLIENT UNBLOCK 999999", "CLIENT UNBLOCK abc", "CLIENT UNBLOCK 1 foo", "CLIENT UNBLOCK abc foo",
			"CLIENT UNBLOCK 1 TIMEOUT extra", "CLIENT UNBLOCK",
		}},
		{"first-ready-key-serves", []string{
			"@2 !send BLPOP a b 0", "!blocked=1", "MULTI", "RPUSH b x", "RPUSH a y", "EXEC", "@2 !recv BLPOP",
			"LRANGE a 0 -1", "EXISTS b",
		}},
		{"served-pop-dirties-watch", []string{
			"WATCH l", "@2 !send BLPOP l 0", "!blocked=1", "@3 RPUSH l a", "@2 !recv BLPOP", "MULTI", "PING", "EXEC",
		}},
		{"pushed-then-emptied-in-multi", []string{
			"@2 !send BLPOP l 0", "!blocked=1", "MULTI", "RPUSH l a", "DEL l", "EXEC", "!blocked=1", "RPUSH l b",
			"@2 !recv BLPOP",
		}},
		{"count-beyond-length", []string{
			"@2 !send BLMPOP 0 1 l LEFT COUNT 100", "!blocked=1", "RPUSH l a b c", "@2 !recv BLMPOP", "EXISTS l",
			"@2 !send BZMPOP 0 1 z MAX COUNT 100", "!blocked=1", "ZADD z 1 a 2 b", "@2 !recv BZMPOP", "EXISTS z",
		}},
		{"select-db", []string{
			"@2 SELECT 3", "@2 !send BLPOP l 0", "!blocked=1", "RPUSH l db0", "!blocked=1", "SELECT 3", "RPUSH l db3",
			"@2 !recv BLPOP", "SELECT 0", "LRANGE l 0 -1",
		}},
		{"blocked-client-list", []string{
			"@2 !send BLPOP l 0", "!blocked=1", "!type CLIENT LIST", "RPUSH l a", "@2 !recv BLPOP",
		}},
		// Every way a list or sorted set comes to be stored at a key serves
		// its waiters: SORT ... STORE, LMOVE, the zset algebra's STORE
		// forms, ZRANGESTORE, GEOADD and GEOSEARCHSTORE.
		{"stores-serve", []string{
			"RPUSH src 3 1 2", "@2 !send BLPOP sorted 0", "!blocked=1", "SORT src STORE sorted", "@2 !recv BLPOP",
			"@2 !send BRPOP moved 0", "!blocked=1", "LMOVE src moved LEFT LEFT", "@2 !recv BRPOP",
			"ZADD za 1 a 2 b", "ZADD zb 3 c", "@2 !send BZPOPMIN u 0", "!blocked=1", "ZUNIONSTORE u 2 za zb", "@2 !recv BZPOPMIN",
			"@2 !send BZPOPMAX r 0", "!blocked=1", "ZRANGESTORE r za 0 -1", "@2 !recv BZPOPMAX",
			"@2 !send BZMPOP 0 1 g MIN COUNT 5", "!blocked=1", "GEOADD g 13.361389 38.115556 Palermo", "@2 !recv BZMPOP",
			"GEOADD places 13.361389 38.115556 Palermo 15.087269 37.502669 Catania",
			"@2 !send BZPOPMIN near 0", "!blocked=1", "GEOSEARCHSTORE near places FROMLONLAT 15 37 BYRADIUS 200 km", "@2 !recv BZPOPMIN",
			"@2 !send BLPOP str 0", "!blocked=1", "SET str x", "DEL str", "RPUSH str y", "@2 !recv BLPOP",
		}},
	})
}

// TestBlockedStats: a blocked command gets its slow log entry and latency
// sample when a push serves it, and none when it times out (Redis's
// updateStatsOnUnblock). Entries hold ids, times and ports that differ:
// their number and shape are compared. The log is reset after each wait
// for the block, whose polls (INFO clients) it logs too.
func TestBlockedStats(t *testing.T) {
	runCases(t, []tcase{
		{"served-blocked-stats", []string{
			"CONFIG SET slowlog-log-slower-than 0", "CONFIG RESETSTAT",
			"@2 !send BLPOP l 0", "!blocked=1", "SLOWLOG RESET", "RPUSH l a", "@2 !recv BLPOP", "SLOWLOG LEN",
			"!type SLOWLOG GET", "!blocked=0", "SLOWLOG RESET", "@2 BLPOP none 0.01", "SLOWLOG LEN",
			"@2 !send BZPOPMIN z 0", "!blocked=1", "SLOWLOG RESET", "ZADD z 1 m", "@2 !recv BZPOPMIN", "SLOWLOG LEN",
			"CONFIG SET slowlog-log-slower-than -1", "!type LATENCY HISTOGRAM blpop bzpopmin",
			"CONFIG SET slowlog-log-slower-than 10000", "SLOWLOG RESET",
		}},
	})
}

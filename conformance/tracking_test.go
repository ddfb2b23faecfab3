package conformance

import (
	"regexp"
	"testing"
)

// Client-side caching, with a tracking client (@2, @3) and a writer (@1,
// which never tracks). An invalidation is read with !recv; a line that
// expects none is followed by a PING on the tracking connection, whose
// reply would be the stray message otherwise. Every case ends with RESET
// on its tracking connections (withResets), which turns tracking off at
// once, and each case starts with FLUSHALL, which empties the tracking
// table, so INFO's tracking fields start from nothing.

// trackingInfo reads one INFO field through a script, so that the line
// compares only that number.
func trackingInfo(field string) string {
	section := "stats"
	if field == "tracking_clients" {
		section = "clients"
	}
	return `EVAL "return string.match(redis.call('info', '` + section + `'), '` + field + `:%d+')" 0`
}

// TestTrackingCommands covers CLIENT TRACKING, CACHING, GETREDIR and
// TRACKINGINFO on both protocols: every error in Redis's order, and the
// state TRACKINGINFO reports.
func TestTrackingCommands(t *testing.T) {
	runCases(t, withResets([]tcase{
		{"errors", []string{
			"@2 CLIENT TRACKING", "@2 CLIENT TRACKING foo", "@2 CLIENT TRACKING on foo", "@2 CLIENT TRACKING on REDIRECT",
			"@2 CLIENT TRACKING on REDIRECT x", "@2 CLIENT TRACKING on REDIRECT 0", "@2 CLIENT TRACKING on REDIRECT 99999999",
			"@2 CLIENT TRACKING on REDIRECT -1", "@2 CLIENT TRACKING on PREFIX a", "@2 CLIENT TRACKING on PREFIX",
			"@2 CLIENT TRACKING on BCAST OPTIN", "@2 CLIENT TRACKING on BCAST OPTOUT", "@2 CLIENT TRACKING on OPTIN OPTOUT",
			"@2 CLIENT TRACKING maybe BCAST", "@2 CLIENT TRACKING maybe nope", "@2 CLIENT TRACKING off REDIRECT 99999999",
			"@2 CLIENT TRACKING off PREFIX a", "@2 CLIENT TRACKING off BCAST OPTIN OPTOUT", "@2 CLIENT TRACKINGINFO",
			"@2 CLIENT GETREDIR", "@2 CLIENT GETREDIR x", "@2 CLIENT TRACKINGINFO x", "@2 CLIENT CACHING", "@2 CLIENT CACHING yes no",
			"@2 CLIENT CACHING yes", "@2 CLIENT CACHING maybe", "@2 client tracking ON", "@2 CLIENT CACHING yes",
			"@2 CLIENT CACHING no", "@2 CLIENT CACHING maybe", "@2 CLIENT TRACKING on BCAST", "@2 CLIENT TRACKING on OPTIN",
			"@2 CLIENT TRACKINGINFO", "@2 CLIENT TRACKING on OPTOUT", "@2 CLIENT CACHING no", "@2 CLIENT TRACKING on OPTIN NOLOOP",
			"@2 CLIENT TRACKINGINFO", "@2 CLIENT TRACKING off", "@2 CLIENT TRACKING on BCAST", "@2 CLIENT TRACKING on",
			"@2 CLIENT TRACKINGINFO", "@2 CLIENT GETREDIR", "@2 CLIENT TRACKING off", "@2 CLIENT TRACKINGINFO",
			"@2 CLIENT GETREDIR",
		}},
		{"redirect-twice", []string{
			"@3 !id", "@2 CLIENT TRACKING on REDIRECT {id@3} REDIRECT {id@3}", "@2 CLIENT TRACKING on REDIRECT {id@3} BCAST x",
			"@2 CLIENT GETREDIR", "@2 CLIENT TRACKING on REDIRECT {id@3}", "@2 !type CLIENT GETREDIR", "@2 CLIENT TRACKING on",
			"@2 CLIENT GETREDIR", "@2 CLIENT TRACKING on REDIRECT {id@2}", "@2 !type CLIENT GETREDIR",
		}},
		{"optin-caching-info", []string{
			"@2 CLIENT TRACKING on OPTIN", "@2 CLIENT CACHING yes", "@2 CLIENT TRACKINGINFO", "@2 CLIENT TRACKINGINFO",
			"@2 PING", "@2 CLIENT TRACKINGINFO", "@2 CLIENT CACHING YES", "@2 CLIENT TRACKING on OPTIN", "@2 CLIENT TRACKINGINFO",
			"@2 CLIENT TRACKING off", "@2 CLIENT TRACKING on OPTOUT", "@2 CLIENT CACHING NO", "@2 CLIENT TRACKINGINFO",
			"@2 GET k", "@2 CLIENT TRACKINGINFO",
		}},
		{"prefixes", []string{
			"@2 CLIENT TRACKING on BCAST PREFIX ab PREFIX a", "@2 CLIENT TRACKINGINFO",
			"@2 CLIENT TRACKING on BCAST PREFIX b PREFIX b", `@2 CLIENT TRACKING on BCAST PREFIX "" PREFIX x`,
			"@2 CLIENT TRACKING on BCAST PREFIX user: PREFIX obj: PREFIX a", "@2 CLIENT TRACKINGINFO",
			"@2 CLIENT TRACKING on BCAST PREFIX use", "@2 CLIENT TRACKING on BCAST PREFIX objects", "@2 CLIENT TRACKING on BCAST PREFIX b PREFIX ab",
			"@2 CLIENT TRACKING on BCAST PREFIX user:", "@2 CLIENT TRACKING on BCAST PREFIX zz", "@2 CLIENT TRACKINGINFO",
			"@2 CLIENT TRACKING on BCAST", "@2 CLIENT TRACKINGINFO", trackingInfo("tracking_total_prefixes"),
			"@2 CLIENT TRACKING off", "@2 CLIENT TRACKINGINFO", trackingInfo("tracking_total_prefixes"),
		}},
		// Redis 7.0's checkPrefixCollisionsOrReply returns the index of a
		// given prefix that overlaps a later one: past the first, the error
		// is followed by tracking turned on and OK, two replies.
		{"prefix-overlap-double-reply", []string{
			"@2 CLIENT TRACKING on BCAST PREFIX x PREFIX ab PREFIX a", "@2 !recv CLIENT", "@2 CLIENT TRACKINGINFO",
			trackingInfo("tracking_total_prefixes"), trackingInfo("tracking_clients"),
		}},
		{"binary-prefix", []string{
			`@2 CLIENT TRACKING on BCAST PREFIX "a\x00b" PREFIX "a\x00"`, `@2 CLIENT TRACKING on BCAST PREFIX "a\r\nb"`,
			`@2 CLIENT TRACKING on BCAST PREFIX "a\r\nbc"`, "@2 CLIENT TRACKINGINFO",
		}},
		{"info", []string{
			trackingInfo("tracking_clients"), "@2 CLIENT TRACKING on", "@3 CLIENT TRACKING on BCAST PREFIX p PREFIX q",
			trackingInfo("tracking_clients"), trackingInfo("tracking_total_prefixes"), "@2 GET a", "@2 MGET a b c",
			"@3 GET a", "@2 CLIENT TRACKING on OPTIN", trackingInfo("tracking_total_keys"), trackingInfo("tracking_total_items"),
			"@2 CLIENT TRACKING off", trackingInfo("tracking_clients"), trackingInfo("tracking_total_keys"), "SET a 1",
			"@2 PING", trackingInfo("tracking_total_keys"), trackingInfo("tracking_total_items"), "@3 RESET", trackingInfo("tracking_clients"),
			trackingInfo("tracking_total_prefixes"), "@3 CLIENT TRACKINGINFO",
		}},
		{"scripts-and-multi-refuse", []string{
			`EVAL "return redis.call('client', 'tracking', 'on')" 0`, "MULTI", "CLIENT TRACKING on", "CLIENT CACHING yes",
			"CLIENT TRACKING off", "EXEC", "CLIENT TRACKINGINFO", "CLIENT TRACKING off",
		}},
	}))
}

// TestTrackingRESP3 covers invalidations as RESP3 pushes on the tracking
// client's own connection.
func TestTrackingRESP3(t *testing.T) {
	runCasesOn(t, 3, withResets([]tcase{
		{"write-invalidates", []string{
			"@2 CLIENT TRACKING on", "@2 GET k", "SET k v", "@2 !recv invalidate", "@2 GET k", "@2 GET k", "APPEND k x",
			"@2 !recv invalidate", "SET k again", "@2 PING", "@2 GET k", "DEL k", "@2 !recv invalidate", "@2 GET k",
			"DEL k", "@2 PING", "@2 HGET h f", "HSET h f v", "@2 !recv invalidate", "@2 LRANGE l 0 -1", "RPUSH l a",
			"@2 !recv invalidate", "@2 EXISTS l", "LPOP l", "@2 !recv invalidate", "@2 SMEMBERS s", "@2 ZSCORE z m",
			"SADD s a", "@2 !recv invalidate", "ZADD z 1 m", "@2 !recv invalidate", "@2 TTL z", "EXPIRE z 100",
			"@2 !recv invalidate", "@2 STRLEN z", "PERSIST z", "@2 !recv invalidate",
		}},
		{"many-keys-and-clients", []string{
			"@2 CLIENT TRACKING on", "@3 CLIENT TRACKING on", "@2 MGET a b c", "@3 GET b", "MSET a 1 b 2 c 3",
			"@2 !recv invalidate", "@2 !recv invalidate", "@2 !recv invalidate", "@3 !recv invalidate", "@3 PING",
			"@2 GET x", "@3 GET y", "RENAME x y", "SET x 1", "RENAME x y", "@2 !recv invalidate", "@3 !recv invalidate",
			"@2 PING", "@3 PING", "@2 SUNION s1 s2", "SUNIONSTORE s1 s2 s3", "SADD s3 m", "SUNIONSTORE s1 s3", "@2 !recv invalidate",
			"@2 ZUNION 2 z1 z2", "ZADD z2 1 a", "@2 !recv invalidate", "ZADD z1 1 a", "@2 !recv invalidate",
		}},
		{"own-writes-after-reply", []string{
			"@2 CLIENT TRACKING on", "@2 GET a", "@2 SET a 1", "@2 !recv invalidate", "@2 GET a", "@2 GET b",
			"@2 MULTI", "@2 SET a 2", "@2 GET a", "@2 SET b 2", "@2 EXEC", "@2 !recv invalidate", "@2 !recv invalidate",
			"@2 PING", "@2 GET s",
			`@2 EVAL "redis.call('set', 's', 1); redis.call('set', 't', 1); return redis.call('get', 's')" 0`,
			"@2 !recv invalidate", "@2 PING",
		}},
		{"scripts-remember-declared-keys", []string{
			"@2 CLIENT TRACKING on", `@2 EVAL "return redis.call('get', KEYS[1])" 1 sk`, "SET sk 1", "@2 !recv invalidate",
			`@2 EVAL "return redis.call('get', 'undeclared')" 0`, "SET undeclared 1", "@2 PING",
			`@2 EVAL "return 1" 1 nocall`, "SET nocall 1", "@2 PING", `@2 EVAL_RO "return redis.call('get', KEYS[1])" 1 ro`,
			"SET ro 1", "@2 !recv invalidate", `@2 EVAL_RO "return 1" 1 ro2`, "SET ro2 1", "@2 PING",
			`@2 EVAL "redis.call('set', KEYS[1], 'x'); return redis.call('get', KEYS[2])" 2 w1 w2`, "SET w1 2", "@2 PING",
			// The PING read w1's invalidation: its own reply is read before
			// w2 is set, or the SET could run first on another connection.
			"@2 !recv PONG", "SET w2 2", "@2 !recv invalidate",
		}},
		{"flush", []string{
			"@2 CLIENT TRACKING on", "@3 CLIENT TRACKING on BCAST", "@2 GET f", "FLUSHALL", "@2 !recv invalidate",
			"@3 !recv invalidate", "@2 PING", "@3 PING", "@2 FLUSHDB", "@2 !recv invalidate", "@3 !recv invalidate",
			"@2 GET g", "FLUSHDB ASYNC", "@2 !recv invalidate", "@3 !recv invalidate", trackingInfo("tracking_total_keys"),
			"SET g 1", "@2 PING", "@3 !recv invalidate", "@2 MULTI", "@2 FLUSHALL", "@2 PING", "@2 EXEC", "@2 !recv invalidate",
			"@3 !recv invalidate",
		}},
		{"noloop", []string{
			"@2 CLIENT TRACKING on NOLOOP", "@2 GET n", "@2 SET n 1", "@2 PING", "@2 GET n", "SET n 2", "@2 !recv invalidate",
			"@2 GET n", "@2 MULTI", "@2 DEL n", "@2 EXEC", "@2 PING", "@2 GET n", "@2 FLUSHALL", "@2 !recv invalidate",
		}},
		{"optin", []string{
			"@2 CLIENT TRACKING on OPTIN", "@2 GET a", "SET a 1", "@2 PING", "@2 CLIENT CACHING yes", "@2 GET a", "SET a 2",
			"@2 !recv invalidate", "@2 GET a", "SET a 3", "@2 PING", "@2 CLIENT CACHING yes", "@2 MULTI", "@2 GET a",
			"@2 GET b", "@2 EXEC", "MSET a 4 b 4", "@2 !recv invalidate", "@2 !recv invalidate", "@2 CLIENT CACHING yes",
			"@2 !type CLIENT ID", "@2 GET c", "SET c 1", "@2 !recv invalidate", "@2 CLIENT CACHING yes", "@2 NOSUCH", "@2 GET d",
			"SET d 1", "@2 PING",
		}},
		{"optout", []string{
			"@2 CLIENT TRACKING on OPTOUT", "@2 CLIENT CACHING no", "@2 GET a", "@2 GET b", "MSET a 1 b 1",
			"@2 !recv invalidate", "@2 PING", "@2 GET a", "SET a 2", "@2 !recv invalidate",
		}},
		{"bcast", []string{
			"@2 CLIENT TRACKING on BCAST PREFIX user: PREFIX obj:", "SET user:1 a", "@2 !recv invalidate",
			"MSET obj:2 b user:3 c other d user:1 e", "@2 !recv invalidate", "@2 !recv invalidate", "SET other x", "@2 PING",
			"@2 SET user:9 x", "@2 !recv invalidate", "@3 CLIENT TRACKING on BCAST NOLOOP", "@3 SET mine 1", "@3 PING",
			"SET theirs 1", "@3 !recv invalidate", "@2 PING", "@3 MSET mine 2 yours 2", "@3 PING",
			"@2 GET user:9", "@2 PING", `@2 EVAL "redis.call('set', 'user:5', 1); return redis.call('del', 'user:5')" 0`,
			"@2 !recv invalidate", "@3 !recv invalidate",
		}},
		{"bcast-noloop-script", []string{
			"@3 CLIENT TRACKING on BCAST NOLOOP", `@3 EVAL "return redis.call('set', 'k', 1)" 0`, "@3 !recv invalidate",
			"@3 MULTI", "@3 SET k 2", "@3 EXEC", "@3 PING",
		}},
		{"switch-to-bcast-drops-tracked", []string{
			"@2 CLIENT TRACKING on", "@2 GET a", "@2 CLIENT TRACKING off", "@2 CLIENT TRACKING on BCAST PREFIX b",
			"SET a 1", "@2 PING", "SET b1 1", "@2 !recv invalidate",
		}},
		{"off-and-on-keeps-table", []string{
			"@2 CLIENT TRACKING on", "@2 GET a", "@2 CLIENT TRACKING off", "SET a 1", "@2 PING", "@2 GET b",
			"@2 CLIENT TRACKING on", "@2 GET c", "@2 CLIENT TRACKING off", "@2 CLIENT TRACKING on", "SET c 1",
			"@2 !recv invalidate", "SET b 1", "@2 PING",
		}},
		{"redirect-resp3", []string{
			"@3 !id", "@2 CLIENT TRACKING on REDIRECT {id@3}", "@2 GET r", "SET r 1", "@3 !recv invalidate", "@2 PING",
			"@3 PING", "@2 GET r", "CLIENT KILL ID {id@3}", "@3 !close", "SET r 2", "@2 !recvtype tracking-redir-broken", "@2 !type CLIENT TRACKINGINFO",
			"@2 GET r", "SET r 3", "@2 !recvtype tracking-redir-broken",
		}},
		{"hello-switches-form", []string{
			"@2 CLIENT TRACKING on", "@2 GET h", "@2 !type HELLO 2", "SET h 1", "@2 PING", "@2 GET h", "@2 !type HELLO 3", "SET h 2",
			"@2 !recv invalidate",
		}},
		{"reset", []string{
			"@2 CLIENT TRACKING on", "@2 GET a", "@2 RESET", "@2 !type HELLO 3", "SET a 1", "@2 PING", "@2 CLIENT TRACKINGINFO",
		}},
		{"table-max-keys", []string{
			"CONFIG SET tracking-table-max-keys 1", "@2 CLIENT TRACKING on", "@2 GET k1", "@2 PING",
			trackingInfo("tracking_total_keys"), "@2 GET k2", "@2 !recvtype invalidate", "@2 PING",
			trackingInfo("tracking_total_keys"), "@2 MGET k3 k4 k5", "@2 !recvtype invalidate", "@2 !recvtype invalidate",
			"@2 !recvtype invalidate", trackingInfo("tracking_total_keys"), "CONFIG SET tracking-table-max-keys 1000000",
			"CONFIG GET tracking-table-max-keys",
		}},
	}))
}

// TestTrackingRESP2 covers the RESP2 forms: a client without a redirect
// gets nothing, and a redirect subscribed to __redis__:invalidate gets
// messages of that channel.
func TestTrackingRESP2(t *testing.T) {
	runCasesOn(t, 2, withResets([]tcase{
		{"no-redirect-nothing", []string{
			"@2 CLIENT TRACKING on", "@2 GET a", "SET a 1", "@2 PING", "@2 GET a", "@2 SET a 2", "@2 PING", "@2 GET b",
			"FLUSHALL", "@2 PING", trackingInfo("tracking_total_keys"),
		}},
		{"redirect-subscribed", []string{
			"@3 !id", "@3 SUBSCRIBE __redis__:invalidate", "@2 CLIENT TRACKING on REDIRECT {id@3}", "@2 GET a",
			"SET a 1", "@3 !recv message", "@2 PING", "@2 GET a", "@2 SET a 2", "@3 !recv message", "@2 GET b",
			"FLUSHALL", "@3 !recv message", "@2 FLUSHDB", "@3 !recv message", "@2 CLIENT TRACKING on BCAST REDIRECT {id@3}",
			"@2 CLIENT TRACKING off", "@2 CLIENT TRACKING on BCAST REDIRECT {id@3} PREFIX p", "SET p1 1", "@3 !recv message",
			"MSET p2 1 q 1 p3 1", "@3 !recv message",
		}},
		{"redirect-not-subscribed", []string{
			"@3 !id", "@2 CLIENT TRACKING on REDIRECT {id@3}", "@2 GET a", "SET a 1", "@3 PING", "@2 PING",
		}},
		{"redirect-to-resp3", []string{
			"@3 !id", "@3 !type HELLO 3", "@2 CLIENT TRACKING on REDIRECT {id@3}", "@2 GET a", "SET a 1", "@3 !recv invalidate",
			"FLUSHALL", "@3 !recv invalidate", "@3 PING",
		}},
		{"redirect-broken-resp2", []string{
			"@3 !id", "@2 CLIENT TRACKING on REDIRECT {id@3}", "@2 GET a", "CLIENT KILL ID {id@3}", "@3 !close", "SET a 1", "@2 PING",
			"@2 !type CLIENT TRACKINGINFO", "@2 !type CLIENT GETREDIR",
		}},
	}))
}

var clientFlagsField = regexp.MustCompile(`flags=(\S*) .* redir=(-?\d+) `)

// TestTrackingClientList checks CLIENT LIST's tracking flags (t, R, B)
// and redir= on each server: the redirect is the id of the connection
// redirected to, which differs from server to server.
func TestTrackingClientList(t *testing.T) {
	for _, addr := range append([]string{redisAddr}, floodgates()...) {
		who := transportName(addr)
		if addr == redisAddr {
			who = "redis"
		}
		dial := func() *rawConn {
			c, err := dialRaw(addr)
			if err != nil {
				t.Fatalf("%s: %v", who, err)
			}
			return c
		}
		tracker, target := dial(), dial()
		idReply, _ := target.do("CLIENT", "ID")
		id := string(idReply[1 : len(idReply)-2])
		info := func(want string) {
			t.Helper()
			reply, err := tracker.do("CLIENT", "INFO")
			m := clientFlagsField.FindSubmatch(reply)
			if err != nil || m == nil {
				t.Fatalf("%s: CLIENT INFO: %q %v", who, reply, err)
			}
			if got := string(m[1]) + " " + string(m[2]); got != want {
				t.Errorf("%s: flags and redir %q, want %q", who, got, want)
			}
		}
		do := func(args ...string) {
			t.Helper()
			if reply, err := tracker.do(args...); err != nil || string(reply) != "+OK\r\n" {
				t.Fatalf("%s: %v: %q %v", who, args, reply, err)
			}
		}
		info("N -1")
		do("CLIENT", "TRACKING", "on")
		info("t 0")
		do("CLIENT", "TRACKING", "off")
		do("CLIENT", "TRACKING", "on", "BCAST", "REDIRECT", id)
		info("tB " + id)
		do("CLIENT", "TRACKING", "off")
		do("CLIENT", "TRACKING", "on", "REDIRECT", id)
		tracker.do("GET", "clientlist:k")
		// Killed, the redirect is gone at once; it is found gone when an
		// invalidation is sent.
		writer := dial()
		writer.do("CLIENT", "KILL", "ID", id)
		target.close()
		info("t " + id)
		writer.do("SET", "clientlist:k", "v")
		writer.close()
		info("tR " + id)
		do("CLIENT", "TRACKING", "off")
		info("N -1")
		tracker.close()
	}
}

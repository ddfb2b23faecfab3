package conformance

import (
	"fmt"
	"testing"
)

// Pub/sub, with a subscriber (@2, @3) and a publisher (@1). A command that
// answers several frames (SUBSCRIBE a b) is read frame by frame: the line
// reads the first, each !recv the next; a message is read with !recv. Every
// case ends with RESET on its subscribers, so that no subscription outlives
// it on the shared servers (a closed connection's goes asynchronously).
// Where more than one pattern matches a message, Redis's order is that of
// its dict, which depends on its hash seed: no case has one.
func TestPubSub(t *testing.T) {
	runCases(t, withResets([]tcase{
		{"subscribe-publish", []string{
			"@2 SUBSCRIBE ch1 ch2", "@2 !recv SUBSCRIBE", "PUBLISH ch1 hello", "@2 !recv message",
			"PUBLISH nobody x", `PUBLISH ch2 ""`, "@2 !recv message", "@2 UNSUBSCRIBE ch1", "PUBLISH ch1 x",
			"PUBLISH ch2 y", "@2 !recv message", "@2 UNSUBSCRIBE", "@2 UNSUBSCRIBE", "PUBLISH ch2 z", "@2 PING",
		}},
		{"duplicates-and-strangers", []string{
			"@2 SUBSCRIBE a a", "@2 !recv SUBSCRIBE", "PUBLISH a x", "@2 !recv message", "@2 UNSUBSCRIBE nope",
			"@2 UNSUBSCRIBE a nope", "@2 !recv UNSUBSCRIBE", "@2 UNSUBSCRIBE nope", "@2 PING",
			"@2 SET k v", "@2 GET k",
		}},
		{"patterns", []string{
			"@2 PSUBSCRIBE h?llo news.*", "@2 !recv PSUBSCRIBE", "PUBLISH hello x", "@2 !recv pmessage",
			"PUBLISH news.today y", "@2 !recv pmessage", "PUBLISH nomatch z", "@2 PUNSUBSCRIBE news.*",
			"PUBLISH news.today y", "@2 PUNSUBSCRIBE", "@2 PUNSUBSCRIBE", "@2 PUNSUBSCRIBE nope", "PUBSUB NUMPAT",
		}},
		{"glob", []string{
			`@2 PSUBSCRIBE a[bc]d "x\\*y" [^q]? "*"`, "@2 !recv PSUBSCRIBE", "@2 !recv PSUBSCRIBE", "@2 !recv PSUBSCRIBE",
			"@2 PUNSUBSCRIBE *", "PUBLISH acd 1", "@2 !recv pmessage", "PUBLISH aed 2", `PUBLISH "x*y" 3`,
			"@2 !recv pmessage", "PUBLISH xzy 4", "PUBLISH zz 5", "@2 !recv pmessage", "PUBLISH qz 6", "PUBSUB NUMPAT",
		}},
		{"channel-and-pattern", []string{
			"@2 SUBSCRIBE foo", "@2 PSUBSCRIBE f*", "@3 SUBSCRIBE foo", "PUBLISH foo m", "@2 !recv message",
			"@2 !recv pmessage", "@3 !recv message", "PUBSUB NUMSUB foo", "PUBSUB NUMPAT", "@2 UNSUBSCRIBE",
			"@2 PUNSUBSCRIBE", "PUBLISH foo n", "@3 !recv message",
		}},
		{"binary-names", []string{
			`@2 SUBSCRIBE "a b\r\nc" "\x00\xff"`, "@2 !recv SUBSCRIBE", `PUBLISH "a b\r\nc" "line\r\nbreak"`,
			"@2 !recv message", `PUBLISH "\x00\xff" "\x00"`, "@2 !recv message", `PUBSUB NUMSUB "\x00\xff"`,
		}},
		{"reset-drops", []string{
			"@2 SUBSCRIBE c", "@2 PSUBSCRIBE p*", "@2 SSUBSCRIBE s", "@2 RESET", "PUBLISH c x", "PUBLISH pq x",
			"SPUBLISH s x", "PUBSUB NUMSUB c", "PUBSUB NUMPAT", "PUBSUB SHARDNUMSUB s", "@2 GET k",
		}},
		{"reply-off-still-pushed", []string{
			"@2 !send CLIENT REPLY OFF", "@2 SUBSCRIBE c", "PUBLISH c x", "@2 !recv message", "@2 RESET", "@2 PING",
		}},
		{"multi", []string{
			"@2 SUBSCRIBE s", "MULTI", "PUBLISH s a", "PUBLISH s b", "PUBLISH none c", "EXEC", "@2 !recv message",
			"@2 !recv message", "@3 MULTI", "@3 SUBSCRIBE x y", "@3 PSUBSCRIBE z*", "@3 EXEC",
			"@3 !recv PSUBSCRIBE", "PUBLISH x 1", "@3 !recv message", "@3 UNSUBSCRIBE y x", "@3 !recv UNSUBSCRIBE",
			"@3 PUNSUBSCRIBE", "MULTI", "SSUBSCRIBE q", "EXEC", "PUBSUB SHARDNUMSUB q",
		}},
		{"scripts", []string{
			"@2 SUBSCRIBE ch", `EVAL "redis.call('publish', 'ch', 'a'); redis.call('publish', 'ch', 'b'); return redis.call('publish', 'x', 'c')" 0`,
			"@2 !recv message", "@2 !recv message", `EVAL "return redis.call('subscribe', 'x')" 0`,
			`EVAL "return redis.pcall('unsubscribe')" 0`, `EVAL "return redis.call('spublish', 'ch', 'a')" 0`,
			`EVAL "return redis.call('pubsub', 'numsub', 'ch')" 0`,
		}},
		{"shard", []string{
			"@2 SSUBSCRIBE s1 s2", "@2 !recv SSUBSCRIBE", "SPUBLISH s1 m", "@2 !recv smessage", "PUBLISH s1 m",
			"@2 SUBSCRIBE s1", "@2 PSUBSCRIBE s*", "SPUBLISH s2 n", "@2 !recv smessage", "PUBLISH s1 o",
			"@2 !recv message", "@2 !recv pmessage", "!sort PUBSUB SHARDCHANNELS", "PUBSUB SHARDCHANNELS *1",
			"PUBSUB SHARDNUMSUB s1 s2 x", "PUBSUB SHARDNUMSUB", "PUBSUB CHANNELS", "@2 SUNSUBSCRIBE s1",
			"@2 SUNSUBSCRIBE", "@2 SUNSUBSCRIBE", "@2 SUNSUBSCRIBE nope", "SPUBLISH s2 n",
		}},
		{"introspection", []string{
			"@2 SUBSCRIBE a1 a2 b1", "@2 !recv SUBSCRIBE", "@2 !recv SUBSCRIBE", "@3 PSUBSCRIBE p*", "@3 SUBSCRIBE a1",
			"!sort PUBSUB CHANNELS", "!sort PUBSUB CHANNELS a*", "PUBSUB CHANNELS zz", "!sort pubsub channels [ab]1",
			"PUBSUB NUMSUB a1 b1 none", "PUBSUB NUMSUB", "PUBSUB NUMPAT", "PUBSUB HELP", "PUBSUB help",
			"PUBSUB SHARDCHANNELS", "PUBSUB SHARDNUMSUB x",
		}},
		{"client-types", []string{
			"@2 SUBSCRIBE c", "@3 PING", "!type CLIENT LIST TYPE pubsub", "!type CLIENT LIST TYPE normal",
			"CLIENT KILL TYPE replica", "CLIENT KILL TYPE master", "CLIENT KILL TYPE pubsub", "@2 !close",
			"PUBLISH c x", "CLIENT KILL TYPE pubsub TYPE normal", "@3 !close", "CLIENT LIST TYPE pubsub",
		}},
		{"errors", []string{
			"SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "PUBLISH a", "PUBLISH a b c", "SPUBLISH a", "SPUBLISH a b c",
			"PUBSUB", "PUBSUB FOO", "PUBSUB CHANNELS a b", "PUBSUB SHARDCHANNELS a b", "PUBSUB NUMPAT x",
			"PUBSUB HELP x", "PUBSUB numpat extra", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE",
		}},
	}))
}

// TestPubSubRESP2 covers what only RESP2 has: the subscribed state, where
// Redis refuses all but (P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PING, QUIT and
// RESET, and PING answers as a message.
func TestPubSubRESP2(t *testing.T) {
	runCasesOn(t, 2, withResets([]tcase{
		{"subscribed-state", []string{
			"@2 SUBSCRIBE c", "@2 GET k", "@2 SET k v", "@2 CLIENT LIST", "@2 CONFIG GET maxmemory", "@2 PUBLISH c x",
			"@2 MULTI", "@2 EXEC", "@2 NOSUCH a", "@2 PING", "@2 PING hi", `@2 PING ""`, "@2 PING a b", "@2 ECHO x",
			"@2 HELLO 2", "@2 SUBSCRIBE d", "@2 UNSUBSCRIBE c d", "@2 !recv UNSUBSCRIBE", "@2 PING", "@2 GET k",
		}},
		{"pattern-and-shard-state", []string{
			"@2 PSUBSCRIBE p*", "@2 GET k", "@2 PUNSUBSCRIBE", "@2 SSUBSCRIBE s", "@2 GET k", "@2 SUNSUBSCRIBE",
			"@2 GET k",
		}},
		{"quit", []string{"@2 SUBSCRIBE quitc", "@2 QUIT"}},
		{"errors-in-state", []string{
			"@2 SUBSCRIBE c", "@2 SUBSCRIBE", "@2 PING a b", "@2 GET", "@2 CLIENT NOSUCH",
		}},
	}))
}

// TestPubSubRESP3 covers what only RESP3 has: a subscribed client runs any
// command, and gets the messages it publishes itself before the count.
func TestPubSubRESP3(t *testing.T) {
	runCasesOn(t, 3, withResets([]tcase{
		{"any-command", []string{
			"@2 SUBSCRIBE c", "@2 SET k v", "@2 GET k", "@2 PING", "@2 PING hi", "PUBLISH c x", "@2 !recv message",
			"@2 PUBLISH c self", "@2 !recv PUBLISH", "@2 MULTI", "@2 PUBLISH c a", "@2 GET k", "@2 EXEC",
			"@2 !recv EXEC", "@2 EVAL \"redis.call('publish', 'c', 's'); return 7\" 0", "@2 !recv EVAL",
		}},
		{"hello-2-while-subscribed", []string{
			"@2 SUBSCRIBE c", "!type @2 HELLO 2", "@2 GET k", "@2 PING", "PUBLISH c x", "@2 !recv message",
		}},
		{"blocked-subscriber", []string{
			"@2 SUBSCRIBE c", "@2 !send BLPOP l 0", "!blocked=1", "PUBLISH c before", "@2 !recv message",
			"RPUSH l v", "@2 !recv BLPOP", "PUBLISH c after", "@2 !recv message",
		}},
	}))
}

// withResets ends each case with RESET on every connection but the first
// that it uses and leaves open.
func withResets(cases []tcase) []tcase {
	for i, tc := range cases {
		used, closed := map[int]bool{}, map[int]bool{}
		for _, line := range tc.lines {
			if conn, mode, _, _ := parseModifiers(line); conn > 1 {
				used[conn] = true
				if mode == "close" {
					closed[conn] = true
				}
			}
		}
		lines := append([]string(nil), tc.lines...)
		for n := 2; n <= 9; n++ {
			if used[n] && !closed[n] && !quits(tc.lines, n) {
				lines = append(lines, fmt.Sprintf("@%d RESET", n))
			}
		}
		cases[i].lines = lines
	}
	return cases
}

// quits reports whether connection n sends QUIT in lines.
func quits(lines []string, n int) bool {
	for _, line := range lines {
		if conn, _, _, rest := parseModifiers(line); conn == n && (rest == "QUIT" || rest == "quit") {
			return true
		}
	}
	return false
}

// runCasesOn runs cases on one protocol only.
func runCasesOn(t *testing.T, proto int, cases []tcase) {
	t.Helper()
	t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) { runCase(t, tc, proto) })
		}
	})
}

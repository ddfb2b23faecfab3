package conformance

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Keyspace notifications (notify-keyspace-events), with a subscriber (@2)
// and a worker (@1). A line ending in " #N" is followed by N reads of a
// pmessage on @2: the events that command raised, in Redis's order, on the
// channels the case subscribed to. A command that raises nothing has no
// #N; an event it raised anyway would be read in place of the next
// expected one (or of the RESET that ends the case) and fail the case.
// Every case subscribes to one pattern only: where several patterns match,
// Redis's order is its dict's.

// eventLines expands the " #N" suffixes and ends the case by turning the
// notifications off again (RESET, added by withResets, follows).
func eventLines(lines ...string) []string {
	var out []string
	for _, l := range lines {
		n := 0
		if i := strings.LastIndex(l, " #"); i >= 0 {
			if v, err := strconv.Atoi(l[i+2:]); err == nil {
				n, l = v, l[:i]
			}
		}
		out = append(out, l)
		for range n {
			out = append(out, "@2 !recv pmessage")
		}
	}
	return append(out, `CONFIG SET notify-keyspace-events ""`)
}

// eventsOff sets notify-keyspace-events back on every server when a test
// ends, even one that failed half-way through a case.
func eventsOff(t *testing.T) {
	t.Cleanup(func() { setEverywhere(t, `CONFIG SET notify-keyspace-events ""`) })
}

// TestKeyspaceEventsConfig: every class letter parses, and CONFIG GET
// renders the classes as keyspaceEventsFlagsToString does: A when all of
// A's classes are on (n then left out), else g$lshzxetdn in that order,
// then K, E, m; an unknown letter is refused with Redis's text, and the
// value ends at a NUL as Redis's C string does.
func TestKeyspaceEventsConfig(t *testing.T) {
	eventsOff(t)
	var lines []string
	for _, v := range []string{
		"A", "KEA", "AKE", "gA", "g$lshzxetd", "g$lshzxetdn", "KEAn", "An", "n", "m", "Km", "mEK", "xeK",
		"EKx", "$", "t", "d", "ddd", "lsh", "hsl", "zK", "E", "K", "KEAm", "Ag$lshzxeKEtmdn", `"KE\x00x"`,
	} {
		lines = append(lines, "CONFIG SET notify-keyspace-events "+v, "CONFIG GET notify-keyspace-events")
	}
	lines = append(lines,
		"CONFIG SET notify-keyspace-events Q", "CONFIG SET notify-keyspace-events KEQ", "CONFIG SET notify-keyspace-events 1",
		"CONFIG SET notify-keyspace-events a", "CONFIG SET notify-keyspace-events G", "CONFIG SET notify-keyspace-events KEA!",
		"CONFIG GET notify-keyspace-events",
		`CONFIG SET notify-keyspace-events "" notify-keyspace-events Q`, "CONFIG GET notify-keyspace-events",
		"CONFIG SET notify-keyspace-events K E", `CONFIG SET notify-keyspace-events ""`, "CONFIG GET notify-keyspace-events",
		"CONFIG GET notify-*",
	)
	runCases(t, []tcase{{"parse-and-render", lines}})
}

// TestKeyspaceEvents covers every command family's events, with the
// keyevent channels (E: the event in the channel, the key as the message)
// unless the case is about the channels themselves.
func TestKeyspaceEvents(t *testing.T) {
	eventsOff(t)
	runCases(t, withResets(keyspaceEventCases()))
}

func keyspaceEventCases() []tcase {
	const sub = "@2 PSUBSCRIBE __keyevent@*"
	// restore is RESTORE r <ttl> <the string "v"> <options>.
	restore := func(ttl, options string) string {
		return strings.TrimSpace("RESTORE r " + ttl + " " + quoteBytes(string(dumpPayload(0, []byte{1, 'v'}))) + " " + options)
	}
	return []tcase{
		{"channels", eventLines(
			"CONFIG SET notify-keyspace-events KEA", "@2 PSUBSCRIBE __key*__:*", "SET k v #2", `SET "a\x00b c" v #2`,
			"SELECT 3", "LPUSH l a #2", "SELECT 0", "CONFIG SET notify-keyspace-events K$", "SET k v #1", "DEL k",
			"CONFIG SET notify-keyspace-events E$", "SET k v #1", "CONFIG SET notify-keyspace-events KE", "SET k v",
			"DEL k", "CONFIG SET notify-keyspace-events g", "SET k v", "DEL k", "CONFIG SET notify-keyspace-events KEg",
			"SET k v", "DEL k #2",
		)},
		{"subscribe-channel", eventLines(
			"CONFIG SET notify-keyspace-events KEA", "@3 SUBSCRIBE __keyspace@0__:k __keyevent@0__:del", "@3 !recv SUBSCRIBE",
			"SET k v", "@3 !recv message", "DEL k", "@3 !recv message", "@3 !recv message", "SET other v", "DEL other",
			"@3 !recv message", "@3 RESET",
		)},
		{"strings", eventLines(
			"CONFIG SET notify-keyspace-events EA", sub,
			"SET k v #1", "SET k v NX", "SET k v XX EX 100 #2", "SET k v GET PX 100000 #2", "SET k v KEEPTTL #1",
			"SETEX k 10 v #2", "PSETEX k 10000 v #2", "SETNX k2 v #1", "SETNX k2 v", "MSET a 1 b 2 #2",
			"MSETNX a 1 c 3", "MSETNX c 3 d 4 #2", "GETSET k x #1", "GETDEL k #1", "GETDEL nokey", "INCR n #1",
			"DECR n #1", "INCRBY n 5 #1", "DECRBY n 2 #1", "INCRBYFLOAT f 1.5 #1", "APPEND s ab #1", "APPEND s cd #1",
			"SETRANGE s 1 zz #1", `SETRANGE s 0 ""`, `SETRANGE s9 0 ""`, "SETRANGE s9 2 x #1", "GETEX a EX 100 #1",
			"GETEX a PERSIST #1", "GETEX a PERSIST", "GETEX a", "GETEX a PXAT 1 #1", "GETEX nokey EX 10", "INCR s",
			"SET k v EX 0", "SET k v BADOPT", "INCRBYFLOAT s 1", "GET k", "STRLEN s",
		)},
		{"generic", eventLines(
			"CONFIG SET notify-keyspace-events EA", sub,
			"SET a 1 #1", "SET b 2 #1", "DEL a b c #2", "SET a 1 #1", "EXPIRE a 100 #1", "PEXPIRE a 100000 #1",
			"EXPIREAT a 99999999999 #1", "PEXPIREAT a 99999999999000 #1", "EXPIRE a 100 NX", "EXPIRE a 200 GT",
			"PERSIST a #1", "PERSIST a", "EXPIRE a 100 XX", "EXPIRE a -1 #1", "EXPIRE a 10", "SET a 1 #1",
			"PEXPIREAT a 1 #1", "SET a 1 #1", "RENAME a b #2", "RENAMENX b b", "RENAME b b", "SET c 1 #1",
			"RENAMENX b c", "RENAME b c #2", "RENAME nokey x", "RENAMENX c e #2", "COPY e d #1", "COPY e d",
			"COPY e d REPLACE #1", "COPY e d DB 1 #1", "MOVE e 1 #2", "MOVE d 1", "SELECT 1", "DEL e d #2", "SELECT 0",
			"UNLINK d #1", "UNLINK d", "EXPIRE nokey 10", "TOUCH d", "EXISTS d", "SET t v #1", "SWAPDB 0 1",
			"SWAPDB 0 1", "FLUSHDB", "SET t v #1", "FLUSHALL",
		)},
		{"expired-lazy-and-active", eventLines(
			"CONFIG SET notify-keyspace-events Ex", sub,
			"SET k v PXAT 1", "GET k #1", "SET k v PXAT 1", "EXISTS k #1", "SET k2 v PXAT 1", "@2 !recv pmessage",
			"CONFIG SET notify-keyspace-events Eg", "SET k v PXAT 1 #1", "GET k", "SET k v PX 100000 #1",
			"CONFIG SET notify-keyspace-events Egx", "PEXPIRE k 1 #1", "@2 !recv pmessage",
			"CONFIG SET notify-keyspace-events Ex$", "SET k v PXAT 1 #1", "SET k v2 #2", "GET k",
			`EVAL "redis.call('set', KEYS[1], 'v', 'pxat', 1); return redis.call('get', KEYS[1])" 1 k #2`,
		)},
		{"lists", eventLines(
			"CONFIG SET notify-keyspace-events Elg", sub,
			"LPUSH l a b c #1", "RPUSH l d #1", "LPUSHX nol a", "RPUSHX nol a", "RPUSHX l e #1", "LPOP l #1",
			"RPOP l 2 #1", "LPOP l 0", "LSET l 0 x #1", "LSET l 9 x", "LINSERT l BEFORE x y #1", "LINSERT l BEFORE nope y",
			"LREM l 0 y #1", "LREM l 0 nope", "LTRIM l 0 -1 #1", "LMOVE l m LEFT RIGHT #2", "RPOPLPUSH l m #3",
			"LMPOP 1 m LEFT COUNT 5 #2", "LPOP nokey", "LMPOP 2 nokey m RIGHT", "RPUSH l2 a b #1", "LTRIM l2 1 0 #2",
			"RPUSH l3 a b c #1", "LREM l3 0 b #1", "LMOVE l3 l3 LEFT RIGHT #2", "RPOP l3 5 #2", "LPUSH s x #1",
			"SET str v", "LPUSH str x", "LMOVE s str LEFT LEFT", "LMOVE s s2 LEFT LEFT #3", "LLEN s2", "LRANGE s2 0 -1",
		)},
		{"blocking-lists", eventLines(
			"CONFIG SET notify-keyspace-events Elg", sub,
			"@3 !send BLPOP bl 0", "!blocked=1", "RPUSH bl v #3", "@3 !recv BLPOP", "@3 !send BRPOP bl 0", "!blocked=1",
			"RPUSH bl v w #2", "@3 !recv BRPOP", "DEL bl #1", "@3 !send BLMOVE src dst RIGHT LEFT 0", "!blocked=1",
			"LPUSH src v #4", "@3 !recv BLMOVE", "@3 !send BLMPOP 0 2 x bl2 LEFT COUNT 3", "!blocked=1",
			"RPUSH bl2 a b #3", "@3 !recv BLMPOP", "@3 !send BRPOPLPUSH s9 d9 0", "!blocked=1", "MULTI", "RPUSH s9 x",
			"RPUSH s9 y", "EXEC #4", "@3 !recv BRPOPLPUSH", "LRANGE d9 0 -1", "BLPOP d9 0 #2", "BLPOP nokey 0.01",
		)},
		{"hashes", eventLines(
			"CONFIG SET notify-keyspace-events Ehg", sub,
			"HSET h a 1 b 2 #1", "HSET h a 1 #1", "HMSET h c 3 #1", "HSETNX h a 9", "HSETNX h d 4 #1",
			"HINCRBY h n 5 #1", "HINCRBYFLOAT h f 1.5 #1", "HDEL h nope", "HDEL h a b #1", "HDEL h c d n f #2",
			"HDEL h x", "HSET h2 s abc #1", "HINCRBY h2 s 1", "HINCRBYFLOAT h2 s 1", "HSETNX h3 f v #1", "HGET h3 f",
			"HINCRBY h3 n 9223372036854775807 #1", "HINCRBY h3 n 1", "HSET h", "HMSET h a",
		)},
		{"sets", eventLines(
			"CONFIG SET notify-keyspace-events Esg", sub,
			"SADD s a b c #1", "SADD s a", "SREM s nope", "SREM s a #1", "SMOVE s t b #2", "SMOVE s t c #3",
			"SMOVE s t c", "SADD u x y #1", "SUNIONSTORE d t u #1", "SINTERSTORE d t u #1", "SINTERSTORE d t u",
			"SDIFFSTORE d t u #1", "SINTERSTORE d t nokey #1", "SDIFFSTORE d nokey t", "!type SPOP t #1",
			"!type SPOP t 5 #2", "SPOP t", "SADD p 1 2 3 4 5 #1", "!type SPOP p 2 #1", "SPOP p 0",
			"SREM p 1 2 3 4 5 #2", "SADD q a #1", "SMOVE q r a #3", "SINTERCARD 1 r", "SUNION r", "SREM r a b #2",
		)},
		{"sorted-sets", eventLines(
			"CONFIG SET notify-keyspace-events Ezg", sub,
			"ZADD z 1 a 2 b #1", "ZADD z 1 a", "ZADD z XX CH 5 a #1", "ZINCRBY z 1 a #1", "ZINCRBY z 0 a",
			"ZADD z NX 9 a", "ZADD z GT 1 a", "ZADD z INCR 1 a #1", "ZREM z nope", "ZREM z a #1", "ZADD z 3 c 4 d 5 e #1",
			"ZREMRANGEBYRANK z 0 0 #1", "ZREMRANGEBYSCORE z 3 3 #1", "ZREMRANGEBYSCORE z 100 200", "ZPOPMIN z #1",
			"ZPOPMAX z 5 #2", "ZPOPMIN z", "ZADD zl 0 a 0 b 0 c #1", "ZREMRANGEBYLEX zl [a [a #1",
			"ZREMRANGEBYLEX zl - + #2", "ZADD z1 1 a 2 b #1", "ZADD z2 2 b 3 c #1", "ZUNIONSTORE out 2 z1 z2 #1",
			"ZINTERSTORE out 2 z1 z2 #1", "ZDIFFSTORE out 2 z1 z1 #1", "ZDIFFSTORE out 2 z1 z1",
			"ZDIFFSTORE out 2 z1 z2 #1", "ZRANGESTORE r z1 0 -1 #1", "ZRANGESTORE r z1 5 10 #1",
			"ZRANGESTORE r nokey 0 -1", "ZMPOP 1 z1 MIN COUNT 10 #2", "ZMPOP 1 z1 MIN", "ZADD n 1 x #1",
			"ZADD n INCR nan x", "ZADD n 1 y INCR", "ZADD n2 XX 1 x", "ZINTERSTORE out 2 n nokey #1",
		)},
		{"blocking-sorted-sets", eventLines(
			"CONFIG SET notify-keyspace-events Ezg", sub,
			"@3 !send BZPOPMIN bz 0", "!blocked=1", "ZADD bz 1 m #3", "@3 !recv BZPOPMIN", "@3 !send BZMPOP 0 1 bz MAX",
			"!blocked=1", "ZADD bz 1 m 2 n #2", "@3 !recv BZMPOP", "BZPOPMAX bz 0 #2",
		)},
		{"geo", eventLines(
			"CONFIG SET notify-keyspace-events Ezg", sub,
			"GEOADD g 13.361389 38.115556 Palermo #1", "GEOADD g 15.087269 37.502669 Catania #1",
			"GEOADD g NX 15.087269 37.502669 Catania", "GEOADD g XX CH 15.1 37.5 Catania #1",
			"GEOSEARCHSTORE d g FROMLONLAT 15 37 BYRADIUS 200 km #1", "GEORADIUS g 15 37 200 km STORE d2 #1",
			"GEORADIUSBYMEMBER g Palermo 10 km STOREDIST d3 #1", "GEOSEARCHSTORE d g FROMLONLAT 0 0 BYRADIUS 1 km #1",
			"GEOSEARCHSTORE d nokey FROMLONLAT 0 0 BYRADIUS 1 km", "GEOSEARCHSTORE d2 nokey FROMLONLAT 0 0 BYRADIUS 1 km #1",
			"GEOSEARCH g FROMLONLAT 15 37 BYRADIUS 200 km", "ZREM g Palermo Catania #2",
		)},
		{"hll-and-bitmaps", eventLines(
			"CONFIG SET notify-keyspace-events E$g", sub,
			"PFADD h a b #1", "PFADD h a", "PFADD h2 #1", "PFADD h2", "PFMERGE h3 h h2 #1", "PFMERGE h3 #1", "PFCOUNT h",
			"SETBIT b 7 1 #1", "SETBIT b 7 1", "SETBIT b 7 0 #1", "SETBIT b2 100 0 #1", "BITFIELD b SET u8 0 255 #1",
			"BITFIELD b SET u8 0 255", "BITFIELD b GET u8 0", "BITFIELD b INCRBY u8 0 1 #1",
			"BITFIELD b OVERFLOW FAIL INCRBY u8 0 255 #1", "BITOP OR d b #1", "BITOP AND d nokey nokey2 #1",
			"BITOP AND d nokey", "SET s v #1", "PFADD s x",
		)},
		{"sort-store", eventLines(
			"CONFIG SET notify-keyspace-events Elg", sub,
			"RPUSH l 3 1 2 #1", "SORT l STORE out #1", "SORT l DESC LIMIT 0 1 STORE out #1", "SORT nokey STORE out #1",
			"SORT nokey STORE out", "SORT l", "SORT_RO l",
		)},
		{"restore", eventLines(
			"CONFIG SET notify-keyspace-events Eg", sub,
			restore("0", "#1"), restore("0", ""), restore("0", "REPLACE #1"), restore("1", "REPLACE ABSTTL #1"),
			restore("1", "ABSTTL"), restore("100000", "#1"), restore("0", "REPLACE IDLETIME 10 #1"),
			`RESTORE bad 0 "garbage"`, "DEL r #1",
		)},
		{"new", eventLines(
			"CONFIG SET notify-keyspace-events En", sub,
			"SET a 1 #1", "SET a 2", "LPUSH l x #1", "RPUSH l y", "RENAME a l #1", "RENAME l m #1", "HSET h f v #1",
			"COPY m n #1", "COPY m n REPLACE #1", "MOVE n 1 #1", "SADD s a #1", "ZADD z 1 a #1", "INCR c #1", "INCR c",
			"APPEND ap x #1", "SETRANGE sr 1 x #1", "SETBIT sb 1 1 #1", "PFADD hl a #1", "SET e v PXAT 1 #1",
			"DEL a m h s z c e", restore("0", "#1"), "LMOVE l2 d LEFT LEFT", "RPUSH l2 v #1", "LMOVE l2 d LEFT LEFT #1",
			"SUNIONSTORE su s2 s3", "SADD s2 x #1", "SUNIONSTORE su s2 s3 #1", "SUNIONSTORE su s2 s3",
			"CONFIG SET notify-keyspace-events KEA", "SET plain v #1", "CONFIG SET notify-keyspace-events EAn",
			"SET plain2 v #2", "CONFIG SET notify-keyspace-events KEAn", "CONFIG GET notify-keyspace-events",
			"SET plain3 v #2",
		)},
		{"keymiss", eventLines(
			"CONFIG SET notify-keyspace-events Em", sub,
			"GET nokey #1", "SET k v", "GET k", "MGET k a b #2", "EXISTS zz #1", "TYPE zz #1", "LRANGE nol 0 -1 #1",
			"HGET noh f #1", "SMEMBERS nos #1", "ZRANGE noz 0 -1 #1", "INCR newc", "DEL k zz", "TTL zz #1",
			"STRLEN nostr #1", "GETRANGE nostr 0 1 #1", "SET k v", "SET k v GET", "GETDEL k", "GETDEL k #1",
			"SUNIONSTORE d nos1 nos2 #2", "COPY nosrc dst #1", "ZUNIONSTORE d 1 noz #1", "SORT nol STORE d #1",
			"BITOP OR d nob #1", "LMOVE nol d LEFT LEFT", "SMOVE nos d m", "RENAME nor x", "SORT_RO nol #1",
			`EVAL "return redis.call('get', 'nokey')" 0 #1`, "MULTI", "GET nokey", "LLEN nol", "EXEC #2",
			"CONFIG SET notify-keyspace-events Ag", "GET nokey", "CONFIG SET notify-keyspace-events KEm", "GET nokey #1",
			"CONFIG SET notify-keyspace-events Em",
		)},
		// A write command's destination is a write lookup (no keymiss); the
		// reads inside writes (SET GET, GETSET, PFMERGE's sources, BITFIELD
		// with GETs only, the group commands) raise it; OBJECT never does.
		{"keymiss-in-writes", eventLines(
			"CONFIG SET notify-keyspace-events Em", sub,
			"RPUSH l 2 1", "SADD s a", "ZADD z 1 a", "SET str 1", "GEOADD g 1 1 m", "XADD st 1-0 f v", "XGROUP CREATE st g 0",
			"SORT l STORE d1", "SORT l BY nosort GET # STORE d2", "SORT l BY w_* STORE d3 #2", "SUNIONSTORE d4 s",
			"ZUNIONSTORE d5 1 z", "ZRANGESTORE d6 z 0 -1", "COPY str d7", "BITOP OR d8 str",
			"GEOSEARCHSTORE d9 g FROMLONLAT 1 1 BYRADIUS 10 km", "MSET d10 1", "LMOVE l d11 LEFT LEFT",
			"PFMERGE h1 h2 #2", "PFMERGE h3 str #1", "PFMERGE h1", "GETSET n1 v #1", "GETSET n1 w", "SET n2 v GET #1",
			"SET n2 v GET", "SET n3 v", "BITFIELD n4 GET u8 0 #1", "BITFIELD n5 SET u8 0 1", "BITFIELD_RO n6 GET u8 0 #1",
			"XREADGROUP GROUP g c STREAMS nost > #1", "XREADGROUP GROUP g c STREAMS st >", "XCLAIM nost g c 0 1-0 #1",
			"XAUTOCLAIM nost g c 0 0 #1", "XACK nost g 1-0 #1", "XACK st g 1-0", "OBJECT ENCODING nok", "OBJECT FREQ nok",
			"OBJECT IDLETIME nok", "OBJECT REFCOUNT nok", "OBJECT ENCODING str",
		)},
		{"multi-and-scripts", eventLines(
			"CONFIG SET notify-keyspace-events EA", sub,
			"MULTI", "SET a 1", "INCR a", "DEL a", "EXEC #3", "MULTI", "SET a 1", "LPUSH a x", "EXEC #1",
			`EVAL "redis.call('set', KEYS[1], 'v'); redis.call('expire', KEYS[1], 100); return redis.call('del', KEYS[1])" 1 k #3`,
			`EVAL "redis.call('set', 'x', 'v'); return redis.pcall('lpush', 'x', 'y')" 0 #1`,
			`EVAL "return redis.call('incr', 'x')" 0`,
		)},
	}
}

// TestKeyspaceEventsSelf: a RESP3 client subscribed to its own events gets
// each one where Redis writes it, before or after the reply of the command
// that raised it (SET announces before its +OK, EXPIRE after its :1), and
// inside an EXEC's array or a script's reply as Redis interleaves them.
func TestKeyspaceEventsSelf(t *testing.T) {
	eventsOff(t)
	runCasesOn(t, 3, withResets([]tcase{
		{"self", []string{
			"CONFIG SET notify-keyspace-events EA", "@2 PSUBSCRIBE __keyevent@*", "@2 SET a 1", "@2 !recv SET",
			"@2 EXPIRE a 100", "@2 !recv EXPIRE", "@2 DEL a", "@2 !recv DEL", "@2 LPUSH l x", "@2 !recv LPUSH",
			"@2 LPOP l", "@2 !recv LPOP", "@2 !recv LPOP", "@2 HSET h f v", "@2 !recv HSET", "@2 SADD s m",
			"@2 !recv SADD", "@2 ZADD z 1 m", "@2 !recv ZADD", "@2 SADD s2 m", "@2 !recv SADD", "@2 SINTERSTORE s2 s nokey",
			"@2 !recv SINTERSTORE", "@2 SADD s2 m", "@2 !recv SADD", "@2 SADD s3 x", "@2 !recv SADD",
			"@2 SINTERSTORE s2 s s3", "@2 !recv SINTERSTORE", "@2 SADD s2 m", "@2 !recv SADD",
			"@2 GEOSEARCHSTORE s2 nokey FROMLONLAT 0 0 BYRADIUS 1 km", "@2 !recv GEOSEARCHSTORE", "@2 MULTI", "@2 SET b 1", "@2 INCR b", "@2 EXEC",
			"@2 !recv EXEC", "@2 !recv EXEC", "@2 EVAL \"redis.call('set', 'c', 1); return redis.call('del', 'c')\" 0",
			"@2 !recv EVAL", "@2 !recv EVAL", "SET fromother v", "@2 !recv pmessage", "@2 PING",
			`CONFIG SET notify-keyspace-events ""`,
		}},
	}))
}

// TestKeyspaceEventsSelfZPop: Redis raises a sorted-set pop's event while
// it writes the reply (genericZpopCommand notifies as it removes the first
// member), so a RESP3 client subscribed to its own events reads the push
// frame inside the reply's array, after the header (and the key, for the
// BZPOP*s, ZMPOP and BZMPOP) and before the first member; the "del" of an
// emptied set comes after the whole reply. A blocked pop served by another
// client's ZADD writes the same way into the blocked client's reply. Each
// !recv reads one frame, so a push read where a member was due shows.
// Lists and sets raise theirs before or after the reply, never inside
// (TestKeyspaceEventsSelf): LPOP and LMPOP with a count, SPOP with a count.
func TestKeyspaceEventsSelfZPop(t *testing.T) {
	eventsOff(t)
	// self runs cmd on connection 2 and reads the frames it is followed
	// by: frames in all, the reply's own first one included.
	var lines []string
	self := func(cmd string, frames int) {
		lines = append(lines, "@2 "+cmd)
		name, _, _ := strings.Cut(cmd, " ")
		for range frames - 1 {
			lines = append(lines, "@2 !recv "+name)
		}
	}
	lines = append(lines, "CONFIG SET notify-keyspace-events KEA", "@2 PSUBSCRIBE __key*@*")
	self("ZADD z 1 a 2 b 3 c 4 d 5 e 6 f", 3)
	self("ZPOPMIN z", 3)     // *2 [push push] $a ,1
	self("ZPOPMAX z 2", 3)   // RESP3 nests: the pushes fill the outer array
	self("BZPOPMIN z 0", 3)  // after the key
	self("ZMPOP 1 z MAX", 3) // inside the inner array
	self("BZMPOP 0 1 z MIN COUNT 5", 5)
	self("ZPOPMIN z", 1)
	self("ZADD z 1 a", 3)
	self("ZPOPMAX z 0", 1)
	self("ZPOPMIN z 10", 5)
	self("ZADD z 1 a 2 b", 3)
	self("MULTI", 1)
	self("ZPOPMIN z", 1)
	self("BZPOPMAX z 0", 1)
	self("EXEC", 7)
	lines = append(lines, "@2 !send BZPOPMIN bz 0", "!blocked=1", "ZADD bz 1 m")
	for range 7 {
		lines = append(lines, "@2 !recv BZPOPMIN")
	}
	lines = append(lines, "@2 PING", `CONFIG SET notify-keyspace-events ""`)
	zpops := lines
	// Lists and sets, which raise around the reply: LPOP and LMPOP with a
	// count after it, SPOP before it (and "del" after); a blocked pop
	// served by another client's push after its reply, BLMOVE's push
	// before its reply and its pop after (the sets have one member, as
	// SPOP picks at random).
	lines = []string{"CONFIG SET notify-keyspace-events KEA", "@2 PSUBSCRIBE __key*@*"}
	self("RPUSH l a b c d e", 3)
	self("LPOP l 2", 3)
	self("LMPOP 1 l RIGHT COUNT 5", 5)
	self("SADD s a", 3)
	self("SPOP s 5", 5)
	self("SADD s a", 3)
	self("SPOP s", 5)
	served := func(block, push string, frames int) {
		name, _, _ := strings.Cut(block, " ")
		lines = append(lines, "@2 !send "+block, "!blocked=1", push)
		for range frames {
			lines = append(lines, "@2 !recv "+name)
		}
	}
	served("BLPOP bl 0", "RPUSH bl x", 7)
	served("BLMOVE bl2 dst LEFT RIGHT 0", "RPUSH bl2 y", 9)
	served("BLMPOP 0 1 bl3 LEFT COUNT 2", "RPUSH bl3 p q r", 5)
	served("BRPOPLPUSH bl4 bl4 0", "RPUSH bl4 z", 7)
	lines = append(lines, "@2 PING", `CONFIG SET notify-keyspace-events ""`)
	listSets := lines
	// XCLAIM and XAUTOCLAIM create their consumer as they claim the first
	// entry: its event follows the claimed array's header (XAUTOCLAIM's
	// cursor too); XREADGROUP's follows the stream's key. MGET's lookups
	// (a lazily expired key, a keymiss) raise theirs between the elements,
	// SORT's GET lookups too.
	lines = []string{"CONFIG SET notify-keyspace-events KEA", "@2 PSUBSCRIBE __key*@*"}
	self("XADD st 1-0 f v", 3)
	self("XADD st 2-0 f v", 3)
	self("XGROUP CREATE st g 0", 3)
	self("XREADGROUP GROUP g alice STREAMS st >", 3)
	self("XCLAIM st g bob 0 1-0 2-0 JUSTID", 3)
	self("XCLAIM st g bob 0 1-0", 1)
	self("XCLAIM st g dan 0 9-0", 1)
	self("XAUTOCLAIM st g carol 0 0 JUSTID", 3)
	self("XAUTOCLAIM st g erin 0 0", 3)
	lines = append(lines, "XDEL st 1-0", "@2 !recv XDEL", "@2 !recv XDEL")
	self("XAUTOCLAIM st g fay 0 0", 3)
	self("MULTI", 1)
	self("XCLAIM st g gus 0 2-0", 1)
	self("EXEC", 3)
	self("SET a 1", 3)
	self("SET c 3", 3)
	self("MULTI", 1)
	self("SET b 2 PXAT 1", 1)
	self("MGET a b c", 1)
	self("EXEC", 7)
	self("CONFIG SET notify-keyspace-events KEm", 1)
	self("MGET a nokey c", 3)
	self("RPUSH l 2 1", 1)
	self("SET w_1 x", 1)
	self("SORT l GET w_* GET #", 3)
	lines = append(lines, "@2 PING", `CONFIG SET notify-keyspace-events ""`)
	runCasesOn(t, 3, withResets([]tcase{{"zpop-self", zpops}, {"list-set-self", listSets}, {"claim-and-lookup-self", lines}}))
}

// TestKeyspaceEventsEvicted: a key maxmemory evicts raises "evicted" (e).
// One key, so that which key goes is not a matter of sampling.
func TestKeyspaceEventsEvicted(t *testing.T) {
	eventsOff(t)
	t.Cleanup(func() {
		setEverywhere(t, "CONFIG SET maxmemory 0")
		setEverywhere(t, "CONFIG SET maxmemory-policy noeviction")
	})
	runCases(t, withResets([]tcase{
		{"evicted", eventLines(
			"CONFIG SET notify-keyspace-events Ee", "@2 PSUBSCRIBE __keyevent@*", "SET victim v",
			"CONFIG SET maxmemory-policy allkeys-lru", "CONFIG SET maxmemory 1", "GET victim", "@2 !recv pmessage",
			"CONFIG SET maxmemory 0", "CONFIG SET maxmemory-policy noeviction", "EXISTS victim",
		)},
	}))
}

// TestKeyspaceEventsMigrate: MIGRATE raises "del" on the source for each
// key it moved (not with COPY), and the target's RESTORE raises "restore"
// there. Each source migrates into a target of its own kind
// (startMigrateEnv); what each side's subscriber read is compared with
// Redis's.
func TestKeyspaceEventsMigrate(t *testing.T) {
	if os.Getenv("FLOODGATE_ADDR") != "" {
		t.Skip("the floodgate targets run in process")
	}
	env := startMigrateEnv(t)
	sources := append([]string{redisAddr}, floodgates()...)
	t.Cleanup(func() {
		setEverywhere(t, `CONFIG SET notify-keyspace-events ""`)
		resetTargets(t, env)
	})
	var want []byte
	for i, src := range sources {
		resetTargets(t, env)
		var got bytes.Buffer
		func() {
			var conns []*rawConn
			defer func() {
				for _, c := range conns {
					c.close()
				}
			}()
			dial := func(addr string) *rawConn {
				c, err := dialRaw(addr)
				if err != nil {
					t.Fatalf("dial %s: %v", addr, err)
				}
				conns = append(conns, c)
				return c
			}
			do := func(c *rawConn, args ...string) {
				if _, err := c.do(env.expand(args, i)...); err != nil {
					t.Fatalf("%s %v: %v", src, args, err)
				}
			}
			w, tw := dial(src), dial(env.targets[i])
			do(w, "FLUSHALL")
			do(w, "CONFIG", "SET", "notify-keyspace-events", "Eg")
			do(tw, "CONFIG", "SET", "notify-keyspace-events", "Eg")
			sub, tsub := dial(src), dial(env.targets[i])
			do(sub, "PSUBSCRIBE", "__keyevent@*")
			do(tsub, "PSUBSCRIBE", "__keyevent@*")
			do(w, "MSET", "a", "1", "b", "2", "c", "3")
			do(w, "MIGRATE", "127.0.0.1", "{target}", "", "0", "5000", "KEYS", "a", "b")
			do(w, "MIGRATE", "127.0.0.1", "{target}", "c", "0", "5000", "COPY")
			do(w, "MIGRATE", "127.0.0.1", "{target}", "c", "0", "5000", "REPLACE")
			do(w, "DEL", "c") // gone already: no event; the marker below ends the reads
			do(w, "SET", "marker", "v", "PX", "100000")
			do(tw, "CONFIG", "SET", "notify-keyspace-events", "")
			read := func(c *rawConn) []byte {
				m, err := c.read()
				if err != nil {
					t.Fatalf("%s: reading events: %v (so far %q)", src, err, got.String())
				}
				got.Write(m)
				return m
			}
			for !bytes.Contains(read(sub), []byte("marker")) { // del a, del b, del c, then the marker's expire
			}
			for range 4 { // restore a, b, c (COPY) and c (REPLACE)
				read(tsub)
			}
		}()
		if i == 0 {
			want = got.Bytes()
			if n := bytes.Count(want, []byte("pmessage")); n != 8 {
				t.Fatalf("Redis raised %d events, not 8: %q", n, want)
			}
			continue
		}
		if !bytes.Equal(want, got.Bytes()) {
			t.Errorf("%s:\n%s", transportName(src), replyDiff(want, got.Bytes()))
		}
	}
}

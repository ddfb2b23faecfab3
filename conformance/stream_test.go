package conformance

import (
	"fmt"
	"strings"
	"testing"
)

// Streams: the data commands (XADD, XRANGE, XREVRANGE, XLEN, XDEL, XTRIM,
// XREAD, XSETID, XINFO STREAM), their errors, and the node layout that
// approximate trimming and XINFO's radix-tree figures reveal. IDs are
// explicit wherever a reply shows them: "*" takes each server's clock.
func TestStreamCommands(t *testing.T) {
	runCases(t, []tcase{
		{"xadd-ids", []string{
			"XADD s 1-1 a 1", "XADD s 1-* b 2", "XADD s 2-* c 3", "XADD s 5 d 4", "XADD s 5 d 4", "XADD s 5-0 x y",
			"XADD s 4-9 x y", "XADD s 0-0 x y", "XADD t 0-* x y", "XADD u 0-0 x y", "EXISTS u", "XADD s + x y", "XADD s - x y",
			"XADD s 18446744073709551615-18446744073709551615 x y", "XADD s * x y", "XADD s 18446744073709551615-* x y",
			"XLEN s", "XRANGE s - +", "XADD s 1-2-3 x y", "XADD s abc x y", "XADD s -1 x y", "XADD s 1-a x y",
			"XADD s \" 7\" x y", "XADD s +8 x y", "XADD s 009-01 x y", "XADD s 18446744073709551616 x y",
			"XRANGE s - + COUNT 3", "XADD s 20 x", "XADD s 20 x y z", "XADD s", "XADD s 20",
		}},
		{"xadd-star", []string{
			"!type XADD s * f v", "!type XADD s * f v", "XLEN s", "!type XADD s 99999999999999-* f v", "XLEN s",
			"XADD s 1-1 f v", "XADD n NOMKSTREAM * f v", "EXISTS n", "!type XADD s NOMKSTREAM * f v",
		}},
		{"xadd-options", []string{
			"XADD s MAXLEN 2 1 a 1", "XADD s MAXLEN 2 2 a 2", "XADD s MAXLEN = 2 3 a 3", "XRANGE s - +",
			"XADD s MINID 3 4 a 4", "XRANGE s - +", "XADD s MINID = 4 5 a 5", "XRANGE s - +",
			"XADD s MAXLEN 1 MINID 1 6 a 6", "XADD s MAXLEN -1 6 a 6", "XADD s MAXLEN x 6 a 6",
			"XADD s MAXLEN 1 LIMIT 10 6 a 6", "XADD s LIMIT 10 6 a 6", "XADD s MAXLEN ~ 1 LIMIT -1 6 a 6",
			"XADD s MAXLEN ~ 1 LIMIT x 6 a 6", "XADD s MINID x 6 a 6", "XADD s MINID - 6 a 6", "XADD s MINID ~ + 6 a 6",
			"XADD s MAXLEN ~ 1 LIMIT 0 6 a 6", "XLEN s", "XADD s MAXLEN ~ 1 LIMIT 5 7 a 7", "XLEN s",
			"XADD s maxlen ~ 0 8 a 8", "XLEN s", "XADD s nomkstream maxlen 0 9 a 9", "XLEN s", "EXISTS s",
			"XADD s MAXLEN 6 MAXLEN 7 10 a 1", "XADD s MAXLEN", "XADD s MAXLEN 5", "XADD s bogus 11 a 1",
		}},
		{"xrange", []string{
			"XADD s 1-0 a 1", "XADD s 1-1 b 2", "XADD s 2-0 c 3 d 4", "XADD s 3-5 a 5", "XADD s 4 a 5 b 6",
			"XRANGE s - +", "XREVRANGE s + -", "XRANGE s 1 1", "XRANGE s (1-0 +", "XRANGE s - (3-5", "XRANGE s (1 (4",
			"XREVRANGE s (4 (1", "XREVRANGE s 3 1-1", "XRANGE s - + COUNT 2", "XREVRANGE s + - COUNT 2",
			"XRANGE s - + COUNT 0", "XRANGE s - + COUNT -5", "XRANGE s - + COUNT x", "XRANGE s - + LIMIT 1",
			"XRANGE s - + COUNT", "XRANGE s 5 1", "XRANGE s x +", "XRANGE s - x", "XRANGE s (- +", "XRANGE s - (+",
			"XRANGE s (18446744073709551615-18446744073709551615 +", "XRANGE s - (0-0", "XRANGE s ( +", "XRANGE s (1-x +",
			"XRANGE nokey - +", "XREVRANGE nokey + -", "XRANGE nokey - + COUNT 0", "SET str x", "XRANGE str - +",
			"XRANGE s - + COUNT 1 COUNT 3",
		}},
		{"xlen-xdel", []string{
			"XLEN nokey", "XDEL nokey 1", "XADD s 1 a 1", "XADD s 2 a 2", "XADD s 3 a 3", "XADD s 4 a 4",
			"XDEL s 2 2 9", "XLEN s", "XDEL s 1 x", "XLEN s", "XDEL s 1", "XINFO STREAM s", "XDEL s 3 4", "XLEN s",
			"EXISTS s", "XINFO STREAM s", "XADD s 3 a 3", "XADD s 5 a 5", "XRANGE s - +", "XDEL s -", "SET str x", "XLEN str", "XDEL str 1",
		}},
		{"xtrim", []string{
			"XTRIM nokey MAXLEN 1", "XTRIM s", "XTRIM s LIMIT 5", "XTRIM s NOMKSTREAM MAXLEN 1",
			"XADD s 1 a 1", "XADD s 2 a 2", "XADD s 3 a 3", "XADD s 4 a 4", "XADD s 5 a 5",
			"XTRIM s MAXLEN 3", "XRANGE s - +", "XTRIM s MINID 4", "XRANGE s - +", "XTRIM s MINID ~ 5", "XLEN s",
			"XTRIM s MAXLEN ~ 0", "XLEN s", "XTRIM s MAXLEN = 0", "XLEN s", "EXISTS s", "XINFO STREAM s",
			"XTRIM s MAXLEN 1 LIMIT 3", "XTRIM s MAXLEN 1 MINID 2", "XTRIM s * 1", "XTRIM s MAXLEN -1", "SET str x", "XTRIM str MAXLEN 1",
		}},
		{"xsetid", []string{
			"XSETID nokey 1", "XADD s 5 a 1", "XADD s 6 a 1", "XSETID s 4", "XSETID s 6", "XSETID s 10 ENTRIESADDED 1",
			"XSETID s 10 ENTRIESADDED -1", "XSETID s 10 ENTRIESADDED 9 MAXDELETEDID 11", "XSETID s 10 ENTRIESADDED 9 MAXDELETEDID 3",
			"XINFO STREAM s", "XADD s 10 a 1", "XADD s 10-* a 1", "XSETID s +", "XSETID s 20 BOGUS", "XSETID s 20 ENTRIESADDED",
			"XDEL s 5 6 10-1", "XSETID s 0", "XSETID s 0 ENTRIESADDED 0", "XINFO STREAM s", "SET str x", "XSETID str 1",
		}},
		{"xinfo-stream", []string{
			"XINFO STREAM nokey", "XADD s 1 a 1 b 2", "XADD s 2 a 3 b 4", "XADD s 3 c 5", "XINFO STREAM s",
			"XINFO STREAM s FULL", "XINFO STREAM s FULL COUNT 1", "XINFO STREAM s FULL COUNT 0", "XINFO STREAM s FULL COUNT -1",
			"XINFO STREAM s FULL COUNT", "XINFO STREAM s BOGUS", "XINFO STREAM s FULL LIMIT 1", "XINFO STREAM s FULL COUNT x",
			"SET str x", "XINFO STREAM str", "TYPE s", "OBJECT ENCODING s",
		}},
		{"xread", []string{
			"XREAD STREAMS nokey 0", "XADD s 1 a 1", "XADD s 2 a 2", "XADD t 3 b 3",
			"XREAD STREAMS s 0", "XREAD STREAMS s t 0 0", "XREAD COUNT 1 STREAMS s t 1 0", "XREAD STREAMS s $",
			"XREAD STREAMS s t 2 2", "XREAD STREAMS s nokey t 0 0 3", "XREAD COUNT 0 STREAMS s 0", "XREAD COUNT -1 STREAMS s 0",
			"XREAD STREAMS s", "XREAD STREAMS s t 0", "XREAD STREAMS", "XREAD s 0", "XREAD COUNT x STREAMS s 0",
			"XREAD BLOCK x STREAMS s 0", "XREAD BLOCK -1 STREAMS s 0", "XREAD BLOCK 1.5 STREAMS s 0", "XREAD BLOCK 10 STREAMS s 0",
			"XREAD STREAMS s >", "XREAD STREAMS s -", "XREAD STREAMS s +", "XREAD STREAMS s x", "XREAD GROUP g c STREAMS s 0",
			"XREAD NOACK STREAMS s 0", "XREAD BOGUS STREAMS s 0", "SET str x", "XREAD STREAMS s str 0 0", "XREAD STREAMS str nokey 0 $",
			"XREAD BLOCK 1 STREAMS s 2", "XREAD STREAMS s s 0 1", "XDEL s 2", "XREAD STREAMS s 1",
		}},
		{"xread-blocking", []string{
			"@2 !send XREAD BLOCK 0 STREAMS s $", "!blocked=1", "XADD s 1 a 1", "@2 !recv XREAD", "!blocked=0",
			"@2 !send XREAD BLOCK 0 STREAMS s t 5 $", "!blocked=1", "@3 !send XREAD BLOCK 0 COUNT 1 STREAMS t 0", "!blocked=2",
			"XADD s 2 a 2", "XADD t 3 b 3", "XADD t 4 b 4", "@2 !recv XREAD", "@3 !recv XREAD", "!blocked=0",
			"@2 !send XREAD BLOCK 0 STREAMS s 10", "!blocked=1", "XADD s 5 a 5", "XADD s 11 a 11", "@2 !recv XREAD",
			"@2 !send XREAD BLOCK 10 STREAMS s $", "@2 !recv XREAD",
			"@2 !send XREAD BLOCK 0 STREAMS l $", "!blocked=1", "RPUSH l x", "DEL l", "XADD l 1 a 1", "@2 !recv XREAD",
			"MULTI", "XREAD BLOCK 0 STREAMS s $", "EXEC",
			"EVAL \"return redis.call('xread','BLOCK','0','STREAMS','s','$')\" 0",
			"EVAL \"return redis.call('XREAD','STREAMS','s','0')\" 0",
			"@2 !send XREAD BLOCK 0 STREAMS z $", "!blocked=1", "@3 !send XREAD BLOCK 0 STREAMS z $", "!blocked=2",
			"MULTI", "XADD z 1 a 1", "XADD z 2 a 2", "EXEC", "@2 !recv XREAD", "@3 !recv XREAD",
		}},
		{"types", []string{
			"XADD s 1 a 1", "TYPE s", "OBJECT ENCODING s", "LPUSH s x", "GET s", "SET s x", "TYPE s",
			"XADD s2 1 a 1", "COPY s2 s3", "XRANGE s3 - +", "XADD s3 2 b 2", "XLEN s2", "RENAME s3 s4", "XRANGE s4 - +",
			"DEL s4", "EXISTS s4",
		}},
	})
}

// TestStreamNodes checks where nodes split and what approximate trimming
// removes: whole nodes only, by stream-node-max-entries and -bytes, and
// what XINFO STREAM's radix-tree figures say of the nodes.
func TestStreamNodes(t *testing.T) {
	var many []string
	for i := 1; i <= 250; i++ {
		many = append(many, fmt.Sprintf("XADD s %d f %d", i, i*7))
	}
	big := strings.Repeat("v", 1000)
	var bigs []string
	for i := 1; i <= 12; i++ {
		bigs = append(bigs, fmt.Sprintf("XADD b %d f%d %s", i, i%2, big))
	}
	lines := append(many,
		"XINFO STREAM s", "XTRIM s MAXLEN ~ 200", "XLEN s", "XTRIM s MAXLEN ~ 140", "XLEN s", "XTRIM s MINID ~ 160", "XLEN s",
		"XTRIM s MINID ~ 201", "XLEN s", "XRANGE s - + COUNT 2", "XINFO STREAM s", "XDEL s 201 202 203", "XINFO STREAM s",
		"XTRIM s MAXLEN ~ 10 LIMIT 30", "XLEN s", "XTRIM s MAXLEN ~ 10 LIMIT 50", "XLEN s", "XREVRANGE s + - COUNT 3")
	lines = append(lines, bigs...)
	lines = append(lines, "XINFO STREAM b", "XTRIM b MAXLEN ~ 5", "XLEN b", "XINFO STREAM b",
		"CONFIG SET stream-node-max-entries 3", "XADD c 1 a 1", "XADD c 2 a 2", "XADD c 3 a 3", "XADD c 4 a 4",
		"XADD c 5 b 5", "XADD c 6 a 6 b 7", "XADD c 7 a 7", "XINFO STREAM c", "XTRIM c MAXLEN ~ 3", "XRANGE c - +",
		"XDEL c 4 5 6", "XINFO STREAM c", "XRANGE c - +", "XREVRANGE c + -",
		"CONFIG SET stream-node-max-entries 0 stream-node-max-bytes 60",
		"XADD d 1 a 1", "XADD d 2 a 2", "XADD d 3 a 3", "XADD d 4 a 4", "XADD d 5 a 5", "XINFO STREAM d", "XTRIM d MAXLEN ~ 2", "XLEN d",
		"CONFIG SET stream-node-max-entries 100 stream-node-max-bytes 4kb", "CONFIG GET stream-node-max-bytes")
	runCases(t, []tcase{{"nodes", lines}})
}

// TestStreamPersistence: DUMP of streams built by commands is Redis's
// payload byte for byte (so the nodes split where Redis's do), Redis's
// payloads restore (groups and PELs included), and keyspace events.
func TestStreamPersistence(t *testing.T) {
	setup := [][]any{}
	for i := 1; i <= 130; i++ {
		setup = append(setup, []any{"XADD", "big", fmt.Sprint(i, "-", i%4), "f", i, "g", strings.Repeat("z", i%9)})
	}
	setup = append(setup, []any{"XDEL", "big", "3-3", "101-1"},
		[]any{"XGROUP", "CREATE", "big", "g1", "0"}, []any{"XGROUP", "CREATE", "big", "g0", "$", "ENTRIESREAD", "7"},
		[]any{"XREADGROUP", "GROUP", "g1", "c1", "COUNT", "4", "STREAMS", "big", ">"},
		[]any{"XGROUP", "CREATECONSUMER", "big", "g1", "c0"},
		[]any{"XADD", "empty", "1-1", "a", "b"}, []any{"XDEL", "empty", "1-1"})
	p := redisPayloads(t, setup, "big", "empty")
	runCases(t, []tcase{
		{"dump", []string{
			"XADD s 1-1 a 1 b 2", "DUMP s", "XADD s 1-2 a 3 b 4", "XADD s 2-0 c 5", "DUMP s", "XDEL s 1-2", "DUMP s",
			"XTRIM s MAXLEN 1", "DUMP s", "XSETID s 9-9 ENTRIESADDED 50 MAXDELETEDID 3-3", "DUMP s",
			"XADD e 5 a 1", "XDEL e 5", "DUMP e", "XADD n 1 num 12345 neg -7 big 99999999999 str abc", "DUMP n",
			"XADD k 1 " + strings.Repeat("x", 70) + " " + strings.Repeat("y", 5000), "DUMP k",
		}},
		{"restore", []string{
			"RESTORE big 0 " + p["big"], "XLEN big", "XRANGE big - + COUNT 5", "XREVRANGE big + - COUNT 3",
			"XINFO STREAM big", "!type XINFO STREAM big FULL", "DUMP big", "XADD big 200 f x", "XTRIM big MAXLEN ~ 50", "XLEN big",
			"RESTORE empty 0 " + p["empty"], "XLEN empty", "XINFO STREAM empty", "DUMP empty",
			"XADD s 1 a 1", "XADD s 2 b 2", "DUMP s", `EVAL "local p = redis.call('DUMP', KEYS[1]) redis.call('DEL', KEYS[1]) return {redis.call('RESTORE', KEYS[1], 0, p), redis.call('DUMP', KEYS[1]) == p}" 1 s`,
			"XRANGE s - +",
		}},
		{"keyspace-events", []string{
			"CONFIG SET notify-keyspace-events KEA", "@2 PSUBSCRIBE __keyevent@*",
			"XADD s 1 a 1", "@2 !recv pmessage", "XADD s MAXLEN 1 2 a 2", "@2 !recv pmessage", "@2 !recv pmessage", "XDEL s 2", "@2 !recv pmessage", "XDEL s 2",
			"XADD s 3 a 3", "@2 !recv pmessage", "XADD s 4 a 4", "@2 !recv pmessage", "XTRIM s MAXLEN 1", "@2 !recv pmessage", "XTRIM s MAXLEN 1",
			"XSETID s 10", "@2 !recv pmessage", "DEL s", "@2 !recv pmessage", "CONFIG SET notify-keyspace-events ''",
		}},
	})
}

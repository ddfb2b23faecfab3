package conformance

import (
	"testing"
)

// Stream consumer groups: XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM,
// XAUTOCLAIM, XINFO GROUPS and CONSUMERS, and the groups part of XINFO
// STREAM FULL.
//
// Idle times and delivery times depend on when each server ran a line, so
// the replies that carry them are compared twice: raw by shape (!type),
// and through a script that replaces each time with a coarse bucket
// (pendingScript, consumersScript, fullScript), so that IDs, consumers,
// delivery counts and pending counts are still compared byte for byte.

// pendingScript is XPENDING's extended form with each entry's idle time
// turned into floor(idle/10 s), or -1 for an idle time past 10^11 ms
// (a delivery time set near the epoch with XCLAIM TIME).
const pendingScript = `EVAL "local r = redis.call('xpending', KEYS[1], unpack(ARGV)) for _, e in ipairs(r) do if e[3] > 1e11 then e[3] = -1 else e[3] = math.floor(e[3] / 10000) end end return r" 1 `

// consumersScript is XINFO CONSUMERS with each consumer's idle time
// turned into floor(idle/10 s).
const consumersScript = `EVAL "local r = redis.call('xinfo', 'consumers', KEYS[1], ARGV[1]) for _, c in ipairs(r) do c[6] = math.floor(c[6] / 10000) end return r" 1 `

// fullScript is XINFO STREAM FULL (ARGV: its options) with every unix-ms
// time (seen-time, delivery times) turned into "time", or "epoch" for one
// before 10^11 (set with XCLAIM TIME).
const fullScript = `EVAL "local function mask(v) if type(v) == 'table' then for i, x in ipairs(v) do v[i] = mask(x) end return v end if type(v) == 'number' and v > 1e9 then return 'time' end if type(v) == 'number' and v > 1e6 then return 'epoch' end return v end return mask(redis.call('xinfo', 'stream', KEYS[1], 'full', unpack(ARGV)))" 1 `

func TestStreamGroups(t *testing.T) {
	runCases(t, []tcase{
		{"xgroup-create", []string{
			"XGROUP CREATE s g $", "EXISTS s", "XGROUP CREATE s g $ MKSTREAM", "EXISTS s", "TYPE s", "XLEN s",
			"XGROUP CREATE s g $", "XGROUP CREATE s g 0 MKSTREAM", "XADD s 5-1 f v", "XADD s 6-1 f v",
			"XGROUP CREATE s g2 $", "XGROUP CREATE s g3 0", "XGROUP CREATE s g4 5-1 ENTRIESREAD 1",
			"XGROUP CREATE s g5 0 ENTRIESREAD -1", "XGROUP CREATE s g6 9 ENTRIESREAD 7 MKSTREAM",
			"xgroup create s g7 0-0 mkstream entriesread 0", `XGROUP CREATE s "" 0`, "XGROUP CREATE s g8 5",
			"XINFO GROUPS s", "XINFO STREAM s", "XGROUP CREATE s e1 0 ENTRIESREAD -2",
			"XGROUP CREATE s e2 0 ENTRIESREAD x", "XGROUP CREATE s e3 0 ENTRIESREAD", "XGROUP CREATE s e4 0 FOO",
			"XGROUP CREATE s e5 abc", "XGROUP CREATE s e6 1-x", "XGROUP CREATE s e7 -", "XGROUP CREATE s e8 +",
			"XGROUP CREATE s e9 >", "XGROUP CREATE s e10 18446744073709551616", "XGROUP CREATE s e11 0 MKSTREAM MKSTREAM",
			"XGROUP CREATE s e12 0 MKSTREAM ENTRIESREAD 1 MKSTREAM", "XGROUP CREATE s e13 0 MKSTREAM ENTRIESREAD 1 ENTRIESREAD 2",
			"XGROUP CREATE nokey e14 abc", "XGROUP CREATE nokey e15 abc MKSTREAM", "EXISTS nokey",
			"XGROUP CREATE nokey e16 0 ENTRIESREAD -3 MKSTREAM", "EXISTS nokey", "XGROUP CREATE nokey e17 $ MKSTREAM",
			"XINFO GROUPS nokey", "SET str x", "XGROUP CREATE str g $", "XGROUP CREATE str g $ MKSTREAM",
			"XGROUP CREATE str g abc MKSTREAM", "XGROUP", "XGROUP CREATE s", "XGROUP CREATE s g", "XGROUP FOO",
			"XGROUP FOO s g", "XGROUP HELP", "XGROUP help", "XGROUP HELP x", "XINFO GROUPS s",
		}},
		{"xgroup-setid", []string{
			"XGROUP SETID nokey g 0", "XADD s 1-1 f v", "XADD s 2-1 f v", "XADD s 3-1 f v", "XGROUP SETID s g 0",
			"XGROUP CREATE s g 0", "XGROUP SETID s g $", "XINFO GROUPS s", "XGROUP SETID s g 1-1 ENTRIESREAD 1",
			"XINFO GROUPS s", "XGROUP SETID s g 0 ENTRIESREAD 0", "XINFO GROUPS s", "XGROUP SETID s g -", "XINFO GROUPS s",
			"XGROUP SETID s g +", "XINFO GROUPS s", "XGROUP SETID s g 2", "XINFO GROUPS s", "XGROUP SETID s g 99-99",
			"XINFO GROUPS s", "XGROUP SETID s g 0 ENTRIESREAD", "XGROUP SETID s g 0 MKSTREAM", "XGROUP SETID s g abc",
			"XGROUP SETID s g 0 ENTRIESREAD -5", "XGROUP SETID s g 0 ENTRIESREAD 1 ENTRIESREAD 2", "XGROUP SETID s g 0 FOO",
			"XGROUP SETID s nog 0", "XGROUP SETID s nog abc", "SET str x", "XGROUP SETID str g 0", "XGROUP SETID s g",
			"XGROUP SETID s g 3-1 ENTRIESREAD -1", "XINFO GROUPS s", "XGROUP SETID s g 1-1", "XINFO GROUPS s",
		}},
		{"xgroup-destroy-and-consumers", []string{
			"XGROUP DESTROY nokey g", "XGROUP CREATE s g $ MKSTREAM", "XGROUP CREATE s h $", "XGROUP DESTROY s nog",
			"XGROUP DESTROY s g", "XGROUP DESTROY s g", "XINFO GROUPS s", "XGROUP DESTROY s", "XGROUP DESTROY s h x",
			"XGROUP CREATECONSUMER s h c1", "XGROUP CREATECONSUMER s h c1", "XGROUP CREATECONSUMER s h c2",
			`XGROUP CREATECONSUMER s h ""`, "XGROUP CREATECONSUMER s nog c1", "XGROUP CREATECONSUMER nokey h c1",
			"XGROUP CREATECONSUMER s h", "XGROUP CREATECONSUMER s h c x", "XINFO GROUPS s", "!type XINFO CONSUMERS s h",
			consumersScript + "s h", "XADD s 1-1 f v", "XADD s 2-1 f v", "XREADGROUP GROUP h c1 STREAMS s >",
			"XGROUP DELCONSUMER s h c1", "XGROUP DELCONSUMER s h c1", "XGROUP DELCONSUMER s h nobody",
			"XGROUP DELCONSUMER s nog c1", "XGROUP DELCONSUMER nokey h c1", "XGROUP DELCONSUMER s h", "XPENDING s h",
			"XINFO GROUPS s", consumersScript + "s h", "SET str x", "XGROUP CREATECONSUMER str h c",
			"XGROUP DELCONSUMER str h c", "XGROUP DESTROY str h",
		}},
		{"xreadgroup-new-and-history", []string{
			"XADD s 1-1 a 1", "XADD s 2-1 b 2", "XADD s 3-1 c 3 d 4", "XGROUP CREATE s g 0",
			"XREADGROUP GROUP g c1 COUNT 1 STREAMS s >", "XREADGROUP GROUP g c1 COUNT 1 STREAMS s >",
			"XREADGROUP GROUP g c2 STREAMS s >", "XREADGROUP GROUP g c2 STREAMS s >", "XREADGROUP GROUP g c1 STREAMS s 0",
			"XREADGROUP GROUP g c1 STREAMS s 1-1", "XREADGROUP GROUP g c1 COUNT 1 STREAMS s 0-0",
			"XREADGROUP GROUP g c2 STREAMS s 0", "XREADGROUP GROUP g c2 STREAMS s 3-1", "XREADGROUP GROUP g c3 STREAMS s 0",
			"XINFO GROUPS s", pendingScript + "s g - + 10", "XPENDING s g", "XADD s 4-1 e 5", "XINFO GROUPS s",
			"XREADGROUP GROUP g c1 COUNT 0 STREAMS s >", "XREADGROUP GROUP g c1 COUNT -5 STREAMS s 0",
			"xreadgroup group g c1 count 2 streams s 0", "XINFO GROUPS s", pendingScript + "s g - + 10",
			"XREADGROUP GROUP g c1 GROUP g c4 STREAMS s 0", "XADD s 5-1 f 6", "XREADGROUP GROUP x y GROUP g c4 STREAMS s >",
			pendingScript + "s g - + 10", "XPENDING s g",
		}},
		{"xreadgroup-several-streams", []string{
			"XADD a 1-1 f 1", "XADD b 1-2 f 2", "XADD b 1-3 f 3", "XGROUP CREATE a g 0", "XGROUP CREATE b g 0",
			"XREADGROUP GROUP g c STREAMS a b > >", "XREADGROUP GROUP g c STREAMS a b > >",
			"XREADGROUP GROUP g c COUNT 1 STREAMS a b 0 0", "XREADGROUP GROUP g c STREAMS a b 0 >", "XADD b 2-1 f 4",
			"XREADGROUP GROUP g c STREAMS a b > >", "XREADGROUP GROUP g c STREAMS b a > >",
			"XREADGROUP GROUP g c STREAMS a a > 0", "XREADGROUP GROUP g c STREAMS a nokey > >",
			"XREADGROUP GROUP g c STREAMS a b c > > >", "XGROUP CREATE c g 0 MKSTREAM",
			"XREADGROUP GROUP g c STREAMS a b c > > >", "XREADGROUP GROUP g c STREAMS c 0", "XPENDING a g", "XPENDING b g",
		}},
		{"xreadgroup-same-key-twice", []string{
			"XADD s 1-1 f 1", "XADD s 2-1 f 2", "XADD s 3-1 f 3", "XGROUP CREATE s g 0",
			"XREADGROUP GROUP g c COUNT 1 STREAMS s s > >", "XREADGROUP GROUP g c COUNT 1 STREAMS s s > >",
			"XREADGROUP GROUP g c STREAMS s s > >", "XREADGROUP GROUP g c COUNT 1 STREAMS s s s > 0 >",
			"XGROUP CREATE s g2 0", "XREADGROUP GROUP g2 c COUNT 2 STREAMS s s s > > >", "XPENDING s g2",
		}},
		{"xreadgroup-noack", []string{
			"XADD s 1-1 f v", "XADD s 2-1 f v", "XGROUP CREATE s g 0", "XREADGROUP GROUP g c NOACK STREAMS s >",
			"XPENDING s g", "XINFO GROUPS s", consumersScript + "s g", "XADD s 3-1 f v",
			"XREADGROUP NOACK GROUP g c2 COUNT 5 STREAMS s >", "XREADGROUP GROUP g c NOACK STREAMS s 0", "XPENDING s g",
			"XINFO GROUPS s", "XADD s 4-1 f v", "XREADGROUP GROUP g c STREAMS s >", "XREADGROUP GROUP g c NOACK STREAMS s 0",
			"XPENDING s g",
		}},
		{"xreadgroup-deleted-entries", []string{
			"XADD s 1-1 a 1", "XADD s 2-1 b 2", "XADD s 3-1 c 3", "XGROUP CREATE s g 0",
			"XREADGROUP GROUP g c STREAMS s >", "XDEL s 2-1", "XREADGROUP GROUP g c STREAMS s 0",
			pendingScript + "s g - + 10", "XTRIM s MAXLEN 0", "XREADGROUP GROUP g c STREAMS s 0", "XLEN s",
			pendingScript + "s g - + 10", "XPENDING s g", "XINFO GROUPS s", "XREADGROUP GROUP g c STREAMS s >",
			"XADD s 4-1 d 4", "XREADGROUP GROUP g c STREAMS s >", "XREADGROUP GROUP g c STREAMS s 0",
		}},
		{"xreadgroup-setid-reassigns", []string{
			"XADD s 1-1 f v", "XADD s 2-1 f v", "XGROUP CREATE s g 0", "XREADGROUP GROUP g alice STREAMS s >",
			"XGROUP SETID s g 0", "XREADGROUP GROUP g bob COUNT 1 STREAMS s >", "XPENDING s g",
			pendingScript + "s g - + 10", "XREADGROUP GROUP g alice STREAMS s 0", "XREADGROUP GROUP g bob STREAMS s 0",
			"XINFO GROUPS s",
		}},
		{"xreadgroup-errors", []string{
			"XADD s 1-1 f v", "XGROUP CREATE s g 0", "SET str x", "XREADGROUP STREAMS s >",
			"XREADGROUP COUNT 1 STREAMS s >", "XREADGROUP GROUP g c STREAMS s $", "XREADGROUP GROUP g c STREAMS s",
			"XREADGROUP GROUP g c STREAMS s > 0", "XREADGROUP GROUP g c STREAMS nokey >", "XREADGROUP GROUP nog c STREAMS s >",
			"XREADGROUP GROUP g c STREAMS s abc", "XREADGROUP GROUP g c STREAMS s 1-x", "XREADGROUP GROUP g c STREAMS s -",
			"XREADGROUP GROUP g c STREAMS s +", "XREADGROUP GROUP g c STREAMS str >", "XREADGROUP GROUP g c STREAMS s str > >",
			"XREADGROUP GROUP g c STREAMS str s > >", "XREADGROUP GROUP g c STREAMS s nokey > abc",
			"XREADGROUP GROUP g c STREAMS nokey s > $", "XREADGROUP GROUP g c COUNT x STREAMS s >",
			"XREADGROUP GROUP g c BLOCK x STREAMS s >", "XREADGROUP GROUP g c BLOCK -1 STREAMS s >",
			"XREADGROUP GROUP g c BLOCK 1.5 STREAMS s >", "XREADGROUP GROUP g c FOO STREAMS s >", "XREADGROUP GROUP g STREAMS s >",
			"XREADGROUP GROUP g c", "XREADGROUP GROUP g c STREAMS", "XREADGROUP GROUP g c COUNT", "XREADGROUP GROUP g c s >",
			"XREADGROUP", "XREADGROUP GROUP", "XREAD GROUP g c STREAMS s >", "XREAD NOACK STREAMS s 0", "XREAD STREAMS s >",
			"XREADGROUP GROUP g c STREAMS s 18446744073709551615-18446744073709551615", "XPENDING s g",
		}},
		{"xack", []string{
			"XACK nokey g 1-1", "XADD s 1-1 f v", "XADD s 2-1 f v", "XADD s 3-1 f v", "XACK s g 1-1",
			"XGROUP CREATE s g 0", "XACK s g 1-1", "XREADGROUP GROUP g c STREAMS s >", "XACK s g 1-1 1-1 2-1 9-9",
			"XACK s g 1-1", "XPENDING s g", "XACK s g 3-1 abc", "XPENDING s g", "XACK s g 3", "XACK s g 3-1", "XACK s g -",
			"XACK s g +", "XACK s nog abc", "XACK s g", "SET str x", "XACK str g 1-1", "XACK str g abc", "XPENDING s g",
			"XINFO GROUPS s",
		}},
		{"xpending", []string{
			"XPENDING nokey g", "XPENDING nokey g - + 10", "XADD s 1-1 f v", "XADD s 2-1 f v", "XADD s 3-1 f v",
			"XADD s 4-1 f v", "XPENDING s g", "XGROUP CREATE s g 0", "XPENDING s g", "XPENDING s g - + 10",
			"XREADGROUP GROUP g bob COUNT 1 STREAMS s >", "XREADGROUP GROUP g alice COUNT 2 STREAMS s >",
			"XREADGROUP GROUP g carol STREAMS s >", "XGROUP CREATECONSUMER s g dave", "XPENDING s g",
			"!type XPENDING s g - + 10", pendingScript + "s g - + 10", pendingScript + "s g - + 2",
			pendingScript + "s g - + 10 alice", pendingScript + "s g - + 10 dave", pendingScript + "s g - + 10 nobody",
			pendingScript + "s g 2-1 3-1 10", pendingScript + "s g (2-1 + 10", pendingScript + "s g - (3-1 10",
			pendingScript + "s g (1-1 (4-1 10", pendingScript + "s g 2 3 10", pendingScript + "s g 3 2 10",
			pendingScript + "s g - + 0", pendingScript + "s g - + -1", pendingScript + "s g IDLE 0 - + 10",
			pendingScript + "s g IDLE 100000000 - + 10", pendingScript + "s g IDLE -5 - + 10 bob",
			pendingScript + "s g idle 0 - + 1 carol", "XPENDING s g IDLE 100000000 - + 10 alice",
			"XPENDING s g - +", "!type XPENDING s g - + 10 alice x", pendingScript + "s g - + 10 alice x", "XPENDING s g IDLE 10 - +", "XPENDING s g IDLE 10 - + 10 a b",
			"XPENDING s g IDLE x - + 10", "XPENDING s g - + x", "XPENDING s g abc + 10", "XPENDING s g - abc 10",
			"XPENDING s g (18446744073709551615-18446744073709551615 + 10", "XPENDING s g - (0-0 10", "XPENDING s g - (0 10",
			"XPENDING s g (- + 10", "XPENDING s g - (+ 10", "XPENDING s nog", "XPENDING s nog - + 10", "XPENDING s nog abc + 10",
			"XPENDING s", "XPENDING s g -", "SET str x", "XPENDING str g", "XPENDING str g - + 10", "XPENDING str g abc + 10",
			"XACK s g 1-1 2-1 3-1 4-1", "XPENDING s g", "XPENDING s g - + 10", "XPENDING s g IDLE 0 - + 10 bob",
		}},
		{"xclaim", []string{
			"XCLAIM nokey g c 0 1-1", "XADD s 1-1 a 1", "XADD s 2-1 b 2", "XADD s 3-1 c 3", "XADD s 4-1 d 4",
			"XCLAIM s g c 0 1-1", "XGROUP CREATE s g 0", "XREADGROUP GROUP g alice COUNT 3 STREAMS s >",
			"XCLAIM s g bob 0 1-1", pendingScript + "s g - + 10", "XCLAIM s g bob 0 1-1 2-1 JUSTID",
			pendingScript + "s g - + 10", "XCLAIM s g bob 100000000 3-1", "XCLAIM s g bob 0 3-1 IDLE 50000",
			pendingScript + "s g - + 10", "XCLAIM s g carol 40000 3-1 2-1 JUSTID", "XCLAIM s g carol 0 2-1 RETRYCOUNT 7 IDLE 30000",
			pendingScript + "s g - + 10", "XCLAIM s g carol 0 2-1 TIME 1", "XCLAIM s g carol 0 1-1 TIME 99999999999999",
			"XCLAIM s g carol 0 3-1 TIME -1", "XCLAIM s g carol 0 3-1 IDLE 99999999999999", "XCLAIM s g carol 0 1-1 IDLE -5",
			pendingScript + "s g - + 10", "XCLAIM s g dave 0 4-1", "XCLAIM s g dave 0 4-1 FORCE", "XCLAIM s g dave 0 9-9 FORCE",
			pendingScript + "s g - + 10", "XCLAIM s g erin 0 1-1 9-9 RETRYCOUNT 0 JUSTID", "XCLAIM s g erin 0 1-1 RETRYCOUNT -3",
			pendingScript + "s g - + 10", "XINFO GROUPS s", "XCLAIM s g erin 0 1-1 LASTID 9-9 JUSTID", "XINFO GROUPS s",
			"XCLAIM s g erin 0 8-8 LASTID 10-0", "XINFO GROUPS s", "XCLAIM s g erin 0 1-1 LASTID 2-0", "XINFO GROUPS s",
			"XCLAIM s g erin -5 1-1 JUSTID FORCE justid", "xclaim s g erin 0 1-1 idle 1 time 2 justid", "XPENDING s g",
		}},
		{"xclaim-errors-and-deleted", []string{
			"XADD s 1-1 a 1", "XADD s 2-1 b 2", "XADD s 3-1 c 3", "XGROUP CREATE s g 0", "XREADGROUP GROUP g alice STREAMS s >",
			"XCLAIM s g bob x 1-1", "XCLAIM s g bob 0 1-1 IDLE x", "XCLAIM s g bob 0 1-1 TIME x", "XCLAIM s g bob 0 1-1 RETRYCOUNT x",
			"XCLAIM s g bob 0 1-1 LASTID abc", "XCLAIM s g bob 0 1-1 FOO", "XCLAIM s g bob 0 1-1 JUSTID 2-1",
			"XCLAIM s g bob 0 1-1 IDLE", "XCLAIM s g bob 0 abc", "XCLAIM s g bob 0 1-1 abc", "XCLAIM s nog bob x 1-1",
			"XCLAIM nokey g bob x 1-1", "XCLAIM s g bob 0", "SET str x", "XCLAIM str g bob 0 1-1", "XCLAIM str g bob x abc",
			"XPENDING s g", "XDEL s 2-1", "XCLAIM s g bob 0 1-1 2-1 3-1", "XPENDING s g", pendingScript + "s g - + 10",
			"XDEL s 3-1", "XCLAIM s g bob 0 3-1 JUSTID", "XPENDING s g", "XTRIM s MAXLEN 0", "XCLAIM s g carol 0 1-1 FORCE",
			"XPENDING s g", "XINFO GROUPS s", consumersScript + "s g",
		}},
		{"xautoclaim", []string{
			"XAUTOCLAIM nokey g c 0 0", "XADD s 1-1 a 1", "XADD s 2-1 b 2", "XADD s 3-1 c 3", "XADD s 4-1 d 4",
			"XADD s 5-1 e 5", "XAUTOCLAIM s g c 0 0", "XGROUP CREATE s g 0", "XAUTOCLAIM s g c 0 0",
			"XREADGROUP GROUP g alice STREAMS s >", "XAUTOCLAIM s g bob 0 0 COUNT 2", "XAUTOCLAIM s g bob 0 3-1 COUNT 1 JUSTID",
			pendingScript + "s g - + 10", "XAUTOCLAIM s g bob 100000000 0", "XAUTOCLAIM s g carol 0 (3-1 COUNT 10",
			"XAUTOCLAIM s g carol 0 - JUSTID", "XAUTOCLAIM s g carol 0 + JUSTID", "XAUTOCLAIM s g carol 0 5 justid count 1",
			pendingScript + "s g - + 10", "XDEL s 2-1 4-1", "XAUTOCLAIM s g dave 0 0 COUNT 2", "XPENDING s g",
			"XAUTOCLAIM s g dave 0 0 COUNT 1", "XAUTOCLAIM s g dave 0 0", "XPENDING s g", pendingScript + "s g - + 10",
			"XDEL s 1-1 3-1 5-1", "XAUTOCLAIM s g erin 0 0 JUSTID", "XPENDING s g", consumersScript + "s g",
			"XINFO GROUPS s",
		}},
		{"xautoclaim-errors", []string{
			"XADD s 1-1 a 1", "XGROUP CREATE s g 0", "XREADGROUP GROUP g alice STREAMS s >", "SET str x",
			"XAUTOCLAIM s g c x 0", "XAUTOCLAIM s g c 0 abc", "XAUTOCLAIM s g c 0 (18446744073709551615-18446744073709551615",
			"XAUTOCLAIM s g c 0 0 COUNT 0", "XAUTOCLAIM s g c 0 0 COUNT -1", "XAUTOCLAIM s g c 0 0 COUNT x",
			"XAUTOCLAIM s g c 0 0 COUNT 9223372036854775807", "XAUTOCLAIM s g c 0 0 COUNT 922337203685477580",
			"XAUTOCLAIM s g c 0 0 COUNT", "XAUTOCLAIM s g c 0 0 FOO", "XAUTOCLAIM s g c 0 0 JUSTID FOO",
			"XAUTOCLAIM s nog c 0 0", "XAUTOCLAIM s nog c x 0", "XAUTOCLAIM s nog c 0 0 FOO", "XAUTOCLAIM str g c 0 0",
			"XAUTOCLAIM str g c x 0", "XAUTOCLAIM s g c 0", "XAUTOCLAIM s g c -100 0 JUSTID", "XPENDING s g",
		}},
		{"xinfo-groups-consumers", []string{
			"XINFO GROUPS nokey", "XINFO CONSUMERS nokey g", "XADD s 1-1 f v", "XINFO GROUPS s", "XINFO CONSUMERS s g",
			"XGROUP CREATE s g2 0", "XGROUP CREATE s g1 $", "XINFO GROUPS s", "XINFO CONSUMERS s g1",
			"XREADGROUP GROUP g2 zed STREAMS s >", "XGROUP CREATECONSUMER s g2 amy", "!type XINFO CONSUMERS s g2",
			consumersScript + "s g2", "XINFO GROUPS s", "XINFO GROUPS s x", "XINFO CONSUMERS s", "XINFO CONSUMERS s g x",
			"XINFO FOO s", "XINFO", "XINFO HELP", "XINFO HELP x", "xinfo help", "SET str x", "XINFO GROUPS str",
			"XINFO CONSUMERS str g", "XINFO STREAM str",
		}},
		{"lag-and-entries-read", []string{
			"XGROUP CREATE x g1 0 MKSTREAM", "XINFO GROUPS x", "XADD x 1-0 data a", "XDEL x 1-0", "XINFO GROUPS x",
			"DEL x", "XADD x 1-0 data a", "XADD x 2-0 data b", "XADD x 3-0 data c", "XADD x 4-0 data d", "XADD x 5-0 data e",
			"XGROUP CREATE x g1 0", "XINFO GROUPS x", "XREADGROUP GROUP g1 c11 COUNT 1 STREAMS x >", "XINFO GROUPS x",
			"XREADGROUP GROUP g1 c12 COUNT 10 STREAMS x >", "XINFO GROUPS x", "XADD x 6-0 data f", "XINFO GROUPS x",
			"DEL x", "XADD x 1-0 data a", "XADD x 2-0 data b", "XADD x 3-0 data c", "XADD x 4-0 data d", "XADD x 5-0 data e",
			"XDEL x 3-0", "XGROUP CREATE x g1 0", "XGROUP CREATE x g2 0", "XINFO GROUPS x",
			"XREADGROUP GROUP g1 c11 COUNT 1 STREAMS x >", "XINFO GROUPS x", "XREADGROUP GROUP g1 c11 COUNT 1 STREAMS x >",
			"XINFO GROUPS x", "XREADGROUP GROUP g1 c11 COUNT 1 STREAMS x >", "XINFO GROUPS x",
			"XREADGROUP GROUP g1 c11 COUNT 1 STREAMS x >", "XINFO GROUPS x", "XADD x 6-0 data f", "XINFO GROUPS x",
			"XTRIM x MINID = 3-0", "XINFO GROUPS x", "XTRIM x MINID = 5-0", "XINFO GROUPS x",
			"XGROUP CREATE x g3 5-0", "XGROUP CREATE x g4 6-0", "XGROUP CREATE x g5 4-0", "XGROUP CREATE x g6 9-0",
			"XGROUP CREATE x g7 0 ENTRIESREAD 3", "XGROUP CREATE x g8 6-0 ENTRIESREAD 100", "XINFO GROUPS x",
			"XREADGROUP GROUP g6 c STREAMS x >", "XREADGROUP GROUP g7 c COUNT 1 STREAMS x >", "XINFO GROUPS x",
			"XSETID x 10-0 ENTRIESADDED 20 MAXDELETEDID 9-0", "XINFO GROUPS x", "XADD x 11-0 f v", "XINFO GROUPS x",
			"XREADGROUP GROUP g1 c STREAMS x >", "XREADGROUP GROUP g5 c STREAMS x >", "XINFO GROUPS x",
			"XGROUP SETID x g1 0", "XINFO GROUPS x", "XGROUP SETID x g2 11-0", "XINFO GROUPS x",
			"XGROUP SETID x g3 0 ENTRIESREAD 1", "XINFO GROUPS x", "XREADGROUP GROUP g3 c COUNT 1 STREAMS x >",
			"XINFO GROUPS x", "XTRIM x MAXLEN 0", "XINFO GROUPS x", "XGROUP SETID x g4 0", "XINFO GROUPS x",
			"XADD x 12-0 f v", "XREADGROUP GROUP g4 c STREAMS x >", "XINFO GROUPS x",
		}},
		{"xinfo-stream-full-groups", []string{
			"XADD s 1-1 a 1", "XADD s 2-1 b 2", "XADD s 3-1 c 3", fullScript + "s", "XGROUP CREATE s g1 0",
			"XGROUP CREATE s g2 $", "XREADGROUP GROUP g1 alice COUNT 2 STREAMS s >", "XREADGROUP GROUP g1 bob STREAMS s >",
			"XGROUP CREATECONSUMER s g2 carol", "XCLAIM s g1 bob 0 1-1 TIME 5000000 RETRYCOUNT 4", "!type XINFO STREAM s FULL",
			fullScript + "s", fullScript + "s COUNT 1", fullScript + "s COUNT 0", fullScript + "s COUNT -1", "XDEL s 2-1",
			fullScript + "s", "XINFO STREAM s FULL COUNT x", "XINFO STREAM s FULL COUNT", "XINFO STREAM s FULL X 1",
			"XINFO STREAM s FOO", "XINFO STREAM s",
		}},
		{"consumers-across-reconnects", []string{
			"XADD s 1-1 f v", "XADD s 2-1 f v", "XGROUP CREATE s g 0", "@2 XREADGROUP GROUP g worker COUNT 1 STREAMS s >",
			"@2 !close", "@3 XREADGROUP GROUP g worker STREAMS s 0", "@3 XREADGROUP GROUP g worker STREAMS s >", "@3 !close",
			"@2 XREADGROUP GROUP g worker STREAMS s 0", "@2 XACK s g 1-1", "@2 !close", "@4 XREADGROUP GROUP g worker STREAMS s 0",
			"XPENDING s g", pendingScript + "s g - + 10", consumersScript + "s g",
		}},
		{"blocking-served-by-xadd", []string{
			"XGROUP CREATE s g $ MKSTREAM", "@2 !send XREADGROUP GROUP g alice BLOCK 0 STREAMS s >", "!blocked=1",
			"XADD s 1-1 f v", "@2 !recv XREADGROUP", "!blocked=0", "XPENDING s g", consumersScript + "s g",
			"@2 !send XREADGROUP GROUP g alice COUNT 1 BLOCK 0 STREAMS s >", "!blocked=1", "@3 !send XREADGROUP GROUP g bob BLOCK 0 STREAMS s >",
			"!blocked=2", "XADD s 2-1 f v", "@2 !recv XREADGROUP", "!blocked=1", "XADD s 3-1 f v",
			"@3 !recv XREADGROUP", "!blocked=0", "XPENDING s g", "XINFO GROUPS s",
			"@2 !send XREADGROUP GROUP g carol NOACK BLOCK 0 STREAMS s >", "!blocked=1", "XADD s 5-1 f v", "@2 !recv XREADGROUP",
			"XPENDING s g", consumersScript + "s g", "XINFO GROUPS s",
		}},
		{"blocking-several-streams-and-count", []string{
			"XGROUP CREATE a g $ MKSTREAM", "XGROUP CREATE b g $ MKSTREAM",
			"@2 !send XREADGROUP GROUP g c COUNT 2 BLOCK 0 STREAMS a b > >", "!blocked=1", "MULTI", "XADD b 1-1 f 1",
			"XADD b 1-2 f 2", "XADD b 1-3 f 3", "XADD a 1-1 f 4", "EXEC", "@2 !recv XREADGROUP", "XPENDING a g", "XPENDING b g",
			"@2 XREADGROUP GROUP g c STREAMS a b > >", "@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS a b > >", "!blocked=1",
			`EVAL "redis.call('xadd', KEYS[1], '5-5', 'f', 'v') return redis.call('xlen', KEYS[1])" 1 a`, "@2 !recv XREADGROUP",
		}},
		{"blocking-timeout-and-history", []string{
			"XGROUP CREATE s g $ MKSTREAM", "@2 !send XREADGROUP GROUP g c BLOCK 10 STREAMS s >", "@2 !recv XREADGROUP",
			"!blocked=0", "XADD s 666 key value", "XDEL s 666", "@2 !send XREADGROUP GROUP g c BLOCK 10 STREAMS s >",
			"@2 !recv XREADGROUP", "XREADGROUP GROUP g c BLOCK 0 STREAMS s 0", "XREADGROUP GROUP g c BLOCK 0 STREAMS s 700",
			"XADD s 667 key value", "XREADGROUP GROUP g c BLOCK 0 STREAMS s 0", "XREADGROUP GROUP g c BLOCK 0 STREAMS s >",
			"XREADGROUP GROUP g c BLOCK 0 STREAMS s 600", "XREADGROUP GROUP g c BLOCK 0 STREAMS s 667",
			"XACK s g 667", "XREADGROUP GROUP g c BLOCK 0 STREAMS s 0", "!blocked=0", "@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >",
			"!blocked=1", "XADD s 665 key value", "@2 !send PING", "!blocked=1", "XADD s 668 key value", "@2 !recv XREADGROUP",
			"@2 !recv PING",
		}},
		{"blocking-unblocked-by-deletion", []string{
			"XGROUP CREATE s g $ MKSTREAM", "@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "!blocked=1",
			"XGROUP DESTROY s g", "@2 !recv XREADGROUP", "!blocked=0", "XGROUP CREATE s g $",
			"@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "!blocked=1", "DEL s", "@2 !recv XREADGROUP",
			"XGROUP CREATE s g $ MKSTREAM", "@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "!blocked=1", "SET s x",
			"@2 !recv XREADGROUP", "DEL s", "XGROUP CREATE s g $ MKSTREAM", "@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >",
			"!blocked=1", "MULTI", "DEL s", "SADD s e", "EXEC", "@2 !recv XREADGROUP", "DEL s", "XGROUP CREATE s g $ MKSTREAM",
			"@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "!blocked=1", "FLUSHDB", "@2 !recv XREADGROUP",
			"XGROUP CREATE s g $ MKSTREAM", "@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "!blocked=1",
			"XGROUP CREATE s2 g $ MKSTREAM", "XADD s2 100 f1 v1", "RENAME s2 s", "@2 !recv XREADGROUP",
			"@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "!blocked=1", "XADD s3 100 f1 v1", "RENAME s3 s",
			"@2 !recv XREADGROUP", "!blocked=0", "XGROUP CREATE s g $", "@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >",
			"!blocked=1", "XGROUP DELCONSUMER s g c", "XGROUP SETID s g 0", "XGROUP CREATECONSUMER s g d", "!blocked=1",
			"XADD s 200 f v", "@2 !recv XREADGROUP", "@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "!blocked=1",
			"SELECT 1", "XGROUP CREATE s g $ MKSTREAM", "SWAPDB 0 1", "!blocked=1", "SELECT 0", "XADD s 300 f v", "@2 !recv XREADGROUP",
		}},
		{"blocking-unblocked-by-swapdb", []string{
			"XGROUP CREATE s g $ MKSTREAM", "@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "!blocked=1", "SWAPDB 0 1",
			"@2 !recv XREADGROUP", "SWAPDB 0 1", "@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "!blocked=1",
			"SELECT 1", "SET s x", "SWAPDB 0 1", "@2 !recv XREADGROUP", "SELECT 0", "DEL s",
		}},
		{"blocking-client-unblock", []string{
			"XGROUP CREATE s g $ MKSTREAM", "@2 !id", "@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "!blocked=1",
			"CLIENT UNBLOCK {id@2}", "@2 !recv XREADGROUP", "@2 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "!blocked=1",
			"CLIENT UNBLOCK {id@2} ERROR", "@2 !recv XREADGROUP", consumersScript + "s g",
		}},
		{"in-multi-and-scripts", []string{
			"XGROUP CREATE s g $ MKSTREAM", "MULTI", "XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "XADD s 1-1 f v",
			"XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "XACK s g 1-1", "XPENDING s g", "EXEC", "!blocked=0",
			`EVAL "return redis.call('xreadgroup', 'group', 'g', 'c', 'block', 0, 'streams', KEYS[1], '>')" 1 s`,
			`EVAL "return redis.pcall('xreadgroup', 'group', 'g', 'c', 'streams', KEYS[1], '0')" 1 s`,
			`EVAL "redis.call('xadd', KEYS[1], '2-1', 'f', 'v') return redis.call('xreadgroup', 'group', 'g', 'c', 'streams', KEYS[1], '>')" 1 s`,
			`EVAL "return redis.call('xclaim', KEYS[1], 'g', 'd', 0, '2-1', 'JUSTID')" 1 s`,
			`EVAL "return redis.call('xautoclaim', KEYS[1], 'g', 'e', 0, '0')" 1 s`,
			`EVAL "return redis.call('xpending', KEYS[1], 'g')" 1 s`, `EVAL "return redis.call('xinfo', 'groups', KEYS[1])" 1 s`,
			`EVAL "return redis.call('xgroup', 'destroy', KEYS[1], 'g')" 1 s`,
			`EVAL "return redis.call('xreadgroup', 'group', 'g', 'c', 'streams', KEYS[1], '>')" 1 s`,
			`EVAL "return redis.call('xreadgroup', 'group', 'g', 'c', 'streams', KEYS[1], '>')" 0 s`,
		}},
		{"ro-script-and-readonly-forms", []string{
			"XGROUP CREATE s g $ MKSTREAM", "XADD s 1-1 f v",
			`EVAL_RO "return redis.call('xreadgroup', 'group', 'g', 'c', 'streams', KEYS[1], '>')" 1 s`,
			`EVAL_RO "return redis.call('xpending', KEYS[1], 'g')" 1 s`, `EVAL_RO "return redis.call('xack', KEYS[1], 'g', '1-1')" 1 s`,
			`EVAL_RO "return redis.call('xinfo', 'groups', KEYS[1])" 1 s`, "COMMAND INFO xreadgroup xack xclaim xautoclaim xpending",
			"COMMAND GETKEYS XREADGROUP GROUP g c STREAMS a b > >", "COMMAND GETKEYS XGROUP CREATE s g $",
			"COMMAND GETKEYS XINFO CONSUMERS s g",
		}},
	})
}

// TestStreamGroupEvents: the keyspace events of consumer groups, with the
// subscriber on @2 (eventLines' " #N").
func TestStreamGroupEvents(t *testing.T) {
	eventsOff(t)
	const sub = "@2 PSUBSCRIBE __keyevent@*"
	runCases(t, withResets([]tcase{
		{"groups", eventLines(
			"CONFIG SET notify-keyspace-events Etg", sub,
			"XGROUP CREATE s g $", "XGROUP CREATE s g $ MKSTREAM #1", "XGROUP CREATE s g $", "XADD s 1-1 f v #1",
			"XGROUP CREATE s h 0 #1", "XGROUP SETID s g 0 #1", "XGROUP SETID s nog 0", "XGROUP CREATECONSUMER s g c #1",
			"XGROUP CREATECONSUMER s g c", "XREADGROUP GROUP g c STREAMS s >", "XREADGROUP GROUP g d STREAMS s 0 #1",
			"XREADGROUP GROUP h e NOACK STREAMS s > #1", "XREADGROUP GROUP h e STREAMS s >", "XCLAIM s g f 0 1-1 #1",
			"XCLAIM s g f 0 1-1", "XCLAIM s g x 0 9-9", "XAUTOCLAIM s g y 0 0 #1", "XAUTOCLAIM s g y 0 0",
			"XAUTOCLAIM s g z 100000000 0", "XACK s g 1-1", "XGROUP DELCONSUMER s g y #1", "XGROUP DELCONSUMER s g y",
			"XGROUP DESTROY s g #1", "XGROUP DESTROY s g", "XPENDING s h", "XINFO GROUPS s", "DEL s #1",
		)},
		{"blocking", eventLines(
			"CONFIG SET notify-keyspace-events Etg", sub,
			"XGROUP CREATE s g $ MKSTREAM #1", "@3 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "!blocked=1",
			"XADD s 1-1 f v #2", "@3 !recv XREADGROUP", "@3 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "!blocked=1",
			"XADD s 2-1 f v #1", "@3 !recv XREADGROUP", "@3 !send XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "!blocked=1",
			"XGROUP DESTROY s g #1", "@3 !recv XREADGROUP",
		)},
	}))
}

// TestStreamGroupEdges: the option and error paths of t_stream.c the
// cases above leave out: names that need cleaning in error texts, IDs
// where they are not allowed, numbers at and past their limits, WATCH
// (which no group change touches), and more blocked readers.
func TestStreamGroupEdges(t *testing.T) {
	runCases(t, []tcase{
		{"error-texts-clean-names", []string{
			"XADD s 1-1 f v", `XGROUP CREATE s "a b" 0`, `XGROUP CREATE s "a b" 0`, `XREADGROUP GROUP "x\ny" c STREAMS s >`,
			`XREADGROUP GROUP "x\x00y" c STREAMS s >`, `XREADGROUP GROUP "x\r\n" c STREAMS "s\n" >`, `XPENDING "k\r\n" g`,
			`XCLAIM s "g\n" c 0 1-1`, `XGROUP SETID s "n\no" 0`, `XINFO CONSUMERS s "n\r\n"`, `XAUTOCLAIM s "\ng" c 0 0`,
			`XCLAIM s "a b" c 0 1-1 "FOO\nBAR"`, `XCLAIM s "a b" c 0 1-1 "FOO\x00BAR"`, `XCLAIM s "a b" c 0 1-1 "x\r\n"`,
			`XGROUP DELCONSUMER s "g\x00" c`, `XGROUP CREATECONSUMER "s\n" g c`, `XGROUP FOO s g "x\ny"`,
		}},
		{"ids-where-not-allowed", []string{
			"XADD s 1-1 f v", "XGROUP CREATE s g 0", "XREADGROUP GROUP g c STREAMS s >", "XPENDING s g > + 10",
			"XPENDING s g - > 10", "XPENDING s g $ + 10", "XACK s g >", "XACK s g $", "XCLAIM s g c 0 >", "XCLAIM s g c 0 $",
			"XCLAIM s g c 0 1-1 LASTID >", "XCLAIM s g c 0 1-1 LASTID -", "XCLAIM s g c 0 - 1-1", "XAUTOCLAIM s g c 0 >",
			"XAUTOCLAIM s g c 0 $", "XAUTOCLAIM s g c 0 (+", "XGROUP SETID s g >", "XGROUP CREATE s h $ ENTRIESREAD 0",
			"XGROUP SETID s g 1", "XINFO GROUPS s", "XCLAIM s g c 0 1", "XACK s g 1", "XPENDING s g", "XREADGROUP GROUP g c STREAMS s 999",
			"XREADGROUP GROUP g c STREAMS s 0-18446744073709551615", "XREADGROUP GROUP h c STREAMS s 1-1",
		}},
		{"numbers-at-the-limits", []string{
			"XADD s 1-1 f v", "XADD s 2-1 f v", "XGROUP CREATE s g 0", "XREADGROUP GROUP g alice STREAMS s >",
			"XCLAIM s g bob 9223372036854775807 1-1", "XCLAIM s g bob 9223372036854775808 1-1", "XCLAIM s g bob -9223372036854775808 1-1 JUSTID",
			"XCLAIM s g bob 0 1-1 IDLE -9223372036854775808 JUSTID", "XCLAIM s g bob 0 1-1 IDLE 9223372036854775807 JUSTID",
			"XCLAIM s g bob 0 1-1 IDLE 9223372036854775808", "XCLAIM s g bob 0 1-1 TIME 9223372036854775807 JUSTID",
			"XCLAIM s g bob 0 1-1 RETRYCOUNT 9223372036854775807 JUSTID", pendingScript + "s g - + 10",
			"XCLAIM s g bob 0 1-1 RETRYCOUNT -1", pendingScript + "s g - + 10", "XCLAIM s g bob 0 1-1 2-1 1-1 JUSTID",
			"XCLAIM s g bob 0 1-1 LASTID 1-1 LASTID 3-1 JUSTID", "XINFO GROUPS s", "XCLAIM s g bob 0 1-1 RETRYCOUNT 2 RETRYCOUNT 3 JUSTID",
			pendingScript + "s g - + 10", "XREADGROUP GROUP g c COUNT 9223372036854775807 STREAMS s 0",
			"XREADGROUP GROUP g c COUNT 9223372036854775808 STREAMS s 0", "XREADGROUP GROUP g c COUNT -9223372036854775808 STREAMS s 0",
			"XREADGROUP GROUP g c BLOCK 9223372036854775808 STREAMS s >", "XREADGROUP GROUP g c BLOCK -0 STREAMS s 0",
			"XPENDING s g IDLE 9223372036854775807 - + 10", "XPENDING s g IDLE 9223372036854775808 - + 10",
			pendingScript + "s g - + 9223372036854775807", "XPENDING s g - + 9223372036854775808", "XPENDING s g IDLE 0 - + 0 bob",
			pendingScript + "s g IDLE 0 - + 1 bob", "XPENDING s g IDLE 100000000 - + 10 bob",
			"XGROUP CREATE s e 0 ENTRIESREAD 9223372036854775807", "XGROUP CREATE s e 0 ENTRIESREAD 9223372036854775808",
			"XGROUP SETID s g 0 ENTRIESREAD -9223372036854775808", "XINFO GROUPS s",
		}},
		{"xautoclaim-count-limits", []string{
			"XADD s 1-1 f v", "XADD s 2-1 f v", "XADD s 3-1 f v", "XADD s 4-1 f v", "XGROUP CREATE s g 0",
			"XREADGROUP GROUP g alice STREAMS s >", "XAUTOCLAIM s g bob 0 0 COUNT 1 JUSTID", "XAUTOCLAIM s g bob 0 2-1 COUNT 1 JUSTID",
			"XAUTOCLAIM s g bob 0 (2-1 COUNT 2 JUSTID", "XAUTOCLAIM s g bob 0 4-1 COUNT 1 JUSTID", "XAUTOCLAIM s g bob 0 (4-1 JUSTID",
			"XAUTOCLAIM s g bob 0 0 COUNT 576460752303423488", "XAUTOCLAIM s g bob 0 0 COUNT 576460752303423487",
			"XAUTOCLAIM s g bob 0 0 COUNT 10000000000000 JUSTID", "XAUTOCLAIM s g bob 0 0 COUNT 1000000000 JUSTID",
			"XAUTOCLAIM s nog bob 0 0 COUNT 576460752303423487", "XAUTOCLAIM s g bob 0 0 COUNT 2 COUNT 1 JUSTID",
			"XAUTOCLAIM s g bob 100000000 0 COUNT 1", "XDEL s 1-1 2-1 3-1", "XAUTOCLAIM s g carol 0 0 COUNT 1 JUSTID",
			"XAUTOCLAIM s g carol 0 0 COUNT 1 JUSTID", "XAUTOCLAIM s g carol 0 0 COUNT 1 JUSTID", "XPENDING s g",
			"XAUTOCLAIM s g carol 0 0 COUNT 1", consumersScript + "s g",
		}},
		{"watch-and-groups", []string{
			"XADD s 1-1 f v", "XGROUP CREATE s g 0", "WATCH s", "@2 XREADGROUP GROUP g c STREAMS s >", "@2 XACK s g 1-1",
			"@2 XGROUP CREATECONSUMER s g d", "@2 XGROUP SETID s g 0", "@2 XCLAIM s g d 0 1-1 FORCE JUSTID",
			"@2 XAUTOCLAIM s g e 0 0 JUSTID", "@2 XGROUP DELCONSUMER s g e", "@2 XGROUP CREATE s h 0", "@2 XGROUP DESTROY s h",
			"MULTI", "PING", "EXEC", "WATCH s", "@2 XGROUP CREATE s h 0 MKSTREAM", "MULTI", "PING", "EXEC", "WATCH n",
			"@2 XGROUP CREATE n g 0 MKSTREAM", "MULTI", "PING", "EXEC",
		}},
		{"blocking-more-readers", []string{
			"XGROUP CREATE s g $ MKSTREAM", "XGROUP CREATE s h $", "@2 !send XREADGROUP GROUP g a BLOCK 0 STREAMS s >", "!blocked=1",
			"@3 !send XREADGROUP GROUP h b BLOCK 0 STREAMS s >", "!blocked=2", "@4 !send XREAD BLOCK 0 STREAMS s $", "!blocked=3",
			"XADD s 1-1 f v", "@2 !recv XREADGROUP", "@3 !recv XREADGROUP", "@4 !recv XREAD", "!blocked=0",
			"XGROUP CREATE x g $ MKSTREAM", "@2 !send XREADGROUP GROUP g a BLOCK 0 STREAMS x s > >", "!blocked=1",
			"XADD x 1-1 f v", "@2 !recv XREADGROUP", "!blocked=0", "@2 !send XREADGROUP GROUP g a BLOCK 0 STREAMS s >", "!blocked=1",
			"XGROUP SETID s g 0", "!blocked=1", "XADD s 2-1 f v", "@2 !recv XREADGROUP", "@2 !send XREADGROUP GROUP g a COUNT 1 BLOCK 0 STREAMS s >",
			"!blocked=1", "MULTI", "XADD s 3-1 f v", "XADD s 4-1 f v", "EXEC", "@2 !recv XREADGROUP", "XPENDING s g",
			"@2 XREADGROUP GROUP g a STREAMS s >", "@2 !send XREADGROUP GROUP g a BLOCK 0 STREAMS s >", "!blocked=1", "MULTI", "XADD s 5-1 f v", "XDEL s 4-1 5-1", "EXEC",
			"@2 !recv XREADGROUP", "XINFO GROUPS s", "@2 !send XREADGROUP GROUP g a BLOCK 0 STREAMS s >", "!blocked=1",
			"MULTI", "XADD s 6-1 f v", "XGROUP DESTROY s g", "XGROUP CREATE s g 0", "EXEC", "@2 !recv XREADGROUP",
			"@2 !send XREADGROUP GROUP g a BLOCK 0 STREAMS s >", "!blocked=1", "EXPIRE s 100", "PERSIST s", "!blocked=1",
			"UNLINK s", "@2 !recv XREADGROUP", "XGROUP CREATE s g $ MKSTREAM", "@2 !send XREADGROUP GROUP g a BLOCK 0 STREAMS s >",
			"!blocked=1", "SET other x", "RENAME other s", "@2 !recv XREADGROUP", "DEL s", "XGROUP CREATE s g $ MKSTREAM",
			"@2 !send XREADGROUP GROUP g a BLOCK 0 STREAMS s >", "!blocked=1",
			"FLUSHALL", "@2 !recv XREADGROUP", "XGROUP CREATE s g $ MKSTREAM", "@2 !send XREADGROUP GROUP g a BLOCK 0 STREAMS s >",
			"!blocked=1", "PEXPIRE s 1", "@2 !recv XREADGROUP", "EXISTS s",
		}},
		aclCase("acl-key-flags",
			"XADD s 1-1 f v", "XGROUP CREATE s g 0", "ACL SETUSER alice on nopass %R~s* +@all", "ACL SETUSER bob on nopass %W~s* +@all",
			"@2 AUTH alice x", "@2 XREADGROUP GROUP g c STREAMS s >", "@2 XPENDING s g", "@2 XINFO GROUPS s", "@2 !type XINFO CONSUMERS s g",
			"@2 XACK s g 1-1", "@2 XCLAIM s g c 0 1-1", "@2 XAUTOCLAIM s g c 0 0", "@2 XGROUP CREATE s h 0", "@2 XGROUP SETID s g 0",
			"@2 XGROUP DESTROY s g", "@2 XGROUP CREATECONSUMER s g d", "@2 XGROUP DELCONSUMER s g c",
			"@3 AUTH bob x", "@3 XREADGROUP GROUP g c STREAMS s >", "@3 XACK s g 1-1", "@3 XPENDING s g", "@3 XGROUP CREATECONSUMER s g d",
			"@3 XCLAIM s g c 0 1-1", "@3 XGROUP DESTROY s g", "!acllog ACL LOG",
		),
		{"copy-rename-and-dump", []string{
			"XADD s 1-1 f v", "XADD s 2-1 f v", "XGROUP CREATE s g 0", "XREADGROUP GROUP g c COUNT 1 STREAMS s >", "COPY s s2",
			"XACK s2 g 1-1", "XREADGROUP GROUP g d STREAMS s2 >", "XPENDING s g", "XPENDING s2 g", "XINFO GROUPS s", "XINFO GROUPS s2",
			"RENAME s2 s3", "XPENDING s3 g", "XGROUP DESTROY s3 g", "XINFO GROUPS s", "!type DUMP s", "!type MEMORY USAGE s",
			"OBJECT ENCODING s", "TYPE s",
		}},
		{"consumers-and-reconnects-noack", []string{
			"XADD s 1-1 f v", "XADD s 2-1 f v", "XGROUP CREATE s g 0", "@2 XREADGROUP GROUP g w NOACK COUNT 1 STREAMS s >", "@2 !close",
			"@3 XREADGROUP GROUP g w STREAMS s 0", "@3 XREADGROUP GROUP g w STREAMS s >", "@3 !close", pendingScript + "s g - + 10 w",
			"@2 XGROUP DELCONSUMER s g w", "@2 XREADGROUP GROUP g w STREAMS s 0", "XPENDING s g", consumersScript + "s g",
		}},
	})
}

// TestStreamGroupDirtyCounts: what each group command adds to the change
// counter, as Redis's server.dirty (the group state changes without
// signalModifiedKey).
func TestStreamGroupDirtyCounts(t *testing.T) {
	base := []string{"XADD s 1-1 f v", "XADD s 2-1 f v", "XADD s 3-1 f v", "XGROUP CREATE s g 0"}
	read := append(append([]string(nil), base...), "XREADGROUP GROUP g alice STREAMS s >")
	runDirtyCases(t, []dirtyCase{
		{"create", base, "XGROUP CREATE s h 0"},
		{"create busy", base, "XGROUP CREATE s g 0"},
		{"create mkstream", nil, "XGROUP CREATE n g 0 MKSTREAM"},
		{"setid", base, "XGROUP SETID s g 0"},
		{"destroy", base, "XGROUP DESTROY s g"},
		{"destroy none", base, "XGROUP DESTROY s h"},
		{"createconsumer", base, "XGROUP CREATECONSUMER s g c"},
		{"createconsumer exists", read, "XGROUP CREATECONSUMER s g alice"},
		{"delconsumer", read, "XGROUP DELCONSUMER s g alice"},
		{"delconsumer none", read, "XGROUP DELCONSUMER s g bob"},
		{"xreadgroup new consumer", base, "XREADGROUP GROUP g c STREAMS s >"},
		{"xreadgroup two streams", append(append([]string(nil), base...), "XADD t 1-1 f v", "XGROUP CREATE t g 0"), "XREADGROUP GROUP g c STREAMS s t > >"},
		{"xreadgroup history", read, "XREADGROUP GROUP g alice STREAMS s 0"},
		{"xreadgroup nothing new", read, "XREADGROUP GROUP g alice STREAMS s >"},
		{"xreadgroup noack", base, "XREADGROUP GROUP g c NOACK STREAMS s >"},
		{"xack", read, "XACK s g 1-1 2-1 9-9"},
		{"xclaim", read, "XCLAIM s g bob 0 1-1 2-1 9-9"},
		{"xclaim lastid only", read, "XCLAIM s g bob 0 9-9 LASTID 9-9"},
		{"xclaim deleted", append(append([]string(nil), read...), "XDEL s 1-1"), "XCLAIM s g bob 0 1-1 2-1"},
		{"xautoclaim", append(append([]string(nil), read...), "XDEL s 1-1"), "XAUTOCLAIM s g bob 0 0"},
		{"xautoclaim nothing idle", read, "XAUTOCLAIM s g bob 100000000 0"},
	})
}

package conformance

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/internal/listpack"
	"github.com/floodgate/floodgate/rdb"
)

// dumpPayload wraps an RDB type byte and value in DUMP's footer: the RDB
// version (10, Redis 7.0's) and the CRC64 of all before it.
func dumpPayload(typ byte, value []byte) []byte {
	p := append([]byte{typ}, value...)
	p = binary.LittleEndian.AppendUint16(p, 10)
	return binary.LittleEndian.AppendUint64(p, rdb.CRC64(0, p))
}

// rdbString is an RDB string: its length (6-bit, 14-bit or 32-bit form),
// then its bytes.
func rdbString(b []byte) []byte {
	var out []byte
	switch n := len(b); {
	case n < 64:
		out = []byte{byte(n)}
	case n < 16384:
		out = []byte{0x40 | byte(n>>8), byte(n)}
	default:
		out = binary.BigEndian.AppendUint32([]byte{0x80}, uint32(n))
	}
	return append(out, b...)
}

// ziplist assembles a ziplist of entries (each its encoding and data,
// without the prevlen, which is filled in), with a correct header.
func ziplist(entries ...[]byte) []byte {
	zl := make([]byte, 10)
	prev, tail := 0, 10
	for _, e := range entries {
		tail = len(zl)
		start := len(zl)
		if prev < 254 {
			zl = append(zl, byte(prev))
		} else {
			zl = binary.LittleEndian.AppendUint32(append(zl, 0xFE), uint32(prev))
		}
		zl = append(zl, e...)
		prev = len(zl) - start
	}
	zl = append(zl, 0xFF)
	binary.LittleEndian.PutUint32(zl, uint32(len(zl)))
	binary.LittleEndian.PutUint32(zl[4:], uint32(tail))
	binary.LittleEndian.PutUint16(zl[8:], uint16(len(entries)))
	return zl
}

// zlStr and zlInt are ziplist entries: a short string, or an integer as
// the 13 immediate values, int16 or int64.
func zlStr(s string) []byte { return append([]byte{byte(len(s))}, s...) }

func zlInt(n int64) []byte {
	switch {
	case n >= 0 && n <= 12:
		return []byte{0xF1 + byte(n)}
	case n >= -32768 && n <= 32767:
		return binary.LittleEndian.AppendUint16([]byte{0xC0}, uint16(n))
	}
	return binary.LittleEndian.AppendUint64([]byte{0xE0}, uint64(n))
}

// zipmap assembles a zipmap of field, value pairs (count byte, entries
// with free bytes after each value, then 255).
func zipmap(count byte, free int, pairs ...string) []byte {
	zm := []byte{count}
	for i := 0; i < len(pairs); i += 2 {
		zm = append(zm, byte(len(pairs[i])))
		zm = append(zm, pairs[i]...)
		zm = append(zm, byte(len(pairs[i+1])), byte(free))
		zm = append(zm, pairs[i+1]...)
		zm = append(zm, make([]byte, free)...)
	}
	return append(zm, 0xFF)
}

func lpOf(elems ...string) []byte {
	lp := listpack.New()
	for _, e := range elems {
		lp.AppendString([]byte(e))
	}
	return lp.Bytes()
}

func intset(width int, vals ...int64) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(width))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vals)))
	for _, v := range vals {
		switch width {
		case 2:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 4:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

// patch returns a copy of b with b[at:] overwritten by with.
func patch(b []byte, at int, with ...byte) []byte {
	c := slices.Clone(b)
	copy(c[at:], with)
	return c
}

// TestRestoreLegacyEncodings restores hand-assembled payloads of every
// encoding Redis 7.0 still loads (zipmap, ziplist lists, hashes and sorted
// sets, intsets, quicklists of ziplists and of listpacks) and corrupt
// variants of them, comparing RESTORE's reply and what it made.
func TestRestoreLegacyEncodings(t *testing.T) {
	restore := func(key string, typ byte, value []byte) string {
		return "RESTORE " + key + " 0 " + quoteBytes(string(dumpPayload(typ, value)))
	}
	hash := func(k string) []string {
		return []string{"!sort HGETALL " + k, "OBJECT ENCODING " + k, "DUMP " + k}
	}
	list := func(k string) []string { return []string{"LRANGE " + k + " 0 -1", "DUMP " + k} }
	zm := zipmap(2, 0, "f1", "v1", "f2", "12")
	long := strings.Repeat("v", 70)
	zlList := ziplist(zlStr("a"), zlInt(7), zlInt(-300), zlInt(1<<40), zlStr("bc"))
	zlHash := ziplist(zlStr("f"), zlStr("v"), zlStr("g"), zlInt(5))
	zlZSet := ziplist(zlStr("n"), zlStr("1.5"), zlStr("m"), zlInt(2))
	bigPrev := ziplist(zlStr(strings.Repeat("x", 60)), zlStr(strings.Repeat("y", 60)), zlStr(strings.Repeat("z", 60)),
		zlStr(strings.Repeat("w", 60)), zlStr(strings.Repeat("q", 60)))
	quicklist1 := append([]byte{2}, rdbString(ziplist(zlStr("a"), zlStr("b")))...)
	quicklist1 = append(quicklist1, rdbString(ziplist(zlInt(3)))...)
	quicklist2 := append([]byte{3, 2}, rdbString(lpOf("a", "b"))...)
	quicklist2 = append(quicklist2, 2)
	quicklist2 = append(quicklist2, rdbString(lpOf("1", "2", "3"))...)
	quicklist2 = append(quicklist2, 1)
	quicklist2 = append(quicklist2, rdbString([]byte("plain"))...)
	cases := []tcase{
		{"zipmap", append(append([]string{restore("h", 9, rdbString(zm))}, hash("h")...),
			restore("h2", 9, rdbString(zipmap(254, 2, "a", "1", "b", "x"))), "!sort HGETALL h2", "OBJECT ENCODING h2", "DUMP h2",
			restore("h3", 9, rdbString(zipmap(1, 0, "f", long))), "OBJECT ENCODING h3", "HGET h3 f",
			"CONFIG SET hash-max-listpack-entries 1", restore("h4", 9, rdbString(zm)), "OBJECT ENCODING h4")},
		{"zipmap-corrupt", []string{
			restore("h", 9, rdbString(zipmap(2, 0, "f", "v", "f", "w"))), // duplicate field
			restore("h", 9, rdbString(zipmap(3, 0, "f", "v"))),           // count
			restore("h", 9, rdbString([]byte{0, 0xFF})),                  // empty
			restore("h", 9, rdbString(zipmap(1, 0, "f", "v")[:6])),       // no end byte
			restore("h", 9, rdbString(patch(zm, 1, 40))),                 // field runs past the end
			restore("h", 9, rdbString(patch(zm, 4, 40))),                 // value runs past the end
			restore("h", 9, rdbString(patch(zm, 5, 9))),                  // free bytes run past the end
			restore("h", 9, rdbString(patch(zm, 1, 254, 1, 0, 0, 0))),    // 5-byte length
			"EXISTS h"}},
		{"ziplist-list", append(append([]string{restore("l", 10, rdbString(zlList))}, list("l")...),
			restore("l2", 10, rdbString(patch(zlList, 8, 0xFF, 0xFF))), "LRANGE l2 0 -1", // unknown count
			restore("l3", 10, rdbString(bigPrev)), "LLEN l3", "DUMP l3")},
		{"ziplist-corrupt", []string{
			restore("l", 10, rdbString(patch(zlList, 4, 10))),            // tail offset at the first entry
			restore("l", 10, rdbString(patch(zlList, 4, 0xFF, 0xFF, 0))), // tail offset past the end
			restore("l", 10, rdbString(patch(zlList, 8, 4))),             // count
			restore("l", 10, rdbString(patch(zlList, 13, 5))),            // prevlen of the second entry
			restore("l", 10, rdbString(patch(zlList, 0, 0x40))),          // size
			restore("l", 10, rdbString(patch(zlList, 11, 0x3F))),         // string runs past the end
			restore("l", 10, rdbString(patch(zlList, 11, 0xC1))),         // encoding
			restore("l", 10, rdbString(patch(zlList, len(zlList)-1, 0))), // end byte
			restore("l", 10, rdbString(ziplist())),                       // empty: no key
			"EXISTS l"}},
		{"ziplist-hash-zset", append(append(append([]string{restore("h", 13, rdbString(zlHash))}, hash("h")...),
			restore("z", 12, rdbString(zlZSet)), "ZRANGE z 0 -1 WITHSCORES", "OBJECT ENCODING z", "DUMP z",
			restore("h2", 13, rdbString(ziplist(zlStr("f"), zlStr("v"), zlStr("f"), zlStr("w")))),
			restore("h2", 13, rdbString(ziplist(zlStr("f"), zlStr("v"), zlStr("g")))),
			// Redis converts a ziplist's pairs without reading the scores,
			// and reads one as strtod does (zzlStrtod): "x" scores 0, and
			// DUMP keeps the text (TestRestoreScoreText).
			restore("z2", 12, rdbString(ziplist(zlStr("m"), zlStr("x"), zlStr("n"), zlStr("1.5abc"), zlStr("o"), zlStr(" 0x10"), zlStr("p"), zlStr("1e999")))),
			"ZRANGE z2 0 -1 WITHSCORES", "ZSCORE z2 m", "ZSCORE z2 o", "ZSCORE z2 p", "ZCARD z2",
			restore("z4", 17, rdbString(lpOf("m", "x", "n", "2"))), "ZRANGE z4 0 -1 WITHSCORES",
			restore("z3", 12, rdbString(patch(zlZSet, 4, 11))),
			restore("h2", 13, rdbString(patch(zlHash, 8, 3)))), "EXISTS h2 z3")},
		{"intset", []string{restore("s", 11, rdbString(intset(2, -5, 3, 300))), "SMEMBERS s", "OBJECT ENCODING s", "DUMP s",
			restore("s2", 11, rdbString(intset(8, 1, 1<<40))), "SMEMBERS s2", "DUMP s2",
			restore("s3", 11, rdbString(intset(3, 1))), restore("s3", 11, rdbString(intset(4, 1, 2)[:15])),
			restore("s3", 11, rdbString(intset(4))), "EXISTS s3"}},
		{"quicklist", append(append([]string{restore("l", 14, quicklist1)}, list("l")...),
			restore("l2", 18, quicklist2), "LRANGE l2 0 -1", "LLEN l2",
			restore("l3", 14, append([]byte{1}, rdbString(patch(ziplist(zlStr("a"), zlStr("b")), 4, 10))...)),
			restore("l3", 18, append([]byte{1, 3}, rdbString(lpOf("a"))...)),
			restore("l3", 18, append([]byte{1, 2}, rdbString(patch(lpOf("a", "b"), 0, 9))...)),
			restore("l3", 18, append([]byte{1, 2}, rdbString(lpOf())...)), "EXISTS l3")},
		{"length-into-footer", []string{
			// Redis reads the value from the whole payload: a string whose
			// length takes the footer's version bytes is still loaded.
			"RESTORE s 0 " + quoteBytes(string(dumpPayload(0, []byte{5, 'a', 'b', 'c'}))), "GET s",
			"RESTORE s2 0 " + quoteBytes(string(dumpPayload(0, []byte{12, 'a', 'b', 'c'}))), "EXISTS s2"}},
		{"sanitize", []string{"CONFIG SET sanitize-dump-payload yes",
			restore("s", 11, rdbString(intset(2, 3, 1))),
			restore("h", 16, rdbString(lpOf("f", "v", "f", "w"))),
			restore("l", 18, append([]byte{1, 2}, rdbString(patch(lpOf("a", "b"), 8, 9))...)),
			restore("l", 10, rdbString(zlList)), "LRANGE l 0 -1",
			"CONFIG SET sanitize-dump-payload no"}},
	}
	runEncodingCases(t, cases)
}

// TestRestoreScoreText restores sorted sets whose score entries are not
// what Redis would write for their scores ("x" scores 0, "1.50", "-0", "5"
// as a string entry, an integer entry a double cannot hold) and checks
// which operations keep the entry's text, as Redis keeps its loaded
// listpack's entry until it rewrites it: DUMP writes it back, ZSCAN
// answers it, the other replies answer the number.
func TestRestoreScoreText(t *testing.T) {
	restore := func(key string, typ byte, value []byte) string {
		return "RESTORE " + key + " 0 " + quoteBytes(string(dumpPayload(typ, value)))
	}
	x := restore("z", 17, rdbString(lpOf("m", "x", "n", "2")))
	show := []string{"ZSCORE z m", "ZRANGE z 0 -1 WITHSCORES", "ZSCAN z 0 MATCH m", "OBJECT ENCODING z", "DUMP z"}
	op := func(name string, lines ...string) tcase {
		return tcase{name, append(append([]string{x}, lines...), show...)}
	}
	texts := []string{"x", "1.50", "5.0", "-0", " 0x10", "1e999", "inf", "-inf", "1.5abc", "0.1", "1e17", "5e17", "-",
		"05", "9007199254740993", "4611686018427387905", "-9223372036854775808", "1.5\x00junk"}
	var spelled []string
	for _, s := range texts {
		spelled = append(spelled, restore("l", 17, rdbString(lpOf("m", s))), "ZSCORE l m", "ZSCAN l 0", "DUMP l",
			restore("zl", 12, rdbString(ziplist(zlStr("m"), zlStr(s)))), "ZSCORE zl m", "ZSCAN zl 0", "DUMP zl",
			"DEBUG DIGEST-VALUE l zl", "DEL l zl")
	}
	// "5" and "0" as string entries, which lpAppend would write as integers;
	// from a ziplist they become integer entries.
	asText := listpack.New()
	asText.AppendString([]byte("n"))
	asText.AppendText([]byte("0"))
	asText.AppendString([]byte("m"))
	asText.AppendText([]byte("5"))
	spelled = append(spelled, restore("l", 17, rdbString(asText.Bytes())), "ZSCAN l 0", "DUMP l",
		restore("zl", 12, rdbString(ziplist(zlStr("n"), zlStr("0"), zlStr("m"), zlStr("5")))), "ZSCAN zl 0", "DUMP zl",
		restore("i", 17, rdbString(patch(lpOf("m", "1"), 9, 0x7F))), "ZSCORE i m", "DUMP i") // a plain integer entry
	long := strings.Repeat("y", 80)
	cases := []tcase{
		{"spellings", spelled},
		op("read", "ZMSCORE z m n", "ZRANK z m", "ZRANGEBYSCORE z -inf +inf WITHSCORES", "ZRANDMEMBER z 2 WITHSCORES",
			"DEBUG DIGEST-VALUE z", "ZCOUNT z 0 0"),
		op("zincrby-other", "ZINCRBY z 1 n"),
		op("zincrby-same-0", "ZINCRBY z 0 m"),
		op("zincrby-same-1", "ZINCRBY z 1 m"),
		op("zadd-other", "ZADD z 7 o", "ZADD z -7 a", "ZADD z 0 l"),
		op("zadd-same-score", "ZADD z XX 0 m", "ZADD z 0 m", "ZADD z -0 m", "ZADD z GT CH 0 m", "ZADD z INCR 0 m"),
		op("zadd-xx-new-score", "ZADD z XX 1 m"),
		op("zadd-xx-back", "ZADD z XX 1 m", "ZADD z XX 0 m"),
		op("zrem-other", "ZREM z n"),
		op("zrem-self", "ZREM z m", "ZADD z 0 m"),
		op("pop-other", "ZPOPMAX z"),
		op("pop-self", "ZPOPMIN z"),
		op("zremrange", "ZREMRANGEBYRANK z 1 1", "ZADD z 2 n", "ZREMRANGEBYSCORE z 1 3"),
		op("zremrange-self", "ZREMRANGEBYLEX z [m [m"),
		op("to-skiplist", "ZADD z 3 "+long),
		op("to-skiplist-and-back", "ZADD z 3 "+long, "ZREM z "+long, "DEBUG RELOAD"),
		op("sort", "SORT z BY nosort"),
		op("reload", "DEBUG RELOAD", "DEBUG RELOAD"),
		op("copy", "COPY z c", "DUMP c", "ZSCAN c 0", "ZADD c 1 m", "DUMP c"),
		op("rename", "RENAME z r", "DUMP r", "RENAME r z"),
		op("move", "MOVE z 1", "SELECT 1", "DUMP z", "MOVE z 0", "SELECT 0"),
		op("store-self", "ZUNIONSTORE z 1 z"),
		op("rangestore", "ZRANGESTORE d z 0 -1", "DUMP d"),
		op("restore-dumped", "DUMP z", "DEL z", x+" ABSTTL", "RESTORE z 0 "+quoteBytes(string(dumpPayload(17, rdbString(lpOf("m", "-0")))))+" REPLACE",
			"ZINCRBY z 0 m", "ZADD z 0 m"),
	}
	addrs := debugServers(t) // for DEBUG RELOAD and DIGEST-VALUE
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) { runCaseOn(t, tc, proto, addrs) })
			}
		})
	}
}

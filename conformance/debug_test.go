package conformance

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server"
)

// debugServers starts a redis-server with enable-debug-command yes and
// two floodgates with the same setting (over TCP and over Dial), each in
// a directory of its own for DEBUG RELOAD's file: the addresses for
// runCaseOn, Redis first.
func debugServers(t *testing.T) []string {
	t.Helper()
	r := redistest.Start(t, "--enable-debug-command", "yes")
	addrs := []string{r.Addr}
	for _, dial := range []bool{false, true} {
		srv := server.Prepare(server.Config{Addr: "127.0.0.1:0", Dir: t.TempDir()})
		if err := srv.LoadConfig("", nil, "enable-debug-command yes\nsave \"\""); err != nil {
			t.Fatal(err)
		}
		srv.Init()
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		if dial {
			addrs = append(addrs, dialAddrOf(srv))
		} else {
			addrs = append(addrs, srv.Addr())
		}
	}
	return addrs
}

// TestDebug compares DEBUG's subcommands with a Redis that allows DEBUG:
// digests of every type and encoding (debug.c's xorObjectDigest), OBJECT's
// line, RELOAD and its options, POPULATE, PROTOCOL, ERROR, SLEEP,
// SET-ACTIVE-EXPIRE, SET-SKIP-CHECKSUM-VALIDATION and the error paths.
func TestDebug(t *testing.T) {
	addrs := debugServers(t)
	bigZ := `EVAL "for i=1,200 do redis.call('zadd',KEYS[1],i/3,'m'..i) end" 1 zbig`
	bigH := `EVAL "for i=1,200 do redis.call('hset',KEYS[1],'f'..i,i*7) end" 1 hbig`
	bigS := `EVAL "for i=1,600 do redis.call('sadd',KEYS[1],'m'..i) end" 1 sbig`
	bigL := `EVAL "for i=1,1000 do redis.call('rpush',KEYS[1],'element'..i) end" 1 lbig`
	keys := "DEBUG DIGEST-VALUE s n neg l si sm sbig z zbig h hbig x ex empty lbig nokey"
	cases := []tcase{
		{"errors", []string{
			"DEBUG", "DEBUG nosuch", "DEBUG LOG", "DEBUG OBJECT", "DEBUG OBJECT nokey", "DEBUG DIGEST x",
			"DEBUG SLEEP", "DEBUG PROTOCOL", "DEBUG ERROR", "DEBUG POPULATE", "DEBUG POPULATE 1 2 3 4",
			"DEBUG CHANGE-REPL-ID x", "DEBUG SET-ACTIVE-EXPIRE", "DEBUG RELOAD BOGUS", "DEBUG RELOAD NOSAVE x",
			`EVAL "return redis.call('DEBUG', 'DIGEST')" 0`, "MULTI", "DEBUG DIGEST", "DEBUG nosuch", "EXEC",
		}},
		{"digest", []string{
			"DEBUG DIGEST", "DEBUG DIGEST-VALUE", "DEBUG DIGEST-VALUE nokey",
			"SET s hello", "SET n 12345", "SET neg -7", "RPUSH l a b c 1 2 -3", "SADD si 3 1 2 -5", "SADD sm x y 1",
			bigS, "ZADD z 1 a 2.5 b -inf c 1e300 d 0.1 e 3 7", bigZ, "HSET h f v n 1 e \"\"", bigH,
			"XADD x 1-1 a 1 b 2", "XADD x 2-0 a 3 b 4", "XADD x 3-5 c 5", "XDEL x 2-0", "SET ex v EX 1000",
			"SET empty \"\"", bigL,
			keys, "DEBUG DIGEST", "DEBUG digest-value s s",
			"SELECT 1", "SET s hello", "DEBUG DIGEST", "DEBUG DIGEST-VALUE s l", "FLUSHDB", "SELECT 0", "DEBUG DIGEST",
			"PERSIST ex", "DEBUG DIGEST-VALUE ex", "LPUSH l z", "DEBUG DIGEST-VALUE l",
		}},
		{"object", []string{
			"SET s hello", "SET n 12345", "SET shared 12", "SET long " + strings.Repeat("x", 60), "RPUSH l a b c",
			bigL, "SADD si 1 2 3", "SADD sm a b", "ZADD z 1 a", bigZ, "HSET h f v", bigH, "XADD x 1-1 a 1",
			"!debugobject DEBUG OBJECT s", "!debugobject DEBUG OBJECT n", "!debugobject DEBUG OBJECT shared",
			"!debugobject DEBUG OBJECT long", "!debugobject DEBUG OBJECT l", "!debugobject DEBUG OBJECT lbig",
			"!debugobject DEBUG OBJECT si", "!debugobject DEBUG OBJECT sm", "!debugobject DEBUG OBJECT z",
			"!debugobject DEBUG OBJECT zbig", "!debugobject DEBUG OBJECT h", "!debugobject DEBUG OBJECT hbig",
			"!debugobject DEBUG OBJECT x", "CONFIG SET list-compress-depth 1", "DEL l2", "EVAL \"for i=1,500 do redis.call('rpush',KEYS[1],'element'..i) end\" 1 l2",
			"!debugobject DEBUG OBJECT l2", "CONFIG SET list-compress-depth 0",
		}},
		{"reload", []string{
			"SET a 1", "RPUSH l x y", "SET t v EX 1000", bigZ, "DEBUG DIGEST", "DEBUG RELOAD", "DEBUG DIGEST", "GET a", "TTL t",
			"SET b 2", "DEBUG RELOAD NOSAVE", "GET b", "DEBUG DIGEST", "SET a changed", "SET c 3", "DEBUG RELOAD NOSAVE NOFLUSH MERGE",
			"GET a", "GET c", "DBSIZE", "DEBUG reload merge", "DEBUG DIGEST",
			"FUNCTION LOAD \"#!lua name=lib\nredis.register_function('f', function() return 'hello' end)\"",
			"DEBUG RELOAD", "FCALL f 0", "DEBUG RELOAD NOFLUSH", "FCALL f 0", "GET a", "DEBUG RELOAD NOFLUSH MERGE",
			"FUNCTION LIST", "FUNCTION FLUSH",
		}},
		{"populate", []string{
			"DEBUG POPULATE -1", "DEBUG POPULATE x", "DEBUG POPULATE 3 p -1", "DEBUG POPULATE 0", "DBSIZE",
			"DEBUG POPULATE 3", "DBSIZE", "GET key:0", "GET key:2", "OBJECT ENCODING key:1",
			"DEBUG POPULATE 3 p 10", "GET p:1", "STRLEN p:1", "SET p:0 mine", "DEBUG POPULATE 2 p 3", "GET p:0",
			"DEBUG POPULATE 2 q 3", "GET q:1", "DEBUG POPULATE 1 q 0", "GET q:0", "DEBUG DIGEST",
		}},
		{"misc", []string{
			"DEBUG PROTOCOL string", "DEBUG PROTOCOL integer", "DEBUG PROTOCOL double", "DEBUG PROTOCOL bignum",
			"DEBUG PROTOCOL null", "DEBUG PROTOCOL array", "DEBUG PROTOCOL set", "DEBUG PROTOCOL map",
			"DEBUG PROTOCOL true", "DEBUG PROTOCOL false", "DEBUG PROTOCOL verbatim", "DEBUG PROTOCOL NoSuch",
			"DEBUG PROTOCOL STRING",
			`DEBUG ERROR "MYERR some text"`, `DEBUG ERROR "two\r\nlines"`, `DEBUG ERROR ""`, "DEBUG LOG hello",
			"DEBUG SLEEP 0", "DEBUG SLEEP 0.01", "DEBUG SLEEP abc", "DEBUG SLEEP -1", "DEBUG CHANGE-REPL-ID",
			"DEBUG QUICKLIST-PACKED-THRESHOLD 0", "DEBUG QUICKLIST-PACKED-THRESHOLD abc", "DEBUG QUICKLIST-PACKED-THRESHOLD 5gb",
			"DEBUG QUICKLIST-PACKED-THRESHOLD 2gb", "DEBUG QUICKLIST-PACKED-THRESHOLD 0",
			"!known=floodgate-builds-no-plain-quicklist-nodes DEBUG QUICKLIST-PACKED-THRESHOLD 1b",
			"DEBUG QUICKLIST-PACKED-THRESHOLD 0",
			"DEBUG REPLYBUFFER PEAK-RESET-TIME 100", "DEBUG REPLYBUFFER PEAK-RESET-TIME x", "DEBUG REPLYBUFFER PEAK-RESET-TIME never",
			"DEBUG REPLYBUFFER PEAK-RESET-TIME reset", "DEBUG REPLYBUFFER RESIZING 0", "DEBUG REPLYBUFFER RESIZING 1",
			"DEBUG REPLYBUFFER nosuch 1", "DEBUG REPLYBUFFER RESIZING", "DEBUG REPLYBUFFER PEAK-RESET-TIME 1 2",
		}},
		{"active-expire", []string{
			// With active expiry off, a key past its time stays until it
			// is looked up: DBSIZE still counts it after the sleep.
			"DEBUG SET-ACTIVE-EXPIRE 0", "SET k v PX 1", "DEBUG SLEEP 0.2", "DBSIZE", "GET k", "DBSIZE",
			"DEBUG SET-ACTIVE-EXPIRE 1",
		}},
		{"latency-doctor", []string{
			// A DEBUG SLEEP past the threshold is a "command" event, whose
			// remarks follow the slow log's setting. The threshold is high
			// enough that no other command of a busy machine reaches it.
			"CONFIG SET latency-monitor-threshold 0", "LATENCY RESET", "LATENCY DOCTOR",
			"CONFIG SET latency-monitor-threshold 500", "LATENCY DOCTOR", "DEBUG SLEEP 0.6", "!doctor LATENCY DOCTOR",
			"CONFIG SET slowlog-log-slower-than -1", "!doctor LATENCY DOCTOR",
			"CONFIG SET slowlog-log-slower-than 600000", "!doctor LATENCY DOCTOR",
			"CONFIG SET slowlog-log-slower-than 10000", "CONFIG SET latency-monitor-threshold 0", "!doctor LATENCY DOCTOR",
			"LATENCY RESET", "LATENCY DOCTOR",
		}},
		{"skip-checksum", []string{
			`RESTORE k 0 "\x00\x01v\n\x00\x00\x00\x00\x00\x00\x00\x00\x01"`, "DEBUG SET-SKIP-CHECKSUM-VALIDATION 1",
			`RESTORE k 0 "\x00\x01v\n\x00\x00\x00\x00\x00\x00\x00\x00\x01"`, "GET k",
			"DEBUG SET-SKIP-CHECKSUM-VALIDATION 0", `RESTORE k2 0 "\x00\x01v\n\x00\x00\x00\x00\x00\x00\x00\x00\x01"`,
		}},
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) { runCaseOn(t, tc, proto, addrs) })
			}
		})
	}
}

// TestDebugPushAndAttribute: DEBUG PROTOCOL push and attrib write RESP3's
// push and attribute types (or, under RESP2, an error and the bare reply)
// before the reply that follows them.
func TestDebugPushAndAttribute(t *testing.T) {
	addrs := debugServers(t)
	exchange := func(addr string, proto string) string {
		c := dialHello(t, addr, proto)
		defer c.close()
		var b strings.Builder
		for _, typ := range []string{"attrib", "push"} {
			reply, err := c.do("DEBUG", "PROTOCOL", typ)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(reply)
			if proto == "3" { // the reply after the attribute or push
				reply, err = c.read()
				if err != nil {
					t.Fatal(err)
				}
				b.Write(reply)
			}
		}
		return b.String()
	}
	for _, proto := range []string{"2", "3"} {
		want := exchange(addrs[0], proto)
		for _, addr := range addrs[1:] {
			if got := exchange(addr, proto); got != want {
				t.Errorf("RESP%s over %s:\n%s", proto, transportName(addr), replyDiff([]byte(want), []byte(got)))
			}
		}
	}
}

// TestDebugHelp: floodgate's DEBUG HELP is Redis's, less the entries of
// the subcommands it does not build, in Redis's order.
func TestDebugHelp(t *testing.T) {
	addrs := debugServers(t)
	lines := func(addr string) []string {
		c, err := dialRaw(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		reply, err := c.do("DEBUG", "HELP")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range strings.Split(string(reply), "\r\n") {
			if strings.HasPrefix(l, "+") {
				out = append(out, l[1:])
			}
		}
		return out
	}
	redis := lines(addrs[0])
	for _, addr := range addrs[1:] {
		got := lines(addr)
		if len(got) < 10 || got[0] != redis[0] || got[len(got)-1] != redis[len(redis)-1] {
			t.Fatalf("%s: DEBUG HELP %q", transportName(addr), got)
		}
		i := 0
		for _, l := range got {
			for i < len(redis) && redis[i] != l {
				i++
			}
			if i == len(redis) {
				t.Fatalf("%s: DEBUG HELP line %q is not Redis's, or out of Redis's order", transportName(addr), l)
			}
			i++
		}
	}
}

// debugObjectMasked is DEBUG OBJECT's line without what differs between
// two processes: the value's address and its access clock.
var debugObjectMasked = regexp.MustCompile(`at:0x[0-9a-f]+|lru:[0-9]+|lru_seconds_idle:[0-9]+`)

func debugObjectShape(raw []byte) []byte { return debugObjectMasked.ReplaceAll(raw, []byte("#")) }

// doctorMasked is what a LATENCY DOCTOR report's figures depend on: the
// milliseconds measured and the seconds since the event.
var doctorMasked = regexp.MustCompile(`[0-9]+ms|period [0-9.]+ sec`)

// doctorShape is a LATENCY DOCTOR reply with its figures (and so its
// length) masked.
func doctorShape(raw []byte) []byte {
	if i := bytes.Index(raw, []byte("\r\n")); i >= 0 && len(raw) > 0 && (raw[0] == '$' || raw[0] == '=') {
		raw = append([]byte{raw[0]}, raw[i:]...)
	}
	return doctorMasked.ReplaceAll(raw, []byte("#"))
}

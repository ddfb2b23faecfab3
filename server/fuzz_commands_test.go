package server

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/number"
)

// FuzzCommands runs one command of the table per input, against a
// keyspace reset to the same fixture each time, and fails when a handler
// panics (the reply is "internal error", or the server logs "command
// panicked"), when a Go runtime error surfaces in a reply (a panic the Lua
// engine turned into an error), when the connection no longer answers
// PING, when a command that replied with an error changed the fixture, or
// when a reply is not well-formed RESP.
//
// The input is the command's index in the table (subcommands included),
// a mode and the arguments, read from the data two bytes at a time: a
// class byte and an index into the class's values (keys, members,
// numbers, option words, ranges and patterns, small integers, long strings
// and scripts), or a literal of that many bytes (fzArgs). Whatever the
// mutator does to the bytes, the arguments stay mostly meaningful. The
// modes run the command directly (RESP2 or, after HELLO 3,
// RESP3), inside MULTI/EXEC, or through a script's redis.pcall (EVAL,
// EVAL with redis.setresp(3), EVAL_RO).
//
// Commands that block or stop the server, or that change state the next
// input would inherit, are not run (fzSkip); CONFIG SET's parameters are
// set back after each input.
func FuzzCommands(f *testing.F) {
	h := newFuzzHarness(f)
	for _, s := range h.seeds() {
		f.Add(s.sel, s.mode, s.data)
	}
	f.Fuzz(func(t *testing.T, sel uint16, mode uint8, data []byte) {
		h.run(t, sel, mode, data)
	})
}

// The modes of an input (mode % fzModes).
const (
	fzDirect = iota
	fzRESP3
	fzEval
	fzMulti
	fzEvalRESP3
	fzEvalRO
	fzModes
)

var fzModeNames = [fzModes]string{"direct", "resp3", "eval-pcall", "multi", "eval-pcall-resp3", "eval_ro-pcall"}

const (
	fzPcall      = "return redis.pcall(unpack(ARGV))"
	fzPcallRESP3 = "redis.setresp(3); return redis.pcall(unpack(ARGV))"
	fzMaxArgs    = 64
	// fzHang is how long a reply may take before the input counts as a
	// hang: a guard against blocking forever, not a timing assertion.
	fzHang = 30 * time.Second
)

// The classes of an argument: its first byte, modulo fzClasses.
const (
	fzClassKey     = iota // fzKeys
	fzClassMember         // fzMembers
	fzClassNumber         // fzNumbers
	fzClassWord           // fzWords
	fzClassRange          // fzRanges
	fzClassSmall          // int8(index) in decimal
	fzClassLiteral        // the next index bytes of the data
	fzClassSpecial        // long strings, then the scripts, their SHAs, DUMP payloads
	fzClasses
)

// The fixture's keys in db 0, with the type each has.
var fzFixtureKeys = []struct{ key, typ string }{
	{"str", "string"}, {"int", "string"}, {"float", "string"}, {"neg", "string"},
	{"empty", "string"}, {"bigstr", "string"}, {"bitmap", "string"},
	{"list", "list"}, {"biglist", "list"},
	{"iset", "set"}, {"set", "set"}, {"bigset", "set"},
	{"zset", "zset"}, {"zbig", "zset"}, {"geo", "zset"}, {"ttlz", "zset"},
	{"hash", "hash"}, {"bighash", "hash"},
	{"hll", "string"}, {"hlldense", "string"},
	{"ttl", "string"}, {"small", "string"},
	{"iset16", "set"}, {"z16", "zset"}, {"h16", "hash"},
}

// fzLimits are the encodings' limits while fuzzing: low, so that a
// command converts a fixture key from one encoding to the next.
var fzLimits = [][]string{
	{"CONFIG", "SET", "set-max-intset-entries", "16"},
	{"CONFIG", "SET", "zset-max-listpack-entries", "16"},
	{"CONFIG", "SET", "zset-max-listpack-value", "16"},
	{"CONFIG", "SET", "hash-max-listpack-entries", "16"},
	{"CONFIG", "SET", "hash-max-listpack-value", "16"},
	{"CONFIG", "SET", "list-max-listpack-size", "4"},
}

var fzKeys = []string{
	"str", "int", "float", "neg", "empty", "bigstr", "bitmap", "list", "biglist",
	"iset", "set", "bigset", "zset", "zbig", "geo", "ttlz", "hash", "bighash",
	"hll", "hlldense", "ttl", "nokey", "dst", "__fuzz_db_1__", "small", "iset16", "z16", "h16",
}

var fzMembers = []string{
	"a", "b", "c", "d", "e", "f1", "f2", "f3", "f4", "big", "m1", "m150", "m199", "v1", "Palermo", "Catania",
	"minf", "pinf", "x", "\x00", "a\x00b", "hello", "1", "2", "3", "100", "-5", "-100", "e5" + strings.Repeat("-", 40),
	"e0", "e299", "default", "pipe", "name", "0-1", "$", ">", "~", "=", "\xff", "é", "",
}

var fzNumbers = []string{
	"0", "1", "-1", "2", "3", "5", "7", "10", "-2", "-5", "63", "64", "100", "128", "129", "512", "513",
	"1000", "65535", "65536", "2147483647", "2147483648", "-2147483648", "-2147483649",
	"4294967295", "4294967296", "4611686018427387903", "4611686018427387904", "-4611686018427387904",
	"9223372036854775807", "-9223372036854775808", "9223372036854775806", "-9223372036854775807",
	"9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
	"1e308", "-1e308", "1e309", "1.7976931348623157e308", "4.9e-324", "1e-320", "2.2250738585072014e-308",
	"1.5", "-1.5", "0.1", "3.14", "-0", "0.0", "-0.0", "+0", "+1", "01", "-01", " 1", "1 ", "0x10", "1e3", "1E3",
	".5", "5.", "1e", "e1", "inf", "-inf", "+inf", "Inf", "INF", "infinity", "-infinity", "nan", "-nan", "NaN",
	"", " ", "12345", "123456789012345678901234567890", "0.30000000000000004", "1e15", "1e16", "1e17",
	"8388607", "8388608", "4194303", "4194304", "33554431", "33554432", "536870911", "536870912",
	"9007199254740992", "9007199254740993", "-9007199254740993", "360", "-360", "90", "-90", "180", "-180",
	"85.05112878", "-85.05112879", "13.361389", "38.115556", "15.087269", "37.502669", "200", "0.0001",
	"40000000", "1e-5", "1000000000000", "100000000000000000",
}

var fzRanges = []string{
	"(", "[", "+", "-", "(1", "(-1", "[a", "(a", "[b", "(c", "[-", "[+", "(-inf", "(+inf", "(inf",
	"(nan", "((1", "[[a", "(0", "[0", "(5", "(3", "[c", "(m1", "[m199", "[\xff", "(\x00",
	"*", "?", "*a*", "[a-z]*", "\\", "[^a]*", "*[", "f*", "h?llo", "*a*a*a*a*a*a*a*a*b", "[a-", "[]", "[!a]",
	"\\*", "*\\", "#", "nosort", "*->f1", "hash->*", "hash->f2", "w_*", "str*", "nosuch_*", "*->", "->f1",
	"#0", "#1", "#-1", "#4294967296", "0", "-1", "1", "-inf", "+inf",
}
var fzWords = []string{
	"EX", "PX", "EXAT", "PXAT", "KEEPTTL", "PERSIST", "NX", "XX", "GT", "LT", "CH", "INCR", "GET",
	"WITHSCORES", "WITHSCORE", "LIMIT", "BYSCORE", "BYLEX", "REV", "COUNT", "MATCH", "TYPE",
	"STORE", "STOREDIST", "WEIGHTS", "AGGREGATE", "SUM", "MIN", "MAX", "BEFORE", "AFTER",
	"LEFT", "RIGHT", "RANK", "MAXLEN", "IDX", "LEN", "MINMATCHLEN", "WITHMATCHLEN", "BY",
	"ASC", "DESC", "ALPHA", "REPLACE", "ABSTTL", "IDLETIME", "FREQ", "DB", "FROMMEMBER",
	"FROMLONLAT", "BYRADIUS", "BYBOX", "WITHCOORD", "WITHDIST", "WITHHASH", "ANY", "m", "km",
	"ft", "mi", "OVERFLOW", "WRAP", "SAT", "FAIL", "SET", "INCRBY", "u1", "u8", "i8", "u63",
	"i64", "u64", "i65", "#0", "#1", "#-1", "BIT", "BYTE", "AND", "OR", "XOR", "NOT",
	"SAMPLES", "ASYNC", "SYNC", "NOSAVE", "SAVE", "ABORT", "SCHEDULE", "FORCE", "TIMEOUT",
	"RESET", "ON", "OFF", "YES", "NO", "HELP", "ID", "USER", "ADDR", "LADDR", "SKIPME",
	"MAXAGE", "NORMAL", "MASTER", "REPLICA", "PUBSUB", "WITHVALUES", "FILTERBY", "MODULE",
	"ACLCAT", "PATTERN", "AUTH", "SETNAME", "LOAD", "FLUSH", "EXISTS", "KILL", "ENCODING",
	"REFCOUNT", "FREQ", "USAGE", "STATS", "DOCTOR", "HISTORY", "LATEST", "HISTOGRAM",
	"GRAPH", "LIB-NAME", "LIB-VER", "WRITE", "ALL", "ERROR", "KEYSLOT", "INFO", "GETKEYS",
	"GETKEYSANDFLAGS", "DOCS", "LIST", "COMMAND", "maxmemory", "maxmemory-policy",
	"allkeys-lru", "volatile-lfu", "allkeys-lfu", "list-max-listpack-size",
	"zset-max-listpack-entries", "hash-max-listpack-entries", "set-max-intset-entries",
	"hll-sparse-max-bytes", "notify-keyspace-events", "KEA", "save", "busy-reply-threshold",
	"slowlog-log-slower-than", "latency-monitor-threshold", "lazyfree-lazy-user-del",
	"list-compress-depth", "hz", "sanitize-dump-payload", "proto-max-bulk-len",
	"lfu-log-factor",
}

// fzLongLens are the lengths of the long strings (fzClassSpecial): around
// the encodings' limits and the protocol's inline and bulk sizes.
var fzLongLens = []int{0, 1, 20, 21, 44, 45, 63, 64, 65, 127, 128, 129, 255, 256, 511, 512, 513,
	1000, 4096, 8192, 16384, 65535, 65536, 100000}

// fzScripts are scripts the generator may pass to EVAL (they are loaded,
// so their SHAs work with EVALSHA).
var fzScripts = []string{
	"return redis.call('get', KEYS[1])",
	"return {1, 'two', {3, 'four'}, redis.status_reply('OK'), redis.error_reply('ERR x'), 3.99, true, false}",
	"return redis.pcall('incr', KEYS[1])",
	"redis.setresp(3); return redis.call('hgetall', KEYS[1])",
	"redis.setresp(3); return redis.call(ARGV[1], KEYS[1], ARGV[2], ARGV[3])",
	"return redis.pcall(ARGV[1], KEYS[1], ARGV[2], ARGV[3])",
	"return tonumber(ARGV[1])",
	"return {tonumber(ARGV[1]), tonumber(ARGV[2])}",
	"return {err = ARGV[1]}",
	"return {ok = ARGV[1]}",
	"return redis.status_reply(ARGV[1])",
	"error(ARGV[1])",
	"return redis.sha1hex(ARGV[1])",
	"return cjson.encode(cjson.decode(ARGV[1]))",
	"return cmsgpack.pack(cmsgpack.unpack(ARGV[1]))",
	"return {cmsgpack.unpack(ARGV[1])}",
	"return struct.pack(ARGV[1], tonumber(ARGV[2]), ARGV[3])",
	"return {struct.unpack(ARGV[1], ARGV[2])}",
	"return string.format(ARGV[1], tonumber(ARGV[2]) or ARGV[2])",
	"return bit.tohex(tonumber(ARGV[1]), tonumber(ARGV[2]))",
	"return redis.call('zadd', KEYS[1], ARGV[1], 'm')",
	"return redis.call('zrange', KEYS[1], ARGV[1], ARGV[2], 'WITHSCORES')",
	"return redis.call('sort', KEYS[1], 'BY', ARGV[1], 'GET', ARGV[2])",
	"return redis.call('set', KEYS[1], ARGV[1], 'GET')",
	"redis.setresp(3); return {double = tonumber(ARGV[1])}",
	"redis.setresp(3); return redis.call('zscore', KEYS[1], ARGV[1])",
	"redis.setresp(3); return redis.call('smembers', KEYS[1])",
	"return redis.setresp(tonumber(ARGV[1]))",
	"return #KEYS + #ARGV",
	"return redis.call('object', 'encoding', KEYS[1])",
}

// fzUnsafeLua are words a script from the fuzz data must not contain: a
// loop, recursion, or a way to make a huge value could run it forever
// (nothing interrupts it before busy-reply-threshold, and then only SCRIPT
// KILL); CONFIG and CLIENT could change what the next input sees.
var fzUnsafeLua = []string{"while", "for", "repeat", "goto", "function", "rep", "load",
	"require", "dofile", "coroutine", "unpack", "config", "client", "setmetatable", "gsub",
	"shutdown", "debug", "..."}

// fzConfigNoSet are the CONFIG SET parameters never set: files, the
// listener, and what would refuse the next connection.
var fzConfigNoSet = map[string]bool{
	"dir": true, "dbfilename": true, "logfile": true, "appendonly": true, "appendfilename": true,
	"appenddirname": true, "port": true, "bind": true, "tls-port": true, "unixsocket": true,
	"requirepass": true, "maxclients": true, "protected-mode": true, "timeout": true,
	"pidfile": true, "enable-protected-configs": true,
}

// fzNoRun are commands never run; fzNoRunDirect those run only inside
// MULTI or a script, where they do not block.
var (
	fzNoRun = map[string]bool{
		"shutdown": true, "sync": true, "psync": true, "failover": true, "quit": true,
		"client|pause": true, "client|kill": true, "monitor": true, "subscribe": true,
		"psubscribe": true, "ssubscribe": true, "replicaof": true, "slaveof": true,
		"migrate": true, // connects to the host it is given: no network but loopback in tests
		// could turn the default user off or take its password: the next
		// input's connection would be refused
		"acl|setuser": true, "acl|deluser": true, "acl|load": true,
	}
	fzNoRunDirect = map[string]bool{
		"blpop": true, "brpop": true, "blmove": true, "brpoplpush": true, "bzpopmin": true,
		"bzpopmax": true, "blmpop": true, "bzmpop": true, "wait": true, "multi": true,
		"xread": true, "xreadgroup": true,
	}
)

// fzKnown are panics already found and reported: the generator does not
// run their inputs again, so fuzzing goes on past them. Each returns why it
// skips cmd with args in mode, or "".
var fzKnown = []func(cmd string, mode uint8, args []string) string{}

type fzCommand struct {
	full string   // "config|set"
	argv []string // "config", "set"
}

type fuzzHarness struct {
	srv      *Server
	logs     *fzLog
	admin    *fzConn
	cmds     []fzCommand
	byName   map[string]int
	scripts  []string // fzScripts, their SHAs, then the DUMP payloads
	fixture  [][]string
	baseline string
	reload   bool // the scripts are to be loaded again (SCRIPT FLUSH ran)
}

func newFuzzHarness(f *testing.F) *fuzzHarness {
	logs := &fzLog{}
	srv := startServer(f, Config{
		Dir:    f.TempDir(), // SAVE, BGSAVE, BGREWRITEAOF write here
		Logger: slog.New(logs),
		// SETBIT, SETRANGE, APPEND and BITFIELD may make strings this
		// long: 1 MB keeps an input cheap.
		ProtoMaxBulkLen: 1 << 20,
	})
	h := &fuzzHarness{srv: srv, logs: logs, byName: map[string]int{}}
	initCommandTable()
	for _, c := range commandTable.all {
		if strings.HasPrefix(c.Name, "test.") { // the package's tests' own
			continue
		}
		if len(c.Subcommands) == 0 {
			h.cmds = append(h.cmds, fzCommand{c.Name, []string{c.Name}})
		}
		for _, sub := range c.Subcommands {
			h.cmds = append(h.cmds, fzCommand{sub.Name, strings.SplitN(sub.Name, "|", 2)})
		}
	}
	slices.SortFunc(h.cmds, func(a, b fzCommand) int { return strings.Compare(a.full, b.full) })
	for i, c := range h.cmds {
		h.byName[c.full] = i
	}
	var err error
	if h.admin, err = fzDial(srv); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { h.admin.c.Close() })
	h.admin.deadline()

	if _, err := h.admin.do(fzLimits...); err != nil {
		f.Fatal(err)
	}
	// A dense HyperLogLog, kept as its bytes.
	adds := []string{"PFADD", "hlldense"}
	for i := range 3000 {
		adds = append(adds, "e"+strconv.Itoa(i))
	}
	if _, err := h.admin.do(adds, []string{"PFDEBUG", "TODENSE", "hlldense"}); err != nil {
		f.Fatal(err)
	}
	dense, err := h.admin.do([]string{"GET", "hlldense"})
	if err != nil || dense[0].kind != '$' {
		f.Fatalf("GET hlldense: %v %v", dense, err)
	}
	h.fixture = fzFixture(dense[0].str)

	h.scripts = append(h.scripts, fzScripts...)
	for _, s := range fzScripts {
		sum := sha1.Sum([]byte(s))
		h.scripts = append(h.scripts, hex.EncodeToString(sum[:]))
	}
	if err := h.populate(); err != nil {
		f.Fatal(err)
	}
	h.baseline = h.summary(f)
	if again := h.summary(f); again != h.baseline {
		f.Fatalf("the fixture's summary is not stable:\n%s\n%s", h.baseline, again)
	}
	for _, k := range fzFixtureKeys {
		r, err := h.admin.do([]string{"DUMP", k.key})
		if err != nil || r[0].kind != '$' {
			f.Fatalf("DUMP %s: %v %v", k.key, r, err)
		}
		h.scripts = append(h.scripts, r[0].str)
	}

	// The harness must see a panic: test.panic (protocol_test.go) is one.
	h.logs.reset()
	r, err := h.admin.do([]string{"test.panic"}, []string{"PING"})
	if err != nil || !fzHasInternalError(r[0]) || !strings.Contains(h.logs.panics(), "test.panic") || r[1].str != "PONG" {
		f.Fatalf("test.panic was not seen: %v %v\nlog: %s", r, err, h.logs.panics())
	}
	h.logs.reset()
	return h
}

// fzFixture returns the commands that make the fixture.
func fzFixture(dense string) [][]string {
	biglist := []string{"RPUSH", "biglist"}
	for i := range 300 {
		biglist = append(biglist, "e"+strconv.Itoa(i)+strings.Repeat("-", 40))
	}
	bigset := []string{"SADD", "bigset"}
	for i := range 600 {
		bigset = append(bigset, strconv.Itoa(i*3-100))
	}
	zbig := []string{"ZADD", "zbig", "-inf", "minf", "+inf", "pinf"}
	for i := range 200 {
		zbig = append(zbig, strconv.FormatFloat(float64(i)/4, 'f', -1, 64), "m"+strconv.Itoa(i))
	}
	iset16, z16, h16 := []string{"SADD", "iset16"}, []string{"ZADD", "z16"}, []string{"HSET", "h16"}
	for i := range 16 {
		n := strconv.Itoa(i)
		iset16 = append(iset16, n)
		z16 = append(z16, n, "m"+n)
		h16 = append(h16, "f"+n, n)
	}
	return [][]string{
		{"FLUSHALL"},
		{"SET", "str", "hello"},
		{"SET", "int", "12345"},
		{"SET", "float", "3.14"},
		{"SET", "neg", "-7"},
		{"SET", "empty", ""},
		{"SET", "bigstr", strings.Repeat("b", 70)},
		{"SET", "bitmap", "\x01\xff\x00\x80abc"},
		{"RPUSH", "list", "a", "b", "c", "1", "2", "3", "a"},
		biglist,
		{"SADD", "iset", "1", "2", "3", "-5", "100"},
		{"SADD", "set", "a", "b", "c", "d", "1"},
		bigset,
		{"ZADD", "zset", "1", "a", "2", "b", "3", "c", "3", "d", "-1", "e"},
		zbig,
		{"GEOADD", "geo", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
		{"ZADD", "ttlz", "1", "a", "2", "b"},
		{"PEXPIRE", "ttlz", "100000000"},
		{"HSET", "hash", "f1", "v1", "f2", "2", "f3", "3.5", "f4", ""},
		{"HSET", "bighash", "f1", "v1", "f2", "2", "big", strings.Repeat("z", 80)},
		{"PFADD", "hll", "a", "b", "c"},
		{"SET", "hlldense", dense},
		{"SET", "ttl", "5", "EX", "1000000"},
		{"SET", "small", "5"},
		iset16, z16, h16,
		{"SELECT", "1"},
		{"SET", "str", "db1"},
		{"RPUSH", "list", "x"},
		{"SET", "__fuzz_db_1__", "1"},
		{"SELECT", "0"},
	}
}

// populate resets the keyspace (and the script cache, when it was flushed)
// to the fixture.
func (h *fuzzHarness) populate() error {
	cmds := h.fixture
	if h.reload || h.baseline == "" {
		cmds = slices.Clone(cmds)
		for _, s := range fzScripts {
			cmds = append(cmds, []string{"SCRIPT", "LOAD", s})
		}
	}
	rs, err := h.admin.do(cmds...)
	if err != nil {
		return err
	}
	for i, r := range rs {
		if r.isError() {
			return fmt.Errorf("fixture %q: %s", cmds[i][0], r)
		}
	}
	h.reload = false
	return nil
}

// summary describes the fixture as it is now: each key's type and size,
// whether the keys with a TTL still have one, and DBSIZE.
func (h *fuzzHarness) summary(t testing.TB) string {
	var cmds [][]string
	for _, k := range fzFixtureKeys {
		size := map[string]string{"string": "STRLEN", "list": "LLEN", "set": "SCARD", "zset": "ZCARD", "hash": "HLEN"}[k.typ]
		cmds = append(cmds, []string{"TYPE", k.key}, []string{size, k.key})
	}
	cmds = append(cmds, []string{"PTTL", "ttl"}, []string{"PTTL", "ttlz"}, []string{"DBSIZE"})
	rs, err := h.admin.do(cmds...)
	if err != nil {
		t.Fatalf("summary: %v", err)
	}
	var b strings.Builder
	for i, r := range rs {
		s := r.String()
		if cmds[i][0] == "PTTL" {
			n, _ := strconv.Atoi(r.str)
			s = map[bool]string{true: "has a ttl", false: s}[n > 0]
		}
		fmt.Fprintf(&b, "%s %s: %s\n", cmds[i][0], cmds[i][len(cmds[i])-1], s)
	}
	return b.String()
}

// args turns the fuzz data into arguments (see fzClasses).
func (h *fuzzHarness) args(data []byte) []string {
	var args []string
	for i := 0; i < len(data) && len(args) < fzMaxArgs; i += 2 {
		class, n := data[i]%fzClasses, 0
		if i+1 < len(data) {
			n = int(data[i+1])
		}
		switch class {
		case fzClassKey:
			args = append(args, fzKeys[n%len(fzKeys)])
		case fzClassMember:
			args = append(args, fzMembers[n%len(fzMembers)])
		case fzClassNumber:
			args = append(args, fzNumbers[n%len(fzNumbers)])
		case fzClassWord:
			args = append(args, fzWords[n%len(fzWords)])
		case fzClassRange:
			args = append(args, fzRanges[n%len(fzRanges)])
		case fzClassSmall:
			args = append(args, strconv.Itoa(int(int8(n))))
		case fzClassLiteral:
			lit := data[min(i+2, len(data)):min(i+2+n, len(data))]
			args = append(args, string(lit))
			i += len(lit)
		case fzClassSpecial:
			args = append(args, h.special(n))
		}
	}
	return args
}

// special returns the nth long string, script, SHA or DUMP payload.
func (h *fuzzHarness) special(n int) string {
	n %= 2*len(fzLongLens) + len(h.scripts)
	switch {
	case n < len(fzLongLens):
		return strings.Repeat("x", fzLongLens[n])
	case n < 2*len(fzLongLens):
		return strings.Repeat("9", fzLongLens[n-len(fzLongLens)])
	}
	return h.scripts[n-2*len(fzLongLens)]
}

// encode is args' inverse, for the seeds: a value of a class is its index,
// anything else a literal.
func (h *fuzzHarness) encode(args []string) []byte {
	var data []byte
	for _, a := range args {
		found := false
		for class, list := range [][]string{fzKeys, fzMembers, fzNumbers, fzWords, fzRanges} {
			if i := slices.Index(list, a); i >= 0 && i < 256 {
				data, found = append(data, byte(class), byte(i)), true
				break
			}
		}
		for n := range 256 {
			if !found && h.special(n) == a {
				data, found = append(data, fzClassSpecial, byte(n)), true
			}
		}
		if !found {
			if len(a) > 255 {
				panic("seed argument too long")
			}
			data = append(append(data, fzClassLiteral, byte(len(a))), a...)
		}
	}
	return data
}

// fzSkip says why cmd with args is not run in mode, or "".
func fzSkip(cmd string, mode uint8, args []string) string {
	direct := mode == fzDirect || mode == fzRESP3
	switch {
	case fzNoRun[cmd]:
		return "stops the server or the connection, or blocks it"
	case direct && fzNoRunDirect[cmd]:
		return "blocks outside MULTI and scripts"
	}
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch cmd {
	case "client|reply":
		if !strings.EqualFold(arg(0), "on") {
			return "CLIENT REPLY OFF or SKIP: the replies the test waits for would not come"
		}
	case "config|set":
		for i := 0; i < len(args); i += 2 {
			if fzConfigNoSet[strings.ToLower(args[i])] {
				return "CONFIG SET " + args[i]
			}
		}
	case "eval", "eval_ro":
		if slices.Contains(fzScripts, arg(0)) {
			break
		}
		for _, w := range fzUnsafeLua {
			if strings.Contains(strings.ToLower(arg(0)), w) {
				return "a script that may not end: " + w
			}
		}
	case "srandmember", "hrandfield", "zrandmember":
		// A negative count is how many to return, repeats allowed: two
		// billion is a reply the size of the machine's memory.
		if n, ok := number.ParseInt([]byte(arg(1))); ok && n < -100000 {
			return "a huge negative count"
		}
	}
	for _, known := range fzKnown {
		if why := known(cmd, mode, args); why != "" {
			return "known: " + why
		}
	}
	return ""
}

func (h *fuzzHarness) run(t *testing.T, sel uint16, mode uint8, data []byte) {
	if len(data) > 1024 {
		t.Skip("at most 64 arguments of two bytes each, or literals")
	}
	fc := h.cmds[int(sel)%len(h.cmds)]
	mode %= fzModes
	args := h.args(data)
	if why := fzSkip(fc.full, mode, args); why != "" {
		t.Skip(why)
	}
	argv := append(slices.Clone(fc.argv), args...)
	desc := fzDescribe(mode, argv)
	h.logs.reset()
	h.admin.deadline()
	if err := h.populate(); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	var configWas []string
	if fc.full == "config|set" {
		configWas = h.configGet(t, args)
	}
	if fc.full == "script|flush" {
		h.reload = true
	}

	var cmds [][]string
	main := 0 // the reply that is the command's
	switch mode {
	case fzDirect:
		cmds = [][]string{argv}
	case fzRESP3:
		cmds, main = [][]string{{"HELLO", "3"}, argv}, 1
	case fzEval, fzEvalRESP3, fzEvalRO:
		script, eval := fzPcall, "EVAL"
		if mode == fzEvalRESP3 {
			script = fzPcallRESP3
		}
		if mode == fzEvalRO {
			eval = "EVAL_RO"
		}
		cmds = [][]string{append([]string{eval, script, "0"}, argv...)}
	case fzMulti:
		cmds, main = [][]string{{"MULTI"}, argv, {"EXEC"}}, 2
	}
	cmds = append(cmds, []string{"PING"})

	c, err := fzDial(h.srv)
	if err != nil {
		t.Fatalf("%s: dial: %v", desc, err)
	}
	defer c.c.Close()
	c.deadline()
	rs, err := c.do(cmds...)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("%s: HANG: no reply within %v (got %d of %d replies)\nlog: %s", desc, fzHang, len(rs), len(cmds), h.logs.all())
		}
		t.Fatalf("%s: reading the replies: %v (got %v)\nlog: %s", desc, err, rs, h.logs.all())
	}
	if p := h.logs.panics(); p != "" {
		t.Fatalf("%s: PANIC: replies %v\n%s", desc, fzShort(rs), p)
	}
	for _, r := range rs {
		if fzHasInternalError(r) {
			t.Fatalf("%s: internal error in the replies %v\nlog: %s", desc, fzShort(rs), h.logs.all())
		}
		if m := fzGoRuntimeError(r); m != "" {
			t.Fatalf("%s: a Go runtime error in a reply: %s", desc, m)
		}
	}
	if last := rs[len(rs)-1]; last.kind != '+' || last.str != "PONG" {
		t.Fatalf("%s: PING answered %s (replies %v)", desc, last, fzShort(rs))
	}
	reply := rs[main] // the command's own, inside EXEC's too
	if mode == fzMulti && reply.kind == '*' && len(reply.elems) == 1 {
		reply = reply.elems[0]
	}
	if configWas != nil {
		h.configRestore(t, desc, reply, args, configWas)
	}
	scripted := fc.full == "eval" || fc.full == "eval_ro" || fc.full == "evalsha" || fc.full == "evalsha_ro"
	if reply.isError() && !scripted {
		if now := h.summary(t); now != h.baseline {
			t.Fatalf("%s: replied %s, but the fixture changed:\nbefore:\n%s\nafter:\n%s", desc, reply, h.baseline, now)
		}
	}
}

// configGet returns the values of the parameters CONFIG SET args names,
// as name-value pairs (a name that is not a parameter has none).
func (h *fuzzHarness) configGet(t *testing.T, args []string) []string {
	var cmds [][]string
	for i := 0; i < len(args); i += 2 {
		cmds = append(cmds, []string{"CONFIG", "GET", args[i]})
	}
	rs, err := h.admin.do(cmds...)
	if err != nil {
		t.Fatalf("CONFIG GET: %v", err)
	}
	values := []string{}
	for i, r := range rs {
		for j := 0; j+1 < len(r.elems); j += 2 {
			// The exact name only: CONFIG GET takes patterns, CONFIG
			// SET does not.
			if strings.EqualFold(r.elems[j].str, cmds[i][2]) {
				values = append(values, r.elems[j].str, r.elems[j+1].str)
			}
		}
	}
	return values
}

// configRestore sets back the parameters CONFIG SET changed, and checks
// they are. A CONFIG SET that failed must have changed none.
func (h *fuzzHarness) configRestore(t *testing.T, desc string, reply fzReply, args, was []string) {
	now := h.configGet(t, args)
	if slices.Equal(now, was) {
		return
	}
	if len(now) != len(was) {
		t.Fatalf("%s: the parameters were %q, now %q", desc, was, now)
	}
	if reply.isError() {
		t.Fatalf("%s: replied %s, but changed the parameters from %q to %q", desc, reply, was, now)
	}
	var set [][]string
	for i := 0; i+1 < len(was); i += 2 {
		if now[i+1] != was[i+1] {
			set = append(set, []string{"CONFIG", "SET", was[i], was[i+1]})
		}
	}
	rs, err := h.admin.do(set...)
	if err != nil {
		t.Fatalf("%s: restoring the config: %v", desc, err)
	}
	for i, r := range rs {
		if r.isError() {
			t.Fatalf("%s: CONFIG SET %q %q (its value before) failed: %s", desc, set[i][2], set[i][3], r)
		}
	}
	if again := h.configGet(t, args); !slices.Equal(again, was) {
		t.Fatalf("%s: the parameters are %q after setting them back to %q", desc, again, was)
	}
}

type fzSeed struct {
	sel  uint16
	mode uint8
	data []byte
}

// seeds returns the seed corpus: representative commands.
func (h *fuzzHarness) seeds() []fzSeed {
	seed := func(mode uint8, cmd string, args ...string) fzSeed {
		i, ok := h.byName[cmd]
		if !ok {
			panic("seed command " + cmd)
		}
		if got := h.args(h.encode(args)); !slices.Equal(got, args) {
			panic(fmt.Sprintf("seed %q encodes as %q", args, got))
		}
		return fzSeed{uint16(i), mode, h.encode(args)}
	}
	script := func(i int) string { return fzScripts[i] }
	return []fzSeed{
		seed(fzDirect, "set", "str", "v", "EX", "10", "GET"),
		seed(fzDirect, "zrange", "zbig", "(1", "+inf", "BYSCORE", "LIMIT", "0", "-1", "WITHSCORES"),
		seed(fzRESP3, "lpos", "biglist", "e5"+strings.Repeat("-", 40), "RANK", "-1", "COUNT", "0"),
		seed(fzEval, "hrandfield", "hash", "-5", "WITHVALUES"),
		seed(fzDirect, "object|encoding", "iset"),
		seed(fzDirect, "config|get", "*max*"),
		seed(fzMulti, "sort", "list", "BY", "nosort", "GET", "#", "LIMIT", "0", "2", "ALPHA"),
		seed(fzDirect, "bitfield", "bitmap", "SET", "i8", "#1", "-100", "GET", "u4", "0", "OVERFLOW", "SAT", "INCRBY", "u2", "100", "1"),
		seed(fzEvalRESP3, "zunionstore", "dst", "2", "zset", "zbig", "WEIGHTS", "2", "inf", "AGGREGATE", "MAX"),
		seed(fzRESP3, "geosearch", "geo", "FROMMEMBER", "Palermo", "BYRADIUS", "200", "km", "ASC", "WITHDIST", "COUNT", "1"),
		seed(fzEvalRO, "memory|usage", "bighash", "SAMPLES", "0"),
		seed(fzDirect, "eval", script(6), "0", "1e308"),
		seed(fzMulti, "blmpop", "0", "2", "list", "biglist", "LEFT", "COUNT", "2"),
		seed(fzDirect, "eval", script(15), "0", "\x93\x01\xa1a\xc0"),
		seed(fzEval, "pfcount", "hll", "hlldense"),
		seed(fzDirect, "restore", "dst", "0", h.scripts[2*len(fzScripts)+slices.IndexFunc(fzFixtureKeys, func(k struct{ key, typ string }) bool { return k.key == "zbig" })], "REPLACE", "IDLETIME", "10"),
		seed(fzDirect, "config|set", "zset-max-listpack-entries", "0"),
		seed(fzDirect, "client|list"),
		seed(fzDirect, "incrbyfloat", "float", "1e308"),
		seed(fzRESP3, "zadd", "zset", "GT", "CH", "INCR", "-inf", "a"),
		seed(fzDirect, "setrange", "bigstr", "65", "x"),
		seed(fzDirect, "lcs", "str", "bigstr", "IDX", "MINMATCHLEN", "1", "WITHMATCHLEN"),
	}
}

// fzDescribe names an input for a failure's message.
func fzDescribe(mode uint8, argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if len(a) > 80 {
			parts[i] = strconv.Quote(a[:60]) + fmt.Sprintf("...(%d bytes)", len(a))
		} else {
			parts[i] = strconv.Quote(a)
		}
	}
	return "[" + fzModeNames[mode] + "] " + strings.Join(parts, " ")
}

// fzConn is a connection made with Dial that sends requests and reads
// replies as they are (RESP2 or RESP3).
type fzConn struct {
	c net.Conn
	r *bufio.Reader
}

func fzDial(srv *Server) (*fzConn, error) {
	c, err := srv.DialContext(context.Background(), "", "")
	if err != nil {
		return nil, err
	}
	return &fzConn{c: c, r: bufio.NewReader(c)}, nil
}

func (c *fzConn) deadline() { c.c.SetDeadline(time.Now().Add(fzHang)) }

// do sends cmds at once and reads a reply to each.
func (c *fzConn) do(cmds ...[]string) ([]fzReply, error) {
	var b bytes.Buffer
	for _, cmd := range cmds {
		fmt.Fprintf(&b, "*%d\r\n", len(cmd))
		for _, a := range cmd {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
	}
	if _, err := c.c.Write(b.Bytes()); err != nil {
		return nil, err
	}
	rs := make([]fzReply, 0, len(cmds))
	for range cmds {
		r, err := c.read(0)
		if err != nil {
			return rs, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}

type fzReply struct {
	kind  byte // RESP type byte; '_' for a null of any type
	str   string
	elems []fzReply
}

func (r fzReply) isError() bool { return r.kind == '-' || r.kind == '!' }

func (r fzReply) String() string {
	switch {
	case r.elems != nil:
		parts := make([]string, len(r.elems))
		for i, e := range r.elems {
			parts[i] = e.String()
		}
		return string(r.kind) + "[" + strings.Join(parts, " ") + "]"
	case r.kind == '_':
		return "(nil)"
	case r.kind == '$':
		return strconv.Quote(r.str)
	}
	return string(r.kind) + r.str
}

// read reads one reply, checking that it is well-formed.
func (c *fzConn) read(depth int) (fzReply, error) {
	if depth > 64 {
		return fzReply{}, errors.New("replies nested too deep")
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return fzReply{}, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return fzReply{}, fmt.Errorf("malformed reply line %q", line)
	}
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '+', '-', ':', ',', '(', '#':
		if strings.ContainsAny(body, "\r\n") {
			return fzReply{}, fmt.Errorf("CR or LF inside %q", line)
		}
		return fzReply{kind: kind, str: body}, nil
	case '_':
		return fzReply{kind: '_'}, nil
	case '$', '!', '=':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 {
			return fzReply{}, fmt.Errorf("malformed length in %q", line)
		}
		if n == -1 {
			return fzReply{kind: '_'}, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return fzReply{}, err
		}
		if buf[n] != '\r' || buf[n+1] != '\n' {
			return fzReply{}, fmt.Errorf("bulk of %d bytes not followed by CRLF: %q", n, buf[max(0, n-20):])
		}
		return fzReply{kind: kind, str: string(buf[:n])}, nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 {
			return fzReply{}, fmt.Errorf("malformed length in %q", line)
		}
		if n == -1 {
			return fzReply{kind: '_'}, nil
		}
		if kind == '%' || kind == '|' {
			n *= 2
		}
		r := fzReply{kind: kind, elems: make([]fzReply, 0, min(n, 1024))}
		for range n {
			e, err := c.read(depth + 1)
			if err != nil {
				return fzReply{}, err
			}
			r.elems = append(r.elems, e)
		}
		if kind == '|' { // attributes, then the reply they are about
			return c.read(depth + 1)
		}
		return r, nil
	}
	return fzReply{}, fmt.Errorf("unknown reply type in %q", line)
}

func fzHasInternalError(r fzReply) bool {
	if r.isError() && strings.Contains(r.str, "internal error") {
		return true
	}
	return slices.ContainsFunc(r.elems, fzHasInternalError)
}

// fzGoRuntimeError finds a Go runtime error's text in an error reply: a
// panic the Lua engine recovered (luaengine/recover.go) and turned into
// one.
func fzGoRuntimeError(r fzReply) string {
	if r.isError() && strings.Contains(r.str, "runtime error") {
		return r.str
	}
	for _, e := range r.elems {
		if m := fzGoRuntimeError(e); m != "" {
			return m
		}
	}
	return ""
}

func fzShort(rs []fzReply) string {
	s := fmt.Sprint(rs)
	if len(s) > 600 {
		s = s[:600] + "..."
	}
	return s
}

// fzLog is an slog.Handler that keeps the server's log in memory.
type fzLog struct {
	mu       sync.Mutex
	records  []string
	panicked []string
	attrs    []slog.Attr
	shared   *fzLog
}

func (l *fzLog) root() *fzLog {
	if l.shared != nil {
		return l.shared
	}
	return l
}

func (l *fzLog) Enabled(context.Context, slog.Level) bool { return true }

func (l *fzLog) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Level, r.Message)
	stack := ""
	add := func(a slog.Attr) bool {
		if a.Key == "stack" {
			stack = a.Value.String()
		} else {
			fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		}
		return true
	}
	for _, a := range l.attrs {
		add(a)
	}
	r.Attrs(add)
	if stack != "" {
		b.WriteString("\n" + stack)
	}
	root := l.root()
	root.mu.Lock()
	defer root.mu.Unlock()
	if len(root.records) < 1000 {
		root.records = append(root.records, b.String())
	}
	if r.Message == "command panicked" {
		root.panicked = append(root.panicked, b.String())
	}
	return nil
}

func (l *fzLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &fzLog{attrs: append(slices.Clone(l.attrs), attrs...), shared: l.root()}
}

func (l *fzLog) WithGroup(string) slog.Handler { return l }

func (l *fzLog) reset() {
	root := l.root()
	root.mu.Lock()
	root.records, root.panicked = nil, nil
	root.mu.Unlock()
}

func (l *fzLog) panics() string {
	root := l.root()
	root.mu.Lock()
	defer root.mu.Unlock()
	return strings.Join(root.panicked, "\n")
}

func (l *fzLog) all() string {
	root := l.root()
	root.mu.Lock()
	defer root.mu.Unlock()
	return strings.Join(root.records, "\n")
}

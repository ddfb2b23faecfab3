package conformance

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server"
)

// migrateEnv gives every source server (Redis, and each floodgate) a
// target of its own kind: a second redis-server for Redis, another
// floodgate for each floodgate, so each side migrates into a copy of the
// same state.
type migrateEnv struct {
	targets []string // index-aligned with runCase's addresses
	// silent is a port that accepts connections and never answers; down
	// one nothing listens on.
	silent, down string
}

// startMigrateEnv returns the package's one migrate environment, made on
// first use and stopped when the package's tests end. One is shared, not
// one a test, because a source keeps its connection to a target cached
// for 10 seconds after the test that made it ended: with a target of
// each test's own, a later test's migrate_cached_sockets counted the
// earlier test's dead target on whichever server had not yet reached its
// idle purge (Redis's cron and floodgate's timer tick apart), and failed
// now and then. With one target a source, every test's connections have
// the same names.
func startMigrateEnv(t *testing.T) *migrateEnv {
	t.Helper()
	sharedMigrate.once.Do(func() { sharedMigrate.env, sharedMigrate.err = newMigrateEnv() })
	if sharedMigrate.err != nil {
		t.Fatal(sharedMigrate.err)
	}
	return sharedMigrate.env
}

var sharedMigrate struct {
	once sync.Once
	env  *migrateEnv
	err  error
}

func newMigrateEnv() (*migrateEnv, error) {
	env := &migrateEnv{}
	dir, err := os.MkdirTemp("", "floodgate-migrate-")
	if err != nil {
		return nil, err
	}
	atExit(func() { os.RemoveAll(dir) })
	redis, err := redistest.Launch(dir, nil)
	if err != nil {
		return nil, err
	}
	atExit(redis.Stop)
	env.targets = append(env.targets, redis.Addr)
	for i := range floodgates() {
		sub := filepath.Join(dir, strconv.Itoa(i))
		if err := os.Mkdir(sub, 0o755); err != nil {
			return nil, err
		}
		srv := server.New(server.Config{Addr: "127.0.0.1:0", Dir: sub})
		if err := srv.Start(); err != nil {
			return nil, err
		}
		atExit(func() { srv.Close() })
		env.targets = append(env.targets, srv.Addr())
	}
	if env.silent, err = silentListener(); err != nil {
		return nil, err
	}
	down, release, err := redistest.Reserve()
	if err != nil {
		return nil, err
	}
	atExit(release)
	env.down = strconv.Itoa(down)
	return env, nil
}

// silentListener accepts connections and never reads or answers them.
func silentListener() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				break
			}
			held = append(held, c)
		}
		for _, c := range held {
			c.Close()
		}
	}()
	atExit(func() { ln.Close(); <-done })
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), nil
}

// expand replaces a case line's placeholders for source i: {target} is
// the port of its own target, {silent} and {down} the shared listeners.
func (env *migrateEnv) expand(args []string, i int) []string {
	_, port, _ := net.SplitHostPort(env.targets[i])
	out := make([]string, len(args))
	for j, a := range args {
		a = strings.ReplaceAll(a, "{target}", port)
		a = strings.ReplaceAll(a, "{silent}", env.silent)
		a = strings.ReplaceAll(a, "{down}", env.down)
		out[j] = a
	}
	return out
}

// targetPrefix marks a case line sent to the targets instead of the
// sources (after the modifiers).
const targetPrefix = "target: "

// runMigrateCases runs cases as runCases does, under RESP2 and RESP3, with
// the lines starting "target: " sent to the targets (one connection each,
// RESP2), every other line to the sources, and the targets reset between
// cases: emptied, without a password, and with the sources' cached
// connections to them closed, so every case starts from the same state.
// The first MIGRATE of a case so also finds its cached connection closed,
// which is the reconnect path.
func runMigrateCases(t *testing.T, env *migrateEnv, cases []tcase) {
	t.Helper()
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) { runMigrateCase(t, env, tc, proto) })
			}
		})
	}
}

func runMigrateCase(t *testing.T, env *migrateEnv, tc tcase, proto int) {
	sources := append([]string{redisAddr}, floodgates()...)
	dialSet := func(addrs []string, hello bool) []*rawConn {
		var set []*rawConn
		for _, addr := range addrs {
			c, err := dialRaw(addr)
			if err != nil {
				t.Fatalf("dial %s: %v", addr, err)
			}
			t.Cleanup(c.close)
			if hello {
				if _, err := c.do("HELLO", "3"); err != nil {
					t.Fatalf("HELLO 3: %v", err)
				}
			}
			set = append(set, c)
		}
		return set
	}
	resetTargets(t, env)
	t.Cleanup(func() { resetTargets(t, env) })
	srcs := dialSet(sources, proto == 3)
	tgts := dialSet(env.targets, false)
	for _, c := range srcs {
		if reply, err := c.do("FLUSHALL"); err != nil || string(reply) != "+OK\r\n" {
			t.Fatalf("FLUSHALL: %q %v", reply, err)
		}
	}
	for _, line := range tc.lines {
		_, mode, arg, rest := parseModifiers(line)
		set, addrs := srcs, sources
		if cmd, ok := strings.CutPrefix(rest, targetPrefix); ok {
			set, addrs, rest = tgts, env.targets, cmd
		}
		args, err := splitArgs(rest)
		if err != nil || len(args) == 0 {
			t.Fatalf("bad case line %q: %v", line, err)
		}
		want, errR := set[0].do(env.expand(args, 0)...)
		if errR != nil {
			t.Fatalf("%s: redis: %v", shortLine(line), errR)
		}
		for i := 1; i < len(set); i++ {
			got, errF := set[i].do(env.expand(args, i)...)
			if errF != nil {
				t.Fatalf("%s: %s: %v (redis said %.200q)", shortLine(line), transportName(addrs[i]), errF, want)
			}
			if i == 1 {
				countCommand(args)
			}
			if !sameReply(mode, arg, want, got) {
				t.Errorf("%s over %s\n%s", shortLine(line), transportName(addrs[i]), replyDiff(want, got))
			}
		}
	}
}

// resetTargets empties the targets, takes their password away (cases set
// "pw") and closes every other connection to them: the sources' cached
// ones.
func resetTargets(t *testing.T, env *migrateEnv) {
	t.Helper()
	for _, addr := range env.targets {
		c, err := dialRaw(addr)
		if err != nil {
			t.Fatalf("dial target %s: %v", addr, err)
		}
		c.do("AUTH", "pw") // fails when no case set a password
		for _, cmd := range [][]string{{"CONFIG", "SET", "requirepass", ""}, {"FLUSHALL"}, {"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"}} {
			if reply, err := c.do(cmd...); err != nil || reply[0] == '-' {
				t.Fatalf("target %s: %v: %q %v", addr, cmd, reply, err)
			}
		}
		c.close()
	}
}

// TestMigrate compares MIGRATE with Redis's, each server migrating into a
// target of its own kind: every option, the replies a target's errors
// give, a target that is down or never answers, MULTI and scripts, and
// what the target holds afterwards.
func TestMigrate(t *testing.T) {
	if os.Getenv("FLOODGATE_ADDR") != "" {
		t.Skip("the floodgate targets run in process")
	}
	env := startMigrateEnv(t)
	const to = "MIGRATE 127.0.0.1 {target} "
	runMigrateCases(t, env, []tcase{
		{"arity and syntax", []string{
			"MIGRATE", "MIGRATE 127.0.0.1 {target} k 0", "SET k v",
			to + "k 0 1000 foo", to + "k 0 1000 COPY bar", to + "k 0 1000 AUTH", to + "k 0 1000 AUTH2 user",
			to + "k 0 1000 KEYS a", to + "k 0 1000 COPY KEYS", to + "'' 0 1000 AUTH pw foo",
			// Options are read before the numbers, the timeout before the db.
			to + "k x y foo", to + "k x 1000", to + "k 0 x", to + "k 0 1.5", to + "k 0 99999999999999999999",
			"EXISTS k",
		}},
		{"nothing to migrate", []string{
			to + "nokey 0 1000", to + "'' 0 1000", to + "'' 0 1000 KEYS", to + "'' 0 1000 KEYS a b",
			// No connection is tried when no key is here.
			"MIGRATE 127.0.0.1 {down} nokey 0 1000", "MIGRATE 127.0.0.1 {silent} '' 0 1000 KEYS a",
			"SET e v PXAT 1", to + "e 0 1000",
		}},
		{"every type with and without TTL", []string{
			"SET str hello", "SET int 12345 PX 100000", "RPUSH list a b c 1 2", "SADD iset 1 2 3", "SADD set a b c",
			"ZADD zset 1 a 2.5 b -3 c", "HSET hash f1 v1 f2 v2", "PFADD hll a b c d", "EXPIRE hash 500",
			"SET big " + strings.Repeat("x", 100), "RPUSH biglist " + strings.Repeat("e ", 200),
			to + "str 0 1000", to + "int 0 1000", to + "'' 0 1000 KEYS list iset set zset hash hll big biglist",
			"DBSIZE",
			"target: DUMP str", "target: PTTL str", "target: DUMP int", "!approx=5000 target: PTTL int",
			"target: DUMP list", "target: OBJECT ENCODING iset", "target: SMEMBERS iset", "!sort target: SMEMBERS set",
			"target: ZRANGE zset 0 -1 WITHSCORES", "target: DUMP zset", "target: HGETALL hash", "!approx=5 target: TTL hash",
			"target: PFCOUNT hll", "target: GET hll", "target: GET big", "target: LLEN biglist", "target: DUMP biglist",
			"target: DBSIZE",
		}},
		{"copy", []string{
			"SET k v EX 1000", to + "k 0 1000 COPY", "GET k", "!approx=2 TTL k", "target: GET k", "!approx=2 target: TTL k",
			to + "k 0 1000 COPY", to + "k 0 1000 COPY REPLACE", "GET k",
		}},
		{"replace and busykey", []string{
			"SET k new", "target: SET k old", to + "k 0 1000", "GET k", "target: GET k",
			to + "k 0 1000 REPLACE", "EXISTS k", "target: GET k",
			"target: SET k old EX 100", "SET k newer", to + "k 0 1000 replace", "target: TTL k", "target: GET k",
		}},
		{"keys with some missing and some busy", []string{
			"MSET a 1 b 2 c 3", "target: SET b other",
			to + "'' 0 1000 KEYS a nope b c", "EXISTS a b c", "target: MGET a b c",
			to + "'' 0 1000 KEYS b nope", "target: GET b",
			to + "'' 0 1000 REPLACE KEYS b nope", "EXISTS b", "target: GET b",
			// A key given twice is sent twice.
			"SET d 4", to + "'' 0 1000 KEYS d d", "EXISTS d", "target: GET d",
			"SET d 4", "target: DEL d", to + "'' 0 1000 REPLACE KEYS d d", "EXISTS d", "target: GET d",
		}},
		{"databases", []string{
			"SET k v", to + "k 3 1000", "target: GET k", "target: SELECT 3", "target: GET k",
			"SET k v", to + "k 3 1000", "SET k v", to + "k 0 1000", "SELECT 3", "EXISTS k",
			// SELECT fails on the target; the connection's db is then
			// unknown (-1), so a MIGRATE to db -1 sends no SELECT and lands
			// in whatever db the connection has.
			"SELECT 0", "SET x v", to + "x 99 1000", "EXISTS x", to + "x -1 1000", "target: SELECT 0", "target: GET x",
			"SET y v", to + "y -1 1000", to + "y 0 1000",
		}},
		{"authentication", []string{
			// The cached connection authenticated (as default) before the
			// password was set; a new one is refused.
			"SET k v", to + "k 0 1000 COPY", "target: CONFIG SET requirepass pw", "target: AUTH pw",
			to + "k 0 1000 COPY REPLACE", "target: CLIENT KILL TYPE normal SKIPME yes",
			to + "k 0 1000", to + "k 0 1000 AUTH wrong", to + "k 0 1000 AUTH2 default wrong",
			to + "k 0 1000 AUTH2 nobody pw", "EXISTS k",
			to + "k 0 1000 AUTH pw COPY", "target: GET k", to + "k 0 1000 AUTH2 default pw REPLACE",
			"EXISTS k", "target: GET k",
			"SET k v", "target: CONFIG SET requirepass ''", "target: CLIENT KILL TYPE normal SKIPME yes",
			to + "k 0 1000 AUTH pw",
		}},
		{"unreachable targets", []string{
			"SET k v", "MIGRATE 127.0.0.1 {down} k 0 1000", "MIGRATE '' {target} k 0 1000",
			"MIGRATE 127.0.0.1 -1 k 0 1000", "MIGRATE 127.0.0.1 {silent} k 0 100", "MIGRATE 127.0.0.1 {silent} k 0 100 AUTH pw",
			"MIGRATE 127.0.0.1 {silent} '' 0 50 KEYS k", "GET k",
		}},
		{"ports as atoi reads them", []string{
			"SET k v", to + "k 0 1000 COPY", "MIGRATE 127.0.0.1 {target}x k 0 1000 COPY REPLACE",
			// Only 5 characters of the port as printed reach getaddrinfo.
			"MIGRATE 127.0.0.1 ' {target}' k 0 1000 COPY REPLACE", "MIGRATE 127.0.0.1 {target}7 k 0 1000 COPY REPLACE",
			"EVAL \"return string.match(redis.call('INFO', 'stats'), 'migrate_cached_sockets:%d+')\" 0",
		}},
		{"timeouts of zero or less mean a second", []string{
			"SET k v", to + "k 0 0 COPY", to + "k 0 -5 COPY REPLACE", "target: GET k",
		}},
		{"reconnects when the target closed the cached connection", []string{
			"SET k v", to + "k 0 1000", "target: CLIENT KILL TYPE normal SKIPME yes",
			"SET k w", to + "k 0 1000 REPLACE", "target: GET k",
		}},
		{"watch", []string{
			"SET w 1", "WATCH w", to + "w 0 1000 COPY", "MULTI", "PING", "EXEC",
			"WATCH w", to + "w 0 1000", "MULTI", "PING", "EXEC",
		}},
		{"multi and scripts", []string{
			"SET k v", "MULTI", to + "k 0 1000", "EXISTS k", "EXEC", "target: GET k",
			"SET k2 v", "EVAL \"return redis.call('MIGRATE', '127.0.0.1', ARGV[1], KEYS[1], 0, 1000)\" 1 k2 {target}", "EXISTS k2",
			"SET k3 v", "EVAL_RO \"return redis.call('MIGRATE', '127.0.0.1', ARGV[1], KEYS[1], 0, 1000)\" 1 k3 {target}", "EXISTS k3",
			"EVAL \"return redis.pcall('MIGRATE', '127.0.0.1', ARGV[1], KEYS[1], 0, 1000)\" 1 k2 {target}",
			"SET k4 v", "target: SET k4 x", "EVAL \"return redis.pcall('MIGRATE', '127.0.0.1', ARGV[1], KEYS[1], 0, 1000)\" 1 k4 {target}",
		}},
		{"keyspace hits and misses", []string{
			"MSET a 1 b 2", "CONFIG RESETSTAT", to + "'' 0 1000 KEYS a nope b", to + "nope 0 1000",
			"EVAL \"return string.match(redis.call('INFO', 'stats'), 'keyspace_hits:%d+')\" 0",
			"EVAL \"return string.match(redis.call('INFO', 'stats'), 'keyspace_misses:%d+')\" 0",
		}},
		{"command table", []string{
			"COMMAND INFO migrate", "COMMAND GETKEYS MIGRATE h p k 0 0", "COMMAND GETKEYS MIGRATE h p '' 0 0 KEYS a b",
			"COMMAND GETKEYS MIGRATE h p k 0 0 KEYS a b", "COMMAND GETKEYS MIGRATE h p '' 0 0 AUTH keys KEYS a",
			"COMMAND GETKEYS MIGRATE h p '' 0 0 AUTH2 u keys KEYS a", "COMMAND GETKEYS MIGRATE h p '' 0 0 COPY KEYS",
			"COMMAND GETKEYSANDFLAGS MIGRATE h p '' 0 0 COPY AUTH x KEYS a b", "COMMAND GETKEYSANDFLAGS MIGRATE h p k 0 0",
			"COMMAND GETKEYS MIGRATE h p k 0", "COMMAND GETKEYS MIGRATE h p '' 0 0 AUTH keys", "COMMAND GETKEYS MIGRATE keys p k 0 0 a",
			"COMMAND GETKEYS MIGRATE h p '' 0 0 KEYS a KEYS", "COMMAND GETKEYSANDFLAGS MIGRATE h p '' 0 0 KEYS a keys b",
		}},
	})
}

func TestMigrateCommandDocs(t *testing.T) {
	if want, got := docsFields(t, redisAddr, "migrate"), docsFields(t, floodgateAddr, "migrate"); want != got {
		t.Errorf("COMMAND DOCS migrate\n  redis:     %s\n  floodgate: %s", want, got)
	}
}

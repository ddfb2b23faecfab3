package server

import (
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/store"
	"github.com/redis/go-redis/v9"
)

// migrateTypes creates a key of every type floodgate has, in each
// encoding (small and large), half of them with a TTL, and returns their
// names.
func migrateTypes(t *testing.T, c *redis.Client) []string {
	t.Helper()
	ctx := context.Background()
	many := func(prefix string, n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = prefix + strconv.Itoa(i)
		}
		return out
	}
	pairs := func(n int) []any {
		var out []any
		for i := 0; i < n; i++ {
			out = append(out, float64(i)/4, "m"+strconv.Itoa(i))
		}
		return out
	}
	cmds := [][]any{
		{"set", "str", "hello"}, {"set", "int", "12345", "px", "100000"},
		{"set", "long", strings.Repeat("abc", 100), "ex", "1000"},
		{"rpush", "list", "a", "b", "1", "2"}, append([]any{"rpush", "biglist"}, many(strings.Repeat("e", 70), 300)...),
		{"sadd", "intset", "1", "2", "-3", "100000"}, append([]any{"sadd", "bigset"}, many("s", 600)...),
		{"sadd", "strset", "x", "y"},
		{"zadd", "zset", "1", "a", "2.5", "b", "-3", "c"}, append([]any{"zadd", "bigzset"}, pairs(200)...),
		{"hset", "hash", "f1", "v1", "f2", "v2"}, append([]any{"hset", "bighash"}, pairs(200)...),
		{"pfadd", "hll", "a", "b", "c"}, append([]any{"pfadd", "densehll"}, many("h", 5000)...),
	}
	for _, cmd := range cmds {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd[:2], err)
		}
	}
	for _, k := range []string{"biglist", "intset", "zset", "bighash", "densehll"} {
		c.Expire(ctx, k, time.Hour)
	}
	keys := c.Keys(ctx, "*").Val()
	if len(keys) != len(cmds) {
		t.Fatalf("%d keys made, want %d", len(keys), len(cmds))
	}
	return keys
}

// sameKeyspace checks that target holds what source held (want, from
// keyspaceDump), each key with a TTL if and only if it had one, expiring
// no earlier: the TTL is sent relative, so it may end later by the time
// the transfer took.
func sameKeyspace(t *testing.T, want map[string]string, target *redis.Client) {
	t.Helper()
	got := keyspaceDump(t, target)
	if len(got) != len(want) {
		t.Errorf("target has %d keys, want %d", len(got), len(want))
	}
	for k, w := range want {
		wv, wexp, _ := strings.Cut(w, " expires=")
		gv, gexp, ok := strings.Cut(got[k], " expires=")
		if !ok || gv != wv {
			t.Errorf("key %s on the target: %.100q, want %.100q", k, gv, wv)
			continue
		}
		we, _ := strconv.ParseInt(wexp, 10, 64)
		ge, _ := strconv.ParseInt(gexp, 10, 64)
		if (we < 0) != (ge < 0) || ge < we {
			t.Errorf("key %s expires at %d on the target, at %d on the source", k, ge, we)
		}
	}
}

func migrateArgs(addr string, key string, db, timeout int, opts ...any) []any {
	host, port, _ := net.SplitHostPort(addr)
	return append([]any{"migrate", host, port, key, db, timeout}, opts...)
}

// TestMigrateWithRedis moves every type floodgate has from floodgate to
// Redis and back, with a password and with an ACL user on the Redis
// target and AUTH2 as the default user on the floodgate one, and checks
// COPY, REPLACE, BUSYKEY and KEYS with missing keys on both.
func TestMigrateWithRedis(t *testing.T) {
	ctx := context.Background()
	rs := redistest.Start(t, "--requirepass", "redispw")
	rc := redis.NewClient(patient(&redis.Options{Addr: rs.Addr, Password: "redispw"}))
	t.Cleanup(func() { rc.Close() })
	if err := rc.Do(ctx, "acl", "setuser", "mover", "on", ">moverpw", "~*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	fg := startServer(t, Config{})
	fg.setRequirePass("fgpw")
	fc := redis.NewClient(patient(&redis.Options{Addr: fg.Addr(), Password: "fgpw"}))
	t.Cleanup(func() { fc.Close() })

	keys := migrateTypes(t, fc)
	want := keyspaceDump(t, fc)
	keyArgs := func() []any {
		out := []any{"keys", "nosuch"}
		for _, k := range keys {
			out = append(out, k, "missing-"+k)
		}
		return out
	}
	// floodgate → Redis as an ACL user.
	args := migrateArgs(rs.Addr, "", 0, 5000, append([]any{"auth2", "mover", "moverpw"}, keyArgs()...)...)
	if got, err := fc.Do(ctx, args...).Text(); err != nil || got != "OK" {
		t.Fatalf("MIGRATE to Redis: %q %v", got, err)
	}
	if n := fc.DBSize(ctx).Val(); n != 0 {
		t.Errorf("floodgate kept %d keys", n)
	}
	sameKeyspace(t, want, rc)

	// Redis → floodgate as the default user.
	args = migrateArgs(fg.Addr(), "", 0, 5000, append([]any{"auth2", "default", "fgpw"}, keyArgs()...)...)
	if got, err := rc.Do(ctx, args...).Text(); err != nil || got != "OK" {
		t.Fatalf("MIGRATE to floodgate: %q %v", got, err)
	}
	if n := rc.DBSize(ctx).Val(); n != 0 {
		t.Errorf("Redis kept %d keys", n)
	}
	sameKeyspace(t, want, fc)

	// COPY, then BUSYKEY, then REPLACE, with AUTH, in both directions.
	const busy = "ERR Target instance replied with error: BUSYKEY Target key name already exists."
	for _, dir := range []struct {
		name           string
		source, target *redis.Client
		addr, password string
	}{
		{"to Redis", fc, rc, rs.Addr, "redispw"},
		{"to floodgate", rc, fc, fg.Addr(), "fgpw"},
	} {
		if dir.source == rc {
			rc.Set(ctx, "bigzset", "replaced", 0)
		}
		for _, step := range []struct {
			opts []any
			want string
		}{
			{[]any{"copy"}, "OK"},
			{[]any{"copy"}, busy},
			{[]any{"replace"}, "OK"},
			{nil, "NOKEY"},
		} {
			args := migrateArgs(dir.addr, "bigzset", 0, 5000, append([]any{"auth", dir.password}, step.opts...)...)
			got, err := dir.source.Do(ctx, args...).Text()
			if err != nil {
				got = err.Error()
			}
			if got != step.want {
				t.Errorf("%s: MIGRATE %v: %q, want %q", dir.name, step.opts, got, step.want)
			}
		}
	}
	if got := fc.Get(ctx, "bigzset").Val(); got != "replaced" {
		t.Errorf("after REPLACE floodgate has %q", got)
	}
	// A wrong password leaves the key where it was.
	args = migrateArgs(rs.Addr, "str", 0, 5000, "auth2", "mover", "wrong")
	if err := fc.Do(ctx, args...).Err(); err == nil || err.Error() != "ERR Target instance replied with error: WRONGPASS invalid username-password pair or user is disabled." {
		t.Errorf("MIGRATE with a wrong password: %v", err)
	}
	if fc.Exists(ctx, "str").Val() != 1 {
		t.Error("the key left after a refused AUTH")
	}
}

// fakeTarget is a loopback listener standing in for a target that does
// not behave: it counts connections and reports what each sent, and
// serve decides what it does with each.
type fakeTarget struct {
	ln       net.Listener
	accepted chan net.Conn
	mu       sync.Mutex
	conns    []net.Conn
}

func newFakeTarget(t *testing.T) *fakeTarget {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ft := &fakeTarget{ln: ln, accepted: make(chan net.Conn, 16)}
	go func() {
		defer close(ft.accepted)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			ft.mu.Lock()
			ft.conns = append(ft.conns, c)
			ft.mu.Unlock()
			ft.accepted <- c
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		ft.mu.Lock()
		defer ft.mu.Unlock()
		for _, c := range ft.conns {
			c.Close()
		}
	})
	return ft
}

func (ft *fakeTarget) port() string { return strconv.Itoa(ft.ln.Addr().(*net.TCPAddr).Port) }

// migrateSources are the servers TestMigrateTimeouts and the others run
// MIGRATE on: floodgate, and a redis-server whose replies it must match.
func migrateSources(t *testing.T) map[string]*redis.Client {
	fg := startServer(t, Config{})
	rs := redistest.Start(t)
	rc := redis.NewClient(patient(&redis.Options{Addr: rs.Addr}))
	t.Cleanup(func() { rc.Close() })
	return map[string]*redis.Client{"floodgate": newRedisClient(t, fg), "redis": rc}
}

// TestMigrateTimeouts: a target that takes the request and never answers
// gets IOERR once the timeout has passed since it was sent (the key
// stays); one that never reads gets the writing error; one that closes
// every connection at once is tried twice (the reconnect of a cached
// connection) and gets the reading error. Each is checked by what the
// target saw, and the reply is Redis's.
func TestMigrateTimeouts(t *testing.T) {
	parallel(t)
	ctx := context.Background()
	for name, c := range migrateSources(t) {
		t.Run(name, func(t *testing.T) {
			c.Set(ctx, "k", "v", 0)
			silent := newFakeTarget(t)
			const timeout = 200 * time.Millisecond
			const request = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*4\r\n$7\r\nRESTORE\r\n$1\r\nk\r\n$1\r\n0\r\n"
			read := make(chan []byte, 1)
			go func() {
				conn := <-silent.accepted
				got := make([]byte, len(request))
				n, _ := io.ReadFull(conn, got)
				read <- got[:n]
			}()
			start := time.Now()
			reply := c.Do(ctx, "migrate", "127.0.0.1", silent.port(), "k", 0, timeout.Milliseconds())
			waited := time.Since(start)
			if got := <-read; string(got) != request {
				t.Errorf("the target read %q, want %q", got, request)
			}
			if err := reply.Err(); err == nil || err.Error() != "IOERR error or timeout reading to target instance" {
				t.Errorf("silent target: %v", reply)
			}
			// The timeout starts once the request is written: a lower
			// bound only, which no load can break (Redis's clock is in ms).
			if waited < timeout-time.Millisecond {
				t.Errorf("answered after %v, before the %v timeout", waited, timeout)
			}
			if c.Exists(ctx, "k").Val() != 1 {
				t.Error("the key is gone after a timeout")
			}

			// A target that never reads: the payload (uncompressed, larger
			// than loopback's socket buffers) fills them and the write
			// times out.
			deaf := newFakeTarget(t)
			c.ConfigSet(ctx, "rdbcompression", "no")
			c.Do(ctx, "setrange", "big", 24<<20, "x")
			err := c.Do(ctx, "migrate", "127.0.0.1", deaf.port(), "big", 0, 200).Err()
			if err == nil || err.Error() != "IOERR error or timeout writing to target instance" {
				t.Errorf("deaf target: %v", err)
			}
			c.Del(ctx, "big")
			c.ConfigSet(ctx, "rdbcompression", "yes")

			// A target that hangs up: tried twice.
			closing := newFakeTarget(t)
			go func() {
				for conn := range closing.accepted {
					conn.Close()
				}
			}()
			err = c.Do(ctx, "migrate", "127.0.0.1", closing.port(), "k", 0, 5000).Err()
			if err == nil || err.Error() != "IOERR error or timeout reading to target instance" {
				t.Errorf("closing target: %v", err)
			}
			closing.mu.Lock()
			n := len(closing.conns)
			closing.mu.Unlock()
			if n != 2 {
				t.Errorf("the closing target saw %d connections, want 2", n)
			}
		})
	}
}

// TestMigrateCloseDuringTransfer: Close does not wait for a MIGRATE's
// timeout (ten minutes here): it closes the connection the MIGRATE waits
// on.
func TestMigrateCloseDuringTransfer(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, Config{})
	c := newRedisClient(t, srv)
	c.Set(ctx, "k", "v", 0)
	silent := newFakeTarget(t)
	go c.Do(ctx, "migrate", "127.0.0.1", silent.port(), "k", 0, 600000)
	conn := <-silent.accepted
	io.ReadFull(conn, make([]byte, 10)) // the request is on its way
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(testDeadline):
		t.Fatal("Close waited for the MIGRATE")
	}
}

// TestMigrateSocketCache: connections are kept per host:port as given (64
// at most, one dropped for the 65th) and closed once unused for more
// than 10 seconds on the server's clock.
func TestMigrateSocketCache(t *testing.T) {
	parallel(t)
	ctx := context.Background()
	clock := store.NewManualClock(time.Unix(1700000000, 0))
	src := startServer(t, Config{Clock: clock})
	c := newRedisClient(t, src)
	target := startServer(t, Config{})
	_, port, _ := net.SplitHostPort(target.Addr())
	cached := func() int {
		info := c.Info(ctx, "stats").Val()
		_, rest, _ := strings.Cut(info, "migrate_cached_sockets:")
		n, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0]))
		return n
	}
	for i := 0; i < migrateCacheItems+1; i++ {
		// atoi skips leading spaces: each spelling is another entry.
		c.Set(ctx, "k", "v", 0)
		if got := c.Do(ctx, "migrate", "127.0.0.1", strings.Repeat(" ", i)+port, "k", 0, 5000, "replace").Val(); got != "OK" {
			t.Fatalf("MIGRATE %d: %v", i, got)
		}
	}
	if n := cached(); n != migrateCacheItems {
		t.Errorf("%d sockets cached, want %d", n, migrateCacheItems)
	}
	waitFor(t, "the target to count the source's connections", func() bool { return target.clientCount() == migrateCacheItems })
	clock.Add(migrateCacheTTL * time.Second)
	c.Set(ctx, "k", "v", 0)
	c.Do(ctx, "migrate", "127.0.0.1", port, "k", 0, 5000, "replace") // used now: stays
	clock.Add(time.Second)
	waitFor(t, "the idle sockets to be closed", func() bool { return cached() == 1 })
	waitFor(t, "the target to see them go", func() bool { return target.clientCount() == 1 })
	clock.Add(migrateCacheTTL * time.Second)
	waitFor(t, "the last socket to be closed", func() bool { return cached() == 0 })
}

// TestMigrateLoggedAsDEL: a MIGRATE is logged as DEL of the keys the
// target took, in their order (Redis rewrites the command so for the AOF
// and replicas); with COPY, or when nothing was taken, nothing is logged.
func TestMigrateLoggedAsDEL(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := startServer(t, Config{Dir: dir, AOF: AOFConfig{Enabled: true, Fsync: "always"}})
	c := newRedisClient(t, src)
	target := startServer(t, Config{})
	tc := newRedisClient(t, target)
	tc.Set(ctx, "busy", "x", 0)
	c.MSet(ctx, "a", "1", "b", "2", "busy", "3", "c", "4")
	for _, args := range [][]any{
		migrateArgs(target.Addr(), "a", 0, 5000, "copy"),
		migrateArgs(target.Addr(), "", 0, 5000, "keys", "nosuch", "busy"),
		migrateArgs(target.Addr(), "", 0, 5000, "keys", "c", "busy", "b", "a", "nosuch"),
	} {
		c.Do(ctx, args...)
	}
	src.Close()
	got := strings.Join(loggedCommands(t, dir), "\n")
	// a is on the target since the COPY: BUSYKEY, as for busy.
	if want := "SELECT 0\nmset a 1 b 2 busy 3 c 4\nDEL c b"; got != want {
		t.Errorf("logged:\n%s\nwant:\n%s", got, want)
	}
}

// TestMigratePort: the port MIGRATE connects to, as redis-server 7.0.15
// does with its atoi, its 6-byte port buffer and glibc's getaddrinfo
// (each checked against it: 72927 reached port 7391, -1 failed to
// connect, 105536 reached 10553).
func TestMigratePort(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		port int
		ok   bool
	}{
		{"7391", 7391, true}, {" 7391", 7391, true}, {"+7391", 7391, true}, {"7391x", 7391, true},
		{"72927", 7391, true}, {"105536", 10553, true}, {"99999", 34463, true}, {"4294974687", 7391, true},
		{"abc", 0, true}, {"", 0, true}, {"-1", 0, false}, {"-58145", 0, false},
	} {
		if port, ok := migratePort(tc.arg); port != tc.port || ok != tc.ok {
			t.Errorf("migratePort(%q) = %d, %v; want %d, %v", tc.arg, port, ok, tc.port, tc.ok)
		}
	}
}

package servertest_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server"
	"github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

var ctx = context.Background()

// t0 is the manual clock's start in these tests.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newClient(t testing.TB, s *servertest.Server) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func TestRunServesClients(t *testing.T) {
	s := servertest.RunT(t)
	if s.Host() != "127.0.0.1" || s.Port() == "" || s.Port() == "0" {
		t.Fatalf("Addr() = %q: want 127.0.0.1 and a free port", s.Addr())
	}
	rdb := newClient(t, s)
	if got, err := rdb.Incr(ctx, "hits").Result(); err != nil || got != 1 {
		t.Fatalf("INCR = %v, %v; want 1", got, err)
	}
	s.CheckGet(t, "hits", "1")

	s.Set("greeting", "hello")
	if got, err := rdb.Get(ctx, "greeting").Result(); err != nil || got != "hello" {
		t.Fatalf("GET of a seeded key = %q, %v; want hello", got, err)
	}
}

func TestInspection(t *testing.T) {
	s := servertest.RunT(t, servertest.WithManualClock(t0), servertest.WithDatabases(2))
	s.Set("s", "v")
	if n, err := s.Incr("n", 5); err != nil || n != 5 {
		t.Fatalf("Incr on a missing key = %d, %v; want 5", n, err)
	}
	if n, err := s.Incr("n", -2); err != nil || n != 3 {
		t.Fatalf("Incr = %d, %v; want 3", n, err)
	}
	if _, err := s.Incr("s", 1); err == nil || err.Error() != "ERR value is not an integer or out of range" {
		t.Fatalf("Incr on a non-integer: err = %v", err)
	}
	if _, err := s.Get("missing"); !errors.Is(err, servertest.ErrKeyNotFound) {
		t.Fatalf("Get(missing): err = %v, want ErrKeyNotFound", err)
	}
	if got := s.Keys(); fmt.Sprint(got) != "[n s]" {
		t.Fatalf("Keys() = %v", got)
	}
	if got := s.Type("n"); got != "string" {
		t.Fatalf("Type(n) = %q", got)
	}
	if got := s.Type("missing"); got != "none" {
		t.Fatalf("Type(missing) = %q", got)
	}

	if err := s.SetTTL("s", 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	s.CheckTTL(t, "s", 1500*time.Millisecond)
	s.CheckTTL(t, "n", 0)
	if err := s.SetTTL("missing", time.Second); !errors.Is(err, servertest.ErrKeyNotFound) {
		t.Fatalf("SetTTL(missing): err = %v", err)
	}
	s.FastForward(500 * time.Millisecond)
	s.CheckTTL(t, "s", time.Second)
	if err := s.SetTTL("s", 0); err != nil {
		t.Fatal(err)
	}
	s.CheckTTL(t, "s", 0)

	if !s.Del("s") || s.Del("s") {
		t.Fatal("Del: want true, then false")
	}
	s.CheckNotExists(t, "s")
	s.CheckExists(t, "n")

	// Sorted sets.
	if added, err := s.ZAdd("z", 2, "b"); !added || err != nil {
		t.Fatalf("ZAdd = %v, %v", added, err)
	}
	if added, err := s.ZAdd("z", 1, "a"); !added || err != nil {
		t.Fatalf("ZAdd = %v, %v", added, err)
	}
	if added, err := s.ZAdd("z", 3, "a"); added || err != nil {
		t.Fatalf("ZAdd of an existing member = %v, %v; want false", added, err)
	}
	if got, err := s.ZMembers("z"); err != nil || fmt.Sprint(got) != "[b a]" {
		t.Fatalf("ZMembers = %v, %v", got, err)
	}
	if got, err := s.ZScore("z", "a"); err != nil || got != 3 {
		t.Fatalf("ZScore = %v, %v", got, err)
	}
	if _, err := s.ZScore("z", "nope"); !errors.Is(err, servertest.ErrKeyNotFound) {
		t.Fatalf("ZScore of a missing member: err = %v", err)
	}
	if _, err := s.ZAdd("n", 1, "a"); !errors.Is(err, servertest.ErrWrongType) {
		t.Fatalf("ZAdd on a string: err = %v", err)
	}
	if _, err := s.ZMembers("n"); !errors.Is(err, servertest.ErrWrongType) {
		t.Fatalf("ZMembers on a string: err = %v", err)
	}
	s.Del("z")

	// Hashes.
	if err := s.HSet("h", "a", "1", "b", "2"); err != nil {
		t.Fatal(err)
	}
	if err := s.HSet("h", "a", "3"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.HGet("h", "a"); err != nil || got != "3" {
		t.Fatalf("HGet = %q, %v", got, err)
	}
	if _, err := s.HGet("h", "nope"); !errors.Is(err, servertest.ErrKeyNotFound) {
		t.Fatalf("HGet of a missing field: err = %v", err)
	}
	if err := s.HSet("h", "odd"); err == nil {
		t.Fatal("HSet with an odd number of arguments: no error")
	}
	if err := s.HSet("n", "a", "1"); !errors.Is(err, servertest.ErrWrongType) {
		t.Fatalf("HSet on a string: err = %v", err)
	}
	s.Del("h")

	// Databases are separate.
	s.DB(1).Set("n", "other")
	s.DB(1).CheckGet(t, "n", "other")
	s.CheckGet(t, "n", "3")
	s.FlushAll()
	if len(s.Keys()) != 0 || len(s.DB(1).Keys()) != 0 {
		t.Fatalf("FlushAll left keys: %s", s.Dump())
	}
}

func TestDump(t *testing.T) {
	s := servertest.RunT(t, servertest.WithManualClock(t0), servertest.WithDatabases(3))
	if got := s.Dump(); got != "" {
		t.Fatalf("Dump of an empty server = %q", got)
	}
	s.Set("b", "two words")
	s.Set("a", "1")
	s.SetTTL("a", 90*time.Second)
	s.DB(2).Set("x\ny", "")
	s.ZAdd("c", 2.5, "late")
	s.ZAdd("c", 1, "early")
	s.HSet("d", "field", "value", "n", "1")
	want := "db 0\n" +
		"  \"a\" \"1\" ttl 1m30s\n" +
		"  \"b\" \"two words\"\n" +
		"  \"c\" zset\n" +
		"    1 \"early\"\n" +
		"    2.5 \"late\"\n" +
		"  \"d\" hash\n" +
		"    \"field\": \"value\"\n" +
		"    \"n\": \"1\"\n" +
		"db 2\n" +
		"  \"x\\ny\" \"\"\n"
	if got := s.Dump(); got != want {
		t.Fatalf("Dump() =\n%s\nwant\n%s", got, want)
	}
}

// recordingTB captures the failures a Check method reports.
type recordingTB struct {
	testing.TB
	failures []string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func TestCheckFailures(t *testing.T) {
	s := servertest.RunT(t, servertest.WithManualClock(t0))
	s.Set("k", "v")
	s.SetTTL("k", time.Minute)
	s.ZAdd("z", 1, "a")
	s.ZAdd("z", 2, "b")
	s.SAdd("s", "b", "a")
	for _, tc := range []struct {
		name  string
		check func(tb testing.TB)
		want  string // "" = passes
	}{
		{"get ok", func(tb testing.TB) { s.CheckGet(tb, "k", "v") }, ""},
		{"get wrong", func(tb testing.TB) { s.CheckGet(tb, "k", "w") }, `floodgate: db 0: GET "k" = "v", want "w"`},
		{"get missing", func(tb testing.TB) { s.CheckGet(tb, "nope", "w") }, `floodgate: db 0: GET "nope": floodgate: key not found (want "w")`},
		{"ttl ok", func(tb testing.TB) { s.CheckTTL(tb, "k", time.Minute) }, ""},
		{"ttl wrong", func(tb testing.TB) { s.CheckTTL(tb, "k", time.Second) }, `floodgate: db 0: TTL "k" = 1m0s, want 1s`},
		{"ttl missing", func(tb testing.TB) { s.CheckTTL(tb, "nope", 0) }, `floodgate: db 0: TTL "nope": floodgate: key not found (want 0s)`},
		{"exists ok", func(tb testing.TB) { s.CheckExists(tb, "k") }, ""},
		{"exists missing", func(tb testing.TB) { s.CheckExists(tb, "nope") }, `floodgate: db 0: key "nope" does not exist, want it to`},
		{"not exists ok", func(tb testing.TB) { s.CheckNotExists(tb, "nope") }, ""},
		{"not exists present", func(tb testing.TB) { s.CheckNotExists(tb, "k") }, `floodgate: db 0: key "k" exists (string), want it not to`},
		{"zmembers ok", func(tb testing.TB) { s.CheckZMembers(tb, "z", "a", "b") }, ""},
		{"zmembers wrong", func(tb testing.TB) { s.CheckZMembers(tb, "z", "b", "a") }, `floodgate: db 0: ZRANGE "z" 0 -1 = ["a" "b"], want ["b" "a"]`},
		{"zmembers wrong type", func(tb testing.TB) { s.CheckZMembers(tb, "k", "a") }, `floodgate: db 0: ZRANGE "k" 0 -1: WRONGTYPE Operation against a key holding the wrong kind of value (want ["a"])`},
		{"set ok", func(tb testing.TB) { s.CheckSet(tb, "s", "a", "b") }, ""},
		{"set any order", func(tb testing.TB) { s.CheckSet(tb, "s", "b", "a") }, ""},
		{"set wrong", func(tb testing.TB) { s.CheckSet(tb, "s", "a") }, `floodgate: db 0: SMEMBERS "s" = ["a" "b"], want ["a"]`},
		{"set missing", func(tb testing.TB) { s.CheckSet(tb, "nope", "a") }, `floodgate: db 0: SMEMBERS "nope": floodgate: key not found (want ["a"])`},
	} {
		rec := &recordingTB{TB: t}
		tc.check(rec)
		got := strings.Join(rec.failures, "\n")
		if got != tc.want {
			t.Errorf("%s: reported %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestManualClockFastForward(t *testing.T) {
	s := servertest.RunT(t, servertest.WithManualClock(t0))
	if !s.Now().Equal(t0) {
		t.Fatalf("Now() = %v, want %v", s.Now(), t0)
	}
	for i := range 100 {
		s.Set(fmt.Sprint("live", i), "x")
	}
	s.Set("short", "x")
	s.SetTTL("short", time.Second)
	s.Set("long", "x")
	s.SetTTL("long", time.Minute)

	// The clock does not move on its own.
	time.Sleep(20 * time.Millisecond)
	s.CheckTTL(t, "short", time.Second)

	s.FastForward(time.Second) // expiry is strict: at exactly its time a key still lives
	s.CheckExists(t, "short")
	s.FastForward(time.Millisecond)
	// Deleted by FastForward itself, not when someone next reads it.
	if n := dbLen(s); n != 101 {
		t.Fatalf("after FastForward the keyspace holds %d keys, want 101", n)
	}
	s.CheckNotExists(t, "short")
	s.CheckTTL(t, "long", time.Minute-time.Second-time.Millisecond)

	s.SetTime(t0.Add(time.Hour))
	if n := dbLen(s); n != 100 {
		t.Fatalf("after SetTime the keyspace holds %d keys, want 100", n)
	}
	if !s.Now().Equal(t0.Add(time.Hour)) {
		t.Fatalf("Now() = %v", s.Now())
	}
}

// dbLen returns the number of keys database 0 holds, expired ones not yet
// reclaimed included (DBSIZE), without touching any key.
func dbLen(s *servertest.Server) int {
	var n int
	s.Do(func() { n = s.Store().DB(0).Len() })
	return n
}

func TestRealClockExpiresOnItsOwn(t *testing.T) {
	s := servertest.RunT(t)
	s.Set("k", "v")
	s.SetTTL("k", 20*time.Millisecond)
	// Nobody reads the key: only active expiry can remove it.
	redistest.Eventually(t, "active expiry", func() bool { return dbLen(s) == 0 })
}

func TestRealClockFastForward(t *testing.T) {
	s := servertest.RunT(t)
	s.Set("k", "v")
	s.SetTTL("k", time.Hour)
	before := time.Now()
	s.FastForward(2 * time.Hour)
	if dbLen(s) != 0 {
		t.Fatal("FastForward on the real clock did not expire the key")
	}
	if now := s.Now(); now.Sub(before) < 2*time.Hour || now.Sub(before) > 3*time.Hour {
		t.Fatalf("Now() = %v, %v after the real time", now, now.Sub(before))
	}
	s.SetTime(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	if got := s.Now(); got.Before(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)) || got.After(time.Date(2030, 1, 1, 0, 1, 0, 0, time.UTC)) {
		t.Fatalf("Now() after SetTime = %v", got)
	}
}

// Servers share nothing: keys, clocks and counters are their own, also
// when tests run in parallel.
func TestServersAreIsolated(t *testing.T) {
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			s := servertest.RunT(t, servertest.WithManualClock(t0))
			rdb := newClient(t, s)
			for range i + 1 {
				if err := rdb.Incr(ctx, "counter").Err(); err != nil {
					t.Fatal(err)
				}
			}
			s.SetTTL("counter", time.Duration(i+1)*time.Second)
			s.FastForward(time.Duration(i) * time.Second)
			s.CheckGet(t, "counter", fmt.Sprint(i+1))
			s.CheckTTL(t, "counter", time.Second)
			if !s.Now().Equal(t0.Add(time.Duration(i) * time.Second)) {
				t.Fatalf("clock moved by another server: %v", s.Now())
			}
		})
	}
}

func TestSetError(t *testing.T) {
	s := servertest.RunT(t)
	rdb := newClient(t, s)
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	before := s.CommandCount()
	s.SetError("ERR injected\nfailure")
	for _, cmd := range [][]any{{"PING"}, {"GET", "k"}, {"NOSUCHCOMMAND"}} {
		if err := rdb.Do(ctx, cmd...).Err(); err == nil || err.Error() != "ERR injected failure" {
			t.Fatalf("%v with SetError: err = %v", cmd, err)
		}
	}
	if s.CurrentConnectionCount() != 1 {
		t.Fatal("SetError closed the connection")
	}
	s.SetError("")
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after SetError(\"\"): %v", err)
	}
	if got := s.CommandCount() - before; got != 1 {
		t.Fatalf("CommandCount grew by %d, want 1 (refused commands do not count)", got)
	}
}

func TestPauseAndResume(t *testing.T) {
	s := servertest.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2, ReadTimeout: 100 * time.Millisecond, MaxRetries: -1})
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	s.Pause()
	s.Pause() // idempotent
	var nerr net.Error
	if err := rdb.Ping(ctx).Err(); !errors.As(err, &nerr) || !nerr.Timeout() {
		t.Fatalf("PING while paused: err = %v, want a timeout", err)
	}
	s.Resume()
	// A busy machine may take longer than rdb's short timeout to answer.
	patient := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2, ReadTimeout: redistest.Patience, MaxRetries: -1})
	defer patient.Close()
	if err := patient.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after Resume: %v", err)
	}
}

func TestCloseWhilePaused(t *testing.T) {
	s, err := servertest.Run()
	if err != nil {
		t.Fatal(err)
	}
	rdb := newClient(t, s)
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	s.Pause()
	waiting := make(chan error, 1)
	go func() { waiting <- rdb.Ping(ctx).Err() }()
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs on a paused server")
	}
	select {
	case <-waiting: // answered or refused: either way not stuck
	case <-time.After(10 * time.Second):
		t.Fatal("a command sent while paused is still waiting after Close")
	}
}

func TestCloseListener(t *testing.T) {
	s := servertest.RunT(t)
	rdb := newClient(t, s)
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	s.CloseListener()
	if c, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
		c.Close()
		t.Fatal("a new connection was accepted after CloseListener")
	}
	// Open connections keep working.
	if err := rdb.Incr(ctx, "k").Err(); err != nil {
		t.Fatalf("INCR on an open connection after CloseListener: %v", err)
	}
	// So does Dial.
	conn, err := s.Dial()
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
}

func TestCloseClients(t *testing.T) {
	s := servertest.RunT(t)
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, err := conn.Read(buf); err != nil || string(buf[:n]) != "+PONG\r\n" {
		t.Fatalf("PING = %q, %v", buf[:n], err)
	}
	s.CloseClients()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := conn.Read(buf); err == nil {
		t.Fatalf("read %q from a connection CloseClients closed", buf[:n])
	}
	redistest.Eventually(t, "no connections", func() bool { return s.CurrentConnectionCount() == 0 })
	// The server still accepts connections and keeps its keys.
	rdb := newClient(t, s)
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
}

func TestConnectionCounters(t *testing.T) {
	s := servertest.RunT(t)
	var clients []*redis.Client
	for range 3 {
		rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2, PoolSize: 1})
		if err := rdb.Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		clients = append(clients, rdb)
	}
	if got := s.CurrentConnectionCount(); got != 3 {
		t.Fatalf("CurrentConnectionCount = %d, want 3", got)
	}
	clients[0].Close()
	redistest.Eventually(t, "a connection to close", func() bool { return s.CurrentConnectionCount() == 2 })
	for _, c := range clients[1:] {
		c.Close()
	}
	if got := s.TotalConnectionCount(); got != 3 {
		t.Fatalf("TotalConnectionCount = %d, want 3", got)
	}
}

func TestCommandCount(t *testing.T) {
	s := servertest.RunT(t)
	conn, err := s.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if s.CommandCount() != 0 {
		t.Fatal("a new server has processed commands")
	}
	conn.Write([]byte("PING\r\nINCR k\r\nGET k\r\n"))
	want := "+PONG\r\n:1\r\n$1\r\n1\r\n"
	got := make([]byte, len(want))
	if _, err := readFull(conn, got); err != nil || string(got) != want {
		t.Fatalf("replies = %q, %v", got, err)
	}
	if n := s.CommandCount(); n != 3 {
		t.Fatalf("CommandCount = %d, want 3", n)
	}
}

func readFull(c net.Conn, p []byte) (int, error) {
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	n := 0
	for n < len(p) {
		m, err := c.Read(p[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func TestDialWithoutListener(t *testing.T) {
	s := servertest.RunT(t, servertest.WithoutListener())
	if s.Addr() != "" {
		t.Fatalf("Addr() = %q for a server without a listener", s.Addr())
	}
	rdb := redis.NewClient(&redis.Options{Dialer: s.DialContext, Protocol: 2})
	defer rdb.Close()
	// A pipeline far larger than any read buffer: the pipe is buffered
	// like a socket, so neither side waits for the other.
	pipe := rdb.Pipeline()
	const n = 5000
	value := strings.Repeat("v", 100)
	for i := range n {
		pipe.Do(ctx, "ECHO", fmt.Sprint(value, i))
	}
	cmds, err := pipe.Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cmds {
		if got := c.(*redis.Cmd).Val(); got != fmt.Sprint(value, i) {
			t.Fatalf("reply %d = %v", i, got)
		}
	}
	if got := s.CommandCount(); got < n {
		t.Fatalf("CommandCount = %d, want at least %d", got, n)
	}
}

func TestDialAfterClose(t *testing.T) {
	s, err := servertest.Run(servertest.WithoutListener())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := s.Dial()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); err == nil {
		t.Fatal("a Dial connection is still open after Close")
	}
	if _, err := s.Dial(); !errors.Is(err, server.ErrServerClosed) {
		t.Fatalf("Dial after Close: err = %v, want ErrServerClosed", err)
	}
}

func TestPipeDeadline(t *testing.T) {
	s := servertest.RunT(t, servertest.WithoutListener())
	conn, err := s.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	var nerr net.Error
	if _, err := conn.Read(make([]byte, 1)); !errors.As(err, &nerr) || !nerr.Timeout() {
		t.Fatalf("Read past the deadline: err = %v, want a timeout", err)
	}
}

// Inside a synctest bubble the server runs on the bubble's fake clock: a
// minute-long TTL runs out at once, by active expiry, with no FastForward.
func TestSynctestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := servertest.RunT(t, servertest.WithoutListener())
		rdb := redis.NewClient(&redis.Options{Dialer: s.DialContext, Protocol: 2})
		defer rdb.Close()
		if err := rdb.Incr(ctx, "window").Err(); err != nil {
			t.Fatal(err)
		}
		s.SetTTL("window", time.Minute)
		time.Sleep(59 * time.Second)
		s.CheckExists(t, "window")
		time.Sleep(2 * time.Second)
		if dbLen(s) != 0 {
			t.Fatal("active expiry did not run on the bubble's clock")
		}
		if got, err := rdb.Incr(ctx, "window").Result(); err != nil || got != 1 {
			t.Fatalf("INCR after the window = %v, %v; want 1", got, err)
		}
	})
}

// The manual clock and the counters are read and moved by the test while
// clients run: -race checks that this is safe.
func TestConcurrentUse(t *testing.T) {
	s := servertest.RunT(t, servertest.WithManualClock(t0))
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2, PoolSize: 1})
			defer rdb.Close()
			for range 200 {
				if err := rdb.Incr(ctx, fmt.Sprint("k", i)).Err(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for range 50 {
		s.FastForward(time.Millisecond)
		s.SetTTL("k0", time.Second)
		_ = s.CommandCount() + s.CurrentConnectionCount() + s.TotalConnectionCount() + s.ScriptCalls()
		_ = s.Dump()
		_ = s.Now()
	}
	wg.Wait()
	if got := s.CommandCount(); got < 800 {
		t.Fatalf("CommandCount = %d, want at least 800", got)
	}
}

// Servers keep no global state: after a thousand servers, each with scripts
// of its own loaded and run, are closed, the heap and the goroutines are
// back where they started.
func TestServersReleaseEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 1,000 servers")
	}
	runOne := func(i int) {
		s, err := servertest.Run(servertest.WithManualClock(t0))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2, PoolSize: 1})
		defer rdb.Close()
		scripts := []*redis.Script{
			fixedWindow,
			redis.NewScript(fmt.Sprintf("return {ARGV[1], %d, redis.call('TIME')[1]}", i)), // a text no other server sees
		}
		for _, sc := range scripts {
			if err := sc.Load(ctx, rdb).Err(); err != nil {
				t.Fatal(err)
			}
			if err := sc.Run(ctx, rdb, []string{"k"}, 10, 60).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if got := s.ScriptCalls(); got != len(scripts) {
			t.Fatalf("ScriptCalls = %d, want %d", got, len(scripts))
		}
	}
	runOne(-1) // warm up what is built once per process (command table, pools)
	goroutines := runtime.NumGoroutine()
	before := heapInUse()

	const servers = 1000
	for i := range servers {
		runOne(i)
	}
	redistest.Eventually(t, "goroutines to return to baseline", func() bool { return runtime.NumGoroutine() <= goroutines })
	after := heapInUse()
	// An open server with its Lua state holds about 250 KB, and a cached
	// script some KB (miniredis keeps ~18 KB per distinct text), so leaking
	// either would grow the heap by 10 to 250 MB here.
	const bound = 4 << 20
	t.Logf("heap before %d KB, after %d servers %d KB", before>>10, servers, after>>10)
	if after > before+bound {
		t.Fatalf("heap grew by %d KB over %d servers (bound %d KB): something outlives Close", (after-before)>>10, servers, bound>>10)
	}
}

// heapInUse returns the live heap after full collections (several, so that
// sync.Pools are emptied too).
func heapInUse() uint64 {
	var ms runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func TestScriptsArePerServer(t *testing.T) {
	a, b := servertest.RunT(t), servertest.RunT(t)
	ra, rb := newClient(t, a), newClient(t, b)
	sha, err := ra.ScriptLoad(ctx, "return 'a'").Result()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ra.EvalSha(ctx, sha, nil).Text(); err != nil || got != "a" {
		t.Fatalf("EVALSHA on the server that loaded it = %q, %v", got, err)
	}
	if err := rb.EvalSha(ctx, sha, nil).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOSCRIPT") {
		t.Fatalf("EVALSHA on another server: err = %v, want NOSCRIPT", err)
	}
	if a.ScriptCalls() != 1 || b.ScriptCalls() != 1 {
		t.Fatalf("ScriptCalls = %d, %d; want 1, 1", a.ScriptCalls(), b.ScriptCalls())
	}
}

// The direct API runs the commands' keyspace operations, so it fails where
// the command fails, with the command's error text.
func TestDirectAPIErrorsAreTheCommands(t *testing.T) {
	s := servertest.RunT(t)
	rdb := newClient(t, s)
	s.Set("text", "abc")
	s.Set("max", "9223372036854775807")
	s.ZAdd("zset", 1, "a")
	for _, tc := range []struct {
		name   string
		direct func() error
		cmd    func() error
	}{
		{"INCR of text", func() error { _, err := s.Incr("text", 1); return err },
			func() error { return rdb.IncrBy(ctx, "text", 1).Err() }},
		{"INCR past the maximum", func() error { _, err := s.Incr("max", 1); return err },
			func() error { return rdb.IncrBy(ctx, "max", 1).Err() }},
		{"INCR of a sorted set", func() error { _, err := s.Incr("zset", 1); return err },
			func() error { return rdb.IncrBy(ctx, "zset", 1).Err() }},
		{"ZADD to a string", func() error { _, err := s.ZAdd("text", 1, "m"); return err },
			func() error { return rdb.ZAdd(ctx, "text", redis.Z{Score: 1, Member: "m"}).Err() }},
		{"HSET on a sorted set", func() error { return s.HSet("zset", "f", "v") },
			func() error { return rdb.HSet(ctx, "zset", "f", "v").Err() }},
	} {
		direct, cmd := tc.direct(), tc.cmd()
		if direct == nil || cmd == nil || direct.Error() != cmd.Error() {
			t.Errorf("%s: direct API %v, command %v", tc.name, direct, cmd)
		}
	}
	s.CheckGet(t, "max", "9223372036854775807")
}

// The set helpers are the keyspace operations SADD and SREM run, so a key
// they build reads back through the commands the same way.
func TestDoubleSets(t *testing.T) {
	s := servertest.RunT(t)
	if n, err := s.SAdd("s", "3", "1", "x", "1"); n != 3 || err != nil {
		t.Fatalf("SAdd = %d, %v", n, err)
	}
	if ok, err := s.SIsMember("s", "x"); !ok || err != nil {
		t.Fatalf("SIsMember = %v, %v", ok, err)
	}
	if got, err := s.SMembers("s"); err != nil || !slices.Equal(got, []string{"1", "3", "x"}) {
		t.Fatalf("SMembers = %q, %v", got, err)
	}
	if n, err := s.SRem("s", "x", "nope"); n != 1 || err != nil {
		t.Fatalf("SRem = %d, %v", n, err)
	}
	if s.Type("s") != "set" {
		t.Fatalf("Type = %q", s.Type("s"))
	}
	s.SRem("s", "1", "3")
	s.CheckNotExists(t, "s") // an emptied set is deleted, as by SREM
	s.Set("str", "v")
	if _, err := s.SAdd("str", "a"); !errors.Is(err, servertest.ErrWrongType) {
		t.Fatalf("SAdd on a string: %v", err)
	}
	if _, err := s.SMembers("nope"); !errors.Is(err, servertest.ErrKeyNotFound) {
		t.Fatalf("SMembers of a missing key: %v", err)
	}
}

// TestStartCloseReleasesEverything starts and closes servers no client
// used, the way BenchmarkStartClose does, and one a client used: every
// goroutine ends, every descriptor is closed and the port is free again
// once Close returns, whether the accept loop started (a client, TLS:
// goroutines accept) or not (the event loop would have accepted, and Close
// came first). The first-connection watch the unused ones share goes soon
// after the last of them (watchLinger), so the counts are polled.
func TestStartCloseReleasesEverything(t *testing.T) {
	srvTLS, cliTLS := throwawayTLS(t)
	cases := []struct {
		name    string
		opts    []servertest.Option
		connect func(addr string) error
	}{
		{name: "tcp, unused"},
		{name: "tcp, one client", connect: func(addr string) error {
			rdb := redis.NewClient(&redis.Options{Addr: addr})
			defer rdb.Close()
			return rdb.Ping(ctx).Err()
		}},
		{name: "tls, one client", opts: []servertest.Option{servertest.WithTLS(srvTLS)}, connect: func(addr string) error {
			rdb := redis.NewClient(&redis.Options{Addr: addr, TLSConfig: cliTLS})
			defer rdb.Close()
			return rdb.Ping(ctx).Err()
		}},
		{name: "dial only", opts: []servertest.Option{servertest.WithoutListener()}},
	}
	// What the first server to listen opens for the process and keeps (the
	// spare descriptor) is not a leak: one server opens it before the
	// descriptors are counted.
	goroutines := runtime.NumGoroutine()
	if s, err := servertest.Run(); err != nil {
		t.Fatal(err)
	} else {
		s.Close()
	}
	redistest.Eventually(t, "the warm-up's goroutines to end", func() bool { return runtime.NumGoroutine() <= goroutines })
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			goroutines, fds := runtime.NumGoroutine(), openFDs()
			for range 100 {
				s, err := servertest.Run(tc.opts...)
				if err != nil {
					t.Fatal(err)
				}
				addr := s.Addr()
				if tc.connect != nil {
					if err := tc.connect(addr); err != nil {
						t.Fatal(err)
					}
				}
				s.Close()
				if addr == "" {
					continue
				}
				ln, err := net.Listen("tcp", addr)
				if err != nil {
					t.Fatalf("the port is still taken after Close: %v", err)
				}
				ln.Close()
			}
			redistest.Eventually(t, "goroutines to return to baseline", func() bool { return runtime.NumGoroutine() <= goroutines })
			redistest.Eventually(t, "open descriptors to return to baseline", func() bool { return openFDs() <= fds })
		})
	}
}

// openFDs is how many descriptors the process has open, 0 where
// /proc/self/fd cannot say.
func openFDs() int {
	fds, _ := os.ReadDir("/proc/self/fd")
	return len(fds)
}

// A test double starts its expiry cron with its first use (a connection,
// or the direct API), or at once for keys that were there before it
// served (Restart), on TCP as without a listener: nobody reads the key, and DBSIZE counts
// keys whose time has come until they are reclaimed, so only active
// expiry can bring it to 0. (The direct API would start the cron itself.)
func TestActiveExpiryAfterFirstUse(t *testing.T) {
	for _, tc := range []struct {
		name string
		seed func(t *testing.T, s *servertest.Server)
	}{
		{"first use a connection", func(t *testing.T, s *servertest.Server) {
			rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2})
			if s.Addr() == "" {
				rdb = redis.NewClient(&redis.Options{Dialer: s.DialContext, Protocol: 2})
			}
			defer rdb.Close()
			if err := rdb.Set(ctx, "k", "v", 20*time.Millisecond).Err(); err != nil {
				t.Fatal(err)
			}
		}},
		{"first use the direct API", func(t *testing.T, s *servertest.Server) {
			s.Set("k", "v")
			s.SetTTL("k", 20*time.Millisecond)
		}},
		{"keys restored before serving", func(t *testing.T, s *servertest.Server) {
			s.Set("k", "v")
			s.SetTTL("k", time.Second)
			if err := s.Restart(); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		for _, tcp := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/tcp=%v", tc.name, tcp), func(t *testing.T) {
				var opts []servertest.Option
				if !tcp {
					opts = append(opts, servertest.WithoutListener())
				}
				s := servertest.RunT(t, opts...)
				tc.seed(t, s)
				rdb := redis.NewClient(&redis.Options{Dialer: s.DialContext, Protocol: 2})
				if tcp {
					rdb = redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2})
				}
				defer rdb.Close()
				redistest.Eventually(t, "active expiry", func() bool { return rdb.DBSize(ctx).Val() == 0 })
			})
		}
	}
}

// startCloseAllocs is what starting and closing a dial-only server nobody
// uses allocates (BenchmarkStartClose's floodgate/dial): the Server, its
// keyspace with database 0, the default ACL user, the execution lock and
// stop channels, and servertest's own Server. Each start of a test double
// pays it: make what only some servers use on first use instead of
// raising this.
const startCloseAllocs = 16

func TestStartCloseAllocs(t *testing.T) {
	if redistest.RaceEnabled {
		t.Skip("the race detector allocates for itself")
	}
	startClose := func() {
		s, err := servertest.Run(servertest.WithoutListener())
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	// The count is the whole process's: the fewest of a few tries leaves
	// out another goroutine's allocations that fell in one.
	fewest := math.Inf(1)
	for range 5 {
		fewest = min(fewest, testing.AllocsPerRun(100, startClose))
	}
	if fewest > startCloseAllocs {
		t.Fatalf("a start and close allocates %.0f times, over %d", fewest, startCloseAllocs)
	}
}

package ratelimit

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

// A backend is a store the tests run against. start brings up a fresh,
// empty store and returns a function making new, independent clients of it
// (one per simulated gateway replica).
type backend struct {
	name  string
	start func(t testing.TB) (newClient func() redis.UniversalClient)
}

// backends lists every store the algorithm, concurrency, middleware,
// batching and benchmark tests run against.
//
// floodgate runs in-process (server.RunT); the library itself depends on
// go-redis only, and imports the server in tests alone.
var backends = []backend{
	{"redis", func(t testing.TB) func() redis.UniversalClient {
		return clientsOf(t, startRedis(t).addr)
	}},
	{"floodgate", func(t testing.TB) func() redis.UniversalClient {
		return clientsOf(t, servertest.RunT(t).Addr())
	}},
}

// forEachBackend runs test as a subtest per backend, on a fresh store.
func forEachBackend(t *testing.T, test func(t *testing.T, newClient func() redis.UniversalClient)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b.start(t)) })
	}
}

// storeLimiter returns a Limiter of rdb for a test that expects the store to
// answer every call: the failure policy would otherwise hide a store error
// behind an answer that looks right, so any switch to Degraded fails t.
func storeLimiter(t testing.TB, rdb redis.UniversalClient, opts ...Option) *Limiter {
	opts = append([]Option{
		WithTimeout(5 * time.Second),
		OnStateChange(func(from, to State, err error) {
			t.Errorf("the store failed: %v", err)
		}),
	}, opts...)
	return NewLimiter(rdb, opts...)
}

// clientsOf returns a constructor of single-node clients of addr, each
// closed when the test ends.
func clientsOf(t testing.TB, addr string) func() redis.UniversalClient {
	return func() redis.UniversalClient {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		t.Cleanup(func() { c.Close() })
		return c
	}
}

// redisServer is a redis-server process owned by one test.
type redisServer struct {
	t    testing.TB
	port int
	addr string
	dir  string
	args []string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// startRedis starts redis-server on a free 127.0.0.1 port with persistence
// off and stops it when the test ends.
func startRedis(t testing.TB) *redisServer {
	t.Helper()
	return startRedisWith(t, nil)
}

// startRedisWith is startRedis with further server arguments, made from the
// server's port and directory.
func startRedisWith(t testing.TB, extra func(port int, dir string) []string) *redisServer {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is not on PATH (%v); the ratelimit tests need a real Redis (apt-get install redis-server)", err)
	}
	port := freePort(t)
	s := &redisServer{t: t, port: port, addr: "127.0.0.1:" + strconv.Itoa(port), dir: t.TempDir()}
	s.args = []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", s.dir}
	if extra != nil {
		s.args = append(s.args, extra(port, s.dir)...)
	}
	s.start()
	t.Cleanup(s.stop)
	return s
}

// start runs the server (again, on the same port) and waits until it answers.
func (s *redisServer) start() {
	s.t.Helper()
	cmd := exec.Command("redis-server", s.args...)
	log, err := os.Create(filepath.Join(s.dir, fmt.Sprintf("redis-%d.log", time.Now().UnixNano())))
	if err != nil {
		s.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	waitFor(s.t, 10*time.Second, "redis-server on "+s.addr+" to answer PING", func() bool {
		return ping(s.addr)
	})
}

// stop kills the server and waits for it to exit, so its port is free.
func (s *redisServer) stop() {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd != nil {
		cmd.Process.Kill()
		cmd.Wait()
	}
}

// ping reports whether a Redis-protocol server at addr answers PING.
func ping(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// freePort asks the kernel for a port nobody listens on.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// waitFor polls cond until it holds, failing the test after timeout.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		<-tick.C
	}
}

// fakeClock is a clock that moves only when told to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// newFakeClock starts at a whole second, so that aligned windows start at
// offset zero.
func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

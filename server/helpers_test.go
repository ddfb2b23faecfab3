package server

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"

	"github.com/redis/go-redis/v9"
)

// testDeadline bounds every wait in the server's tests: long enough that
// only something really broken reaches it, on however loaded a machine.
const testDeadline = redistest.Patience

// waitFor is redistest.Eventually, under the name the server's tests use.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	redistest.Eventually(t, what, cond)
}

// Transports the protocol and busy-script tests run over (useTransport).
const (
	viaLoop      = "loop"      // TCP, on the epoll event loop (Linux)
	viaGoroutine = "goroutine" // TCP, a goroutine per connection (GoroutineConns)
	viaDial      = "dial"      // Dial's in-memory connections
	// viaParkedLoop is the event loop of an embedded server
	// (LoopOwnsProcessor false), which parks in Go's netpoller.
	viaParkedLoop = "parked-loop"
)

// transports maps a test's name to the transport its servers and clients
// use (useTransport). It is keyed by name rather than held in one variable
// so that tests over different transports can run at the same time:
// TestOtherTransports runs its three in parallel.
var transports sync.Map

// useTransport makes startServer, dialRaw, dialConn and newRedisClient use
// transport for t and its subtests, until t ends.
func useTransport(t testing.TB, transport string) {
	name := t.Name()
	transports.Store(name, transport)
	t.Cleanup(func() { transports.Delete(name) })
}

// transportOf is the transport t uses: its own, its nearest parent's, or
// the event loop.
func transportOf(t testing.TB) string {
	name := t.Name()
	for {
		if tr, ok := transports.Load(name); ok {
			return tr.(string)
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return viaLoop
		}
		name = name[:i]
	}
}

// parallel runs a test alongside the package's other parallel tests
// (t.Parallel) when it runs on its own, and as part of its parent when it
// is a subtest: TestOtherTransports runs some tests again as subtests of
// one parallel test per transport. A test marked parallel shares nothing
// with the others: its own servers, ports, directories and clock, and
// nothing process-wide (GOMAXPROCS, the memory limit that maxmemory sets,
// rlimits, counts of descriptors, goroutines or allocations); those tests
// stay sequential, and no parallel test runs until they are done.
func parallel(t *testing.T) {
	if !strings.Contains(t.Name(), "/") {
		t.Parallel()
	}
}

// startServer starts a server with cfg (its Addr is a free port) for t's
// transport, closed when the test ends.
func startServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	return startServerOver(t, cfg, transportOf(t))
}

// startServerOver is startServer for the given transport.
func startServerOver(t testing.TB, cfg Config, transport string) *Server {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	cfg.GoroutineConns = transport == viaGoroutine
	cfg.LoopOwnsProcessor = transport == viaLoop // as the binary runs
	srv := New(cfg)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// startConfiguredServer starts a server from config text (redis.conf
// lines, or a command line through ConfigArgs), as the binary starts
// one, closed when the test ends.
func startConfiguredServer(t testing.TB, cfg Config, options string) *Server {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	srv := Prepare(cfg)
	if err := srv.LoadConfig("", nil, options); err != nil {
		t.Fatal(err)
	}
	srv.Init()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// dialConn connects to srv over t's transport.
func dialConn(t testing.TB, srv *Server) net.Conn { return dialConnOver(t, srv, transportOf(t)) }

// dialConnOver connects to srv over Dial or TCP (however it is served).
func dialConnOver(t testing.TB, srv *Server, transport string) net.Conn {
	t.Helper()
	var c net.Conn
	var err error
	if transport == viaDial {
		c, err = srv.Dial()
	} else {
		c, err = net.Dial("tcp", srv.Addr())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(testDeadline))
	return c
}

// newRedisClient returns a go-redis client of srv over t's transport.
func newRedisClient(t testing.TB, srv *Server) *redis.Client {
	return dialOver(t, srv, transportOf(t))
}

// dialOver returns a go-redis client of srv over Dial or TCP, with
// timeouts only something broken reaches.
func dialOver(t testing.TB, srv *Server, transport string) *redis.Client {
	opts := &redis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1, ReadTimeout: testDeadline, WriteTimeout: testDeadline}
	if transport == viaDial {
		opts.Dialer = srv.DialContext
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	return c
}

// patient gives go-redis options timeouts only something broken reaches
// (go-redis waits 3 s for a reply by default: a loaded machine running
// the race detector can take longer).
func patient(o *redis.Options) *redis.Options {
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = testDeadline, testDeadline, testDeadline
	return o
}

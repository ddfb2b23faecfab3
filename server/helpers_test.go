package server

import (
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// testDeadline bounds every wait in the server's tests: long enough that
// only something really broken reaches it, on however loaded a machine.
const testDeadline = 2 * time.Minute

// waitFor polls cond until it holds, failing the test after testDeadline.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond) // the poll's interval, not a budget
	}
}

// Transports the protocol and busy-script tests run over (testTransport).
const (
	viaLoop      = "loop"      // TCP, on the epoll event loop (Linux)
	viaGoroutine = "goroutine" // TCP, a goroutine per connection (GoroutineConns)
	viaDial      = "dial"      // Dial's in-memory connections
)

// testTransport is how startServer's server is reached by dialRaw and by
// newScriptTestServer's clients; TestOtherTransports changes it.
var testTransport = viaLoop

// withConfig edits the Config that RunT starts the server with.
func withConfig(edit func(*Config)) Option { return func(rc *runConfig) { edit(&rc.cfg) } }

// startServer starts a server with cfg (its Addr is a free port) for the
// current testTransport, closed when the test ends.
func startServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	return RunT(t, withConfig(func(c *Config) {
		clock := c.Clock
		*c = cfg
		c.Addr = "127.0.0.1:0"
		if c.Clock == nil {
			c.Clock = clock
		}
		c.GoroutineConns = testTransport == viaGoroutine
	}))
}

// dialConn connects to srv over testTransport.
func dialConn(t testing.TB, srv *Server) net.Conn { return dialConnOver(t, srv, testTransport) }

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

// newRedisClient returns a go-redis client of srv over testTransport.
func newRedisClient(t testing.TB, srv *Server) *redis.Client {
	return dialOver(t, srv, testTransport)
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

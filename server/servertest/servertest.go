// Package servertest runs a floodgate server inside a Go test, as
// net/http/httptest runs an HTTP server: Run and RunT start the same server
// as the floodgate binary (same command table, same handlers, same expiry),
// so a test sees Redis 7.0's exact replies. On top of the server's own
// controls (server.Server's SetError, Pause, CloseClients, counters) it adds
// a clock the test moves (WithManualClock, FastForward, SetTime), a direct
// API to seed and inspect keys without a client (Database: Get, Set, Incr,
// ZAdd, HSet, ...), which calls the same keyspace operations as the
// commands, and Check helpers that fail a test with a readable message.
package servertest

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate/floodgate/rdb"
	"github.com/floodgate/floodgate/server"
	"github.com/floodgate/floodgate/store"
)

// Server is a server started by Run or RunT: a *server.Server (Addr,
// Dial, Close, SetError, ...) with a movable clock and the direct API.
type Server struct {
	*server.Server
	clock    movableClock
	rc       runConfig    // how it was started, for Restart
	selected atomic.Int32 // the database of the Server's helpers (Select)
}

// movableClock is a clock FastForward and SetTime can move.
type movableClock interface {
	store.Clock
	Add(d time.Duration)
	Set(t time.Time)
}

// Option configures a server started by Run or RunT.
type Option func(*runConfig)

type runConfig struct {
	cfg    server.Config
	listen bool
	tls    *tls.Config // WithTLS
}

// WithDatabases sets the number of databases (16 by default).
func WithDatabases(n int) Option { return func(rc *runConfig) { rc.cfg.Databases = n } }

// WithPassword makes clients authenticate with AUTH (requirepass).
func WithPassword(password string) Option {
	return func(rc *runConfig) { rc.cfg.Password = password }
}

// WithManualClock starts the server on a clock set to t0 that moves only
// when the test calls FastForward or SetTime. TTLs, expiry, TIME and the
// time scripts see all read that one clock.
func WithManualClock(t0 time.Time) Option {
	return func(rc *runConfig) { rc.cfg.Clock = store.NewManualClock(t0) }
}

// WithAddr sets the TCP address to listen on ("127.0.0.1:0", a free port,
// by default).
func WithAddr(addr string) Option { return func(rc *runConfig) { rc.cfg.Addr = addr } }

// WithTLS serves TLS connections, with cfg (its Certificates at least), on
// the TCP listener. Such connections are served on a goroutine each (the
// epoll event loop polls raw sockets only), with the same parser and
// handlers as any other.
func WithTLS(cfg *tls.Config) Option { return func(rc *runConfig) { rc.tls = cfg } }

// WithoutListener starts the server with no TCP listener: clients connect
// with Dial. Such a server uses no network at all, so it can be started
// inside a testing/synctest bubble.
func WithoutListener() Option { return func(rc *runConfig) { rc.listen = false } }

// Run starts a server on a free local port. By default it has 16 databases,
// no password and the real clock: keys expire on their own, exactly as in
// the floodgate binary (FastForward and SetTime still move that clock).
// Close it when done, or use RunT.
func Run(opts ...Option) (*Server, error) {
	// No file is read to start: the manifest waits for the AOF (Config).
	// The options write the Server's own copy: a runConfig of its own
	// escaped to the heap (288 B a start).
	s := &Server{rc: runConfig{cfg: server.Config{Addr: "127.0.0.1:0", Clock: &shiftedClock{}, LazyAOFManifest: true}, listen: true}}
	rc := &s.rc
	for _, opt := range opts {
		opt(rc)
	}
	if rc.tls != nil {
		rc.cfg.GoroutineConns = true
	}
	s.clock = rc.cfg.Clock.(movableClock)
	srv, err := start(*rc, rc.cfg.Addr, nil)
	if err != nil {
		return nil, err
	}
	s.Server = srv
	return s, nil
}

// RunTLS is Run(WithTLS(cfg), opts...), as miniredis's RunTLS.
func RunTLS(cfg *tls.Config, opts ...Option) (*Server, error) {
	return Run(append(opts, WithTLS(cfg))...)
}

// start starts a server as rc says, on addr, after seed has filled its
// keyspace (if not nil).
func start(rc runConfig, addr string, seed func(*server.Server) error) (*server.Server, error) {
	srv := server.New(rc.cfg)
	if seed != nil {
		if err := seed(srv); err != nil {
			return nil, err
		}
	}
	switch {
	case !rc.listen:
		return srv, srv.ServeDialOnly()
	case rc.tls != nil:
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, err
		}
		srv.Serve(tls.NewListener(ln, rc.tls))
		return srv, nil
	}
	return srv, srv.StartAddr(addr)
}

// Restart closes the server, if it is not closed yet, and starts it again
// on the same address with the same options, keeping its data as a
// restart from an RDB file would: the keys with their TTLs (those whose
// time came meanwhile are gone), in every database. Everything else is
// new, as in a restarted Redis: no clients (connections of before are
// closed; clients reconnect), no cached scripts, counters and CONFIG SET
// settings back to the options'. The keyspace goes through the server's
// own RDB encoder and loader, in memory.
//
// Restart replaces the server the Server embeds: do not call it while
// another goroutine uses the Server.
func (s *Server) Restart() error {
	addr := s.Addr()
	if addr == "" {
		addr = s.rc.cfg.Addr
	}
	s.Close()
	var saved bytes.Buffer
	var err error
	s.Do(func() { err = rdb.Save(&saved, s.Store(), rdb.Options{}) })
	if err != nil {
		return err
	}
	srv, err := start(s.rc, addr, func(srv *server.Server) (err error) {
		srv.Do(func() {
			st := srv.Store()
			_, err = rdb.Load(&saved, st, rdb.LoadOptions{Now: st.Now()})
		})
		return err
	})
	if err != nil {
		return err
	}
	s.Server = srv
	return nil
}

// RunT is Run for tests: it fails t if the server cannot start and closes
// the server when the test ends (t.Cleanup).
func RunT(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := Run(opts...)
	if err != nil {
		t.Fatalf("floodgate: start server: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// shiftedClock is the real clock plus an offset, so that FastForward and
// SetTime work on a server that otherwise behaves exactly like production.
type shiftedClock struct{ offset atomic.Int64 }

func (c *shiftedClock) Now() time.Time {
	return time.Now().Add(time.Duration(c.offset.Load()))
}

func (c *shiftedClock) Add(d time.Duration) { c.offset.Add(int64(d)) }
func (c *shiftedClock) Set(t time.Time)     { c.offset.Store(int64(time.Until(t))) }

// FastForward moves the server's clock forward by d, then deletes the keys
// whose time has come and times out the blocked clients (BLPOP and
// friends) whose timeout has passed, as if that much time had passed. It costs
// O(log n) per key that expires and nothing per key that does not.
func (s *Server) FastForward(d time.Duration) {
	s.clock.Add(d)
	s.ExpireNow()
}

// SetTime sets the server's clock to t (backwards too), then deletes the
// keys whose time has come and times out blocked clients as FastForward.
func (s *Server) SetTime(t time.Time) {
	s.clock.Set(t)
	s.ExpireNow()
}

// DB returns a view of database i. It panics if i is out of range.
func (s *Server) DB(i int) *Database {
	if i < 0 || i >= s.Store().Databases() {
		panic(fmt.Sprintf("floodgate: DB index %d is out of range", i))
	}
	return &Database{srv: s, index: i}
}

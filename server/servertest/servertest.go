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
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate/floodgate/server"
	"github.com/floodgate/floodgate/store"
)

// Server is a server started by Run or RunT: a *server.Server (Addr,
// Dial, Close, SetError, ...) with a movable clock and the direct API.
type Server struct {
	*server.Server
	clock movableClock
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

// WithoutListener starts the server with no TCP listener: clients connect
// with Dial. Such a server uses no network at all, so it can be started
// inside a testing/synctest bubble.
func WithoutListener() Option { return func(rc *runConfig) { rc.listen = false } }

// Run starts a server on a free local port. By default it has 16 databases,
// no password and the real clock: keys expire on their own, exactly as in
// the floodgate binary (FastForward and SetTime still move that clock).
// Close it when done, or use RunT.
func Run(opts ...Option) (*Server, error) {
	rc := runConfig{cfg: server.Config{Addr: "127.0.0.1:0", Clock: &shiftedClock{}}, listen: true}
	for _, opt := range opts {
		opt(&rc)
	}
	s := &Server{Server: server.New(rc.cfg), clock: rc.cfg.Clock.(movableClock)}
	if !rc.listen {
		return s, s.ServeDialOnly()
	}
	if err := s.StartAddr(rc.cfg.Addr); err != nil {
		return nil, err
	}
	return s, nil
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
	return &Database{srv: s.Server, index: i}
}

package ratelimit

import (
	"sync"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
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
		return clientsOf(t, redistest.Start(t).Addr)
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

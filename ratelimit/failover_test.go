package ratelimit

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

// switches records the state changes a Limiter reports.
type switches struct {
	mu   sync.Mutex
	seen []string
}

func (s *switches) hook(from, to State, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, fmt.Sprintf("%s->%s", from, to))
}

func (s *switches) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = nil
}

func (s *switches) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprint(s.seen)
}

// allowedOf counts the allowed among n requests of cost 1.
func allowedOf(t *testing.T, l *Limiter, key string, limit Limit, n int) int {
	t.Helper()
	allowed := 0
	for range n {
		res, err := l.Allow(context.Background(), key, limit)
		if err != nil {
			t.Fatal(err)
		}
		if res.Allowed {
			allowed++
		}
	}
	return allowed
}

// A restartable store can be stopped and started again on the same address.
type restartable struct {
	addr        string
	stop, start func()
}

// restartables are the stores the failure tests stop and restart: a real
// redis-server process, and an in-process floodgate closed and started
// again on the same port.
var restartables = []struct {
	name  string
	start func(t *testing.T) restartable
}{
	{"redis", func(t *testing.T) restartable {
		srv := redistest.Start(t)
		return restartable{srv.Addr, srv.Stop, func() {
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
		}}
	}},
	{"floodgate", func(t *testing.T) restartable {
		// A reserved port: the restart binds it again, and no other test
		// may take it in between.
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(redistest.ReservePort(t)))
		srv := servertest.RunT(t, servertest.WithAddr(addr))
		r := restartable{addr: addr}
		r.stop = func() { srv.Close() }
		r.start = func() {
			var err error
			if srv, err = servertest.Run(servertest.WithAddr(addr)); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
		}
		return r
	}},
}

// TestFailurePolicies kills the store under a Limiter, checks what each
// policy answers, restarts the store on the same port and checks that the
// Limiter goes back to it by itself and reports both switches.
func TestFailurePolicies(t *testing.T) {
	for _, store := range restartables {
		t.Run(store.name, func(t *testing.T) { testFailurePolicies(t, store.start) })
	}
}

func testFailurePolicies(t *testing.T, startStore func(t *testing.T) restartable) {
	limit := PerHour(4)
	for _, tc := range []struct {
		policy FailurePolicy
		name   string
		// allowed is how many of 6 requests pass while the store is down.
		allowed int
	}{
		{FailOpen, "open", 6},
		{FailClosed, "closed", 0},
		{FailOpenLocal, "local", 2}, // 4 shared by 2 replicas
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startStore(t)
			rdb := redis.NewClient(&redis.Options{Addr: srv.addr, MaxRetries: -1})
			defer rdb.Close()
			var sw switches
			l := NewLimiter(rdb, WithFailurePolicy(tc.policy), WithReplicas(2),
				WithTimeout(500*time.Millisecond), WithProbeInterval(20*time.Millisecond), OnStateChange(sw.hook))

			if got := allowedOf(t, l, "rate:user:before", limit, 6); got != 4 {
				t.Fatalf("healthy store allowed %d of 6, want 4", got)
			}
			srv.stop()
			if got := allowedOf(t, l, "rate:user:during", limit, 6); got != tc.allowed {
				t.Errorf("store down: allowed %d of 6, want %d", got, tc.allowed)
			}
			if l.State() != Degraded || sw.String() != "[healthy->degraded]" {
				t.Errorf("store down: state %v, switches %v", l.State(), &sw)
			}

			srv.start()
			redistest.Eventually(t, "the limiter to use the store again", func() bool {
				l.Allow(context.Background(), "rate:user:probe", limit)
				return l.State() == Healthy
			})
			if sw.String() != "[healthy->degraded degraded->healthy]" {
				t.Errorf("switches %v", &sw)
			}
			// The restarted store is empty and decides again: the full
			// limit, not a fallback's answer.
			if got := allowedOf(t, l, "rate:user:after", limit, 6); got != 4 {
				t.Errorf("recovered store allowed %d of 6, want 4", got)
			}
		})
	}
}

// TestSlowStoreCountsAsFailed pauses the store until a request has timed
// out: the request is answered by the policy, and the Limiter recovers once
// the pause ends. Redis is paused with CLIENT PAUSE WRITE (the limiter's
// script may write; CLIENT UNPAUSE still runs), floodgate with its
// test-double Pause. Nothing here depends on how fast the machine is: the
// pause lasts until the timed-out answer has come back.
func TestSlowStoreCountsAsFailed(t *testing.T) {
	t.Run("redis", func(t *testing.T) {
		srv := redistest.Start(t)
		admin := redis.NewClient(&redis.Options{Addr: srv.Addr})
		defer admin.Close()
		ctx := context.Background()
		testSlowStore(t, srv.Addr, func() {
			if err := admin.Do(ctx, "CLIENT", "PAUSE", 3_600_000, "WRITE").Err(); err != nil {
				t.Fatal(err)
			}
		}, func() {
			if err := admin.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
				t.Fatal(err)
			}
		})
	})
	t.Run("floodgate", func(t *testing.T) {
		srv := servertest.RunT(t)
		testSlowStore(t, srv.Addr(), srv.Pause, srv.Resume)
	})
}

func testSlowStore(t *testing.T, addr string, pause, resume func()) {
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer rdb.Close()
	var sw switches
	const timeout = 50 * time.Millisecond
	l := NewLimiter(rdb, WithFailurePolicy(FailClosed), WithTimeout(timeout),
		WithProbeInterval(20*time.Millisecond), OnStateChange(sw.hook))
	ctx := context.Background()
	// A loaded machine may make even a healthy store miss a 50 ms timeout:
	// start from a request answered by the store itself.
	redistest.Eventually(t, "a healthy store to answer", func() bool {
		res, err := l.Allow(ctx, "rate:user:slow", PerHour(4))
		return err == nil && res.Allowed && l.State() == Healthy
	})
	sw.reset()

	pause()
	res, err := l.Allow(ctx, "rate:user:slow", PerHour(4))
	if err != nil || res.Allowed {
		t.Errorf("paused store: %+v, %v; want a fail-closed denial", res, err)
	}
	if l.State() != Degraded {
		t.Errorf("state %v after a timed-out request, want degraded", l.State())
	}
	resume()
	redistest.Eventually(t, "the limiter to recover once the pause ended", func() bool {
		l.Allow(ctx, "rate:user:slow", PerHour(4))
		return l.State() == Healthy
	})
	if got := sw.String(); !strings.HasPrefix(got, "[healthy->degraded") || !strings.HasSuffix(got, "degraded->healthy]") {
		t.Errorf("switches %v", got)
	}
}

package servertest_test

import (
	"fmt"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/floodgate/floodgate/server/servertest"
	"github.com/floodgate/floodgate/store"
	"github.com/redis/go-redis/v9"
)

// Starting and closing a server is what every test pays. "listen" is the
// floor both TCP servers stand on: a bare net.Listen and Close, which are
// system calls. cpu-ns/op is the process's CPU time per start and close,
// which a busy machine distorts less than the wall time.
func BenchmarkStartClose(b *testing.B) {
	bench := func(name string, startClose func() error) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				if err := startClose(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
	bench("floodgate/tcp", func() error {
		s, err := servertest.Run()
		if err == nil {
			s.Close()
		}
		return err
	})
	bench("floodgate/dial", func() error {
		s, err := servertest.Run(servertest.WithoutListener())
		if err == nil {
			s.Close()
		}
		return err
	})
	bench("miniredis", func() error {
		m, err := miniredis.Run()
		if err == nil {
			m.Close()
		}
		return err
	})
	bench("listen", func() error {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err == nil {
			ln.Close()
		}
		return err
	})
}

// ffGroup is how many keys expire at each FastForward step.
const ffGroup = 10

// BenchmarkFastForward moves the clock by 1 ms over a keyspace where
// exactly ffGroup keys expire per millisecond: the cost must not depend on
// how many keys there are.
func BenchmarkFastForward(b *testing.B) {
	for _, keys := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("floodgate/keys=%d", keys), func(b *testing.B) {
			s := servertest.RunT(b, servertest.WithManualClock(t0))
			steps := 0 // steps left before the keyspace must be seeded again
			for b.Loop() {
				if steps == 0 {
					b.StopTimer()
					seedStaggered(s, keys)
					steps = keys / ffGroup
					b.StartTimer()
				}
				s.FastForward(time.Millisecond)
				steps--
			}
			if got, want := dbLen(s), steps*ffGroup; got != want {
				b.Fatalf("%d keys left, want %d: FastForward expired the wrong keys", got, want)
			}
		})
	}
	// The fixed cost: a million keys, none of which expires.
	b.Run("floodgate/keys=1000000/expiring=0", func(b *testing.B) {
		s := servertest.RunT(b, servertest.WithManualClock(t0))
		s.Do(func() {
			db, at := s.Store().DB(0), s.Store().Now()+int64(time.Hour/time.Millisecond)
			for i := range 1_000_000 {
				db.Set([]byte(strconv.Itoa(i)), store.NewInt(1), at)
			}
		})
		for b.Loop() {
			s.FastForward(time.Nanosecond)
		}
		if dbLen(s) != 1_000_000 {
			b.Fatal("keys expired")
		}
	})
	// miniredis walks every key at each FastForward.
	for _, keys := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("miniredis/keys=%d", keys), func(b *testing.B) {
			m := miniredis.RunT(b)
			steps := 0
			for b.Loop() {
				if steps == 0 {
					b.StopTimer()
					m.FlushAll()
					for i := range keys {
						k := strconv.Itoa(i)
						m.Set(k, "1")
						m.SetTTL(k, time.Duration(i/ffGroup+1)*time.Millisecond)
					}
					steps = keys / ffGroup
					b.StartTimer()
				}
				m.FastForward(time.Millisecond)
				steps--
			}
			if got, want := len(m.Keys()), steps*ffGroup; got != want {
				b.Fatalf("%d keys left, want %d", got, want)
			}
		})
	}
}

// seedStaggered replaces the keyspace with n keys, ffGroup of which expire
// at each millisecond from now on.
func seedStaggered(s *servertest.Server, n int) {
	s.Do(func() {
		st := s.Store()
		st.FlushAll()
		db, now := st.DB(0), st.Now()
		for i := range n {
			db.Set([]byte(strconv.Itoa(i)), store.NewInt(1), now+int64(i/ffGroup))
		}
	})
}

// BenchmarkEVALSHA runs the seed-001 fixed-window script through go-redis
// against an in-process server: what a rate limiter's test suite pays per
// request. "roundtrip" is one EVALSHA per round trip (latency, bound by the
// loopback TCP round trip: see "ping"); "pipeline" sends 100 per round
// trip, so the server's own cost per script shows.
func BenchmarkEVALSHA(b *testing.B) {
	fg := servertest.RunT(b)
	mr := miniredis.RunT(b)
	for _, target := range []struct{ name, addr string }{{"floodgate", fg.Addr()}, {"miniredis", mr.Addr()}} {
		b.Run(target.name+"/ping", func(b *testing.B) {
			rdb := redis.NewClient(&redis.Options{Addr: target.addr, Protocol: 2})
			defer rdb.Close()
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				if err := rdb.Ping(ctx).Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
		b.Run(target.name+"/roundtrip", func(b *testing.B) {
			benchEVALSHA(b, &redis.Options{Addr: target.addr, Protocol: 2}, 1)
		})
		b.Run(target.name+"/pipeline", func(b *testing.B) {
			benchEVALSHA(b, &redis.Options{Addr: target.addr, Protocol: 2}, 100)
		})
	}
	// In memory, as inside a synctest bubble.
	b.Run("floodgate-dial/roundtrip", func(b *testing.B) {
		benchEVALSHA(b, &redis.Options{Dialer: fg.DialContext, Protocol: 2}, 1)
	})
}

// benchEVALSHA reports the cost of one EVALSHA, sent batch at a time.
func benchEVALSHA(b *testing.B, opts *redis.Options, batch int) {
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	sha, err := fixedWindow.Load(ctx, rdb).Result()
	if err != nil {
		b.Fatal(err)
	}
	keys := []string{"limit:bench"}
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		if batch == 1 {
			if n, err := rdb.EvalSha(ctx, sha, keys, 1_000_000_000, 60).Int(); err != nil || n != 1 {
				b.Fatalf("EVALSHA = %d, %v", n, err)
			}
			continue
		}
		pipe := rdb.Pipeline()
		for range batch {
			pipe.EvalSha(ctx, sha, keys, 1_000_000_000, 60)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/script")
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N*batch), "cpu-ns/script")
}

// cpuTime returns the CPU time the process (client and server alike) has
// used. On a shared machine wall time mostly measures waiting for a core;
// CPU time per operation is what the work costs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package server

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate/floodgate/store"
)

// BenchmarkThrottleServerPath is one GCRA decision without the network, the
// way a connection runs it (execute under the lock), over 1000 keys with the
// clock moving 1ms per call: CL.THROTTLE natively, and the ratelimit
// package's GCRA script (prelude.lua + gcra.lua, as scripts/bench.sh loads
// it), for the same limit of 1 per second with a burst of 100. Each key is
// met again exactly one emission interval later, so every decision is
// allowed and updates a live key in place.
func BenchmarkThrottleServerPath(b *testing.B) {
	setup := func(b *testing.B) (srv *Server, c *Client, clock *store.ManualClock, w *discardWriter) {
		clock = store.NewManualClock(time.Unix(1_700_000_000, 0))
		srv = New(Config{Addr: "127.0.0.1:0", Clock: clock})
		b.Cleanup(func() { srv.Close() })
		w = &discardWriter{}
		return srv, &Client{srv: srv, db: srv.store.DB(0), authed: true, w: w}, clock, w
	}
	// keyed runs call with nKeys keys named by key; bench with the
	// GCRA scripts' "{rate:<n>}:gcra".
	const nKeys = 1000
	keyed := func(b *testing.B, key func(i int) string, call func(key string) [][]byte) {
		srv, c, clock, w := setup(b)
		calls := make([][][]byte, nKeys)
		for i := range calls {
			calls[i] = call(key(i))
		}
		n := 0
		run := func() {
			clock.Add(time.Millisecond)
			srv.lock <- struct{}{}
			srv.execute(c, calls[n%nKeys])
			<-srv.lock
			n++
		}
		for range nKeys {
			run()
		}
		benchServerPath(b, run, w)
	}
	bench := func(b *testing.B, call func(key string) [][]byte) {
		keyed(b, func(i int) string { return "{rate:" + strconv.Itoa(i) + "}:gcra" }, call)
	}
	// scripts/bench-increx.sh's keys, "rate:<n>": one prefix for the
	// limiter statistics, as a limiter's keys have.
	window := func(b *testing.B, call func(key string) [][]byte) {
		keyed(b, func(i int) string { return "rate:" + strconv.Itoa(i) }, call)
	}
	b.Run("cl.throttle", func(b *testing.B) {
		bench(b, func(key string) [][]byte {
			return [][]byte{[]byte("CL.THROTTLE"), []byte(key), []byte("99"), []byte("1"), []byte("1")}
		})
	})
	// The fixed window beside the counter it replaces: INCR, INCREX with
	// EX (issue 26's comparison), and the ratelimit package's INCREX form.
	b.Run("incr", func(b *testing.B) {
		window(b, func(key string) [][]byte { return [][]byte{[]byte("INCR"), []byte(key)} })
	})
	b.Run("increx-ex", func(b *testing.B) {
		window(b, func(key string) [][]byte {
			return [][]byte{[]byte("INCREX"), []byte(key), []byte("EX"), []byte("60")}
		})
	})
	b.Run("increx-window", func(b *testing.B) {
		window(b, func(key string) [][]byte {
			return [][]byte{[]byte("INCREX"), []byte(key), []byte("UBOUND"), []byte("1000000000"), []byte("EX"), []byte("60"), []byte("ENX")}
		})
	})
	b.Run("evalsha-gcra", func(b *testing.B) {
		var src []byte
		for _, f := range []string{"../ratelimit/prelude.lua", "../ratelimit/gcra.lua"} {
			part, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			src = append(append(src, part...), '\n')
		}
		// EVAL caches the compiled script by its SHA, as EVALSHA finds it.
		bench(b, func(key string) [][]byte {
			return [][]byte{[]byte("EVAL"), src, []byte("1"), []byte(key), []byte("-"), []byte("1"), []byte("1000000"), []byte("100"), []byte("1")}
		})
	})
}

// BenchmarkThrottleChurn is scripts/bench.sh's CL.THROTTLE workload without
// the network: random keys out of 100,000 at about 42,000 decisions a second
// of the manual clock, so most decisions create a key that active expiry
// (run every 100ms of that clock, as the expiry loop does) deletes 0.6s
// later. It prices the key churn a -P 1 request pays on top of a GET.
func BenchmarkThrottleChurn(b *testing.B) {
	clock := store.NewManualClock(time.Unix(1_700_000_000, 0))
	srv := New(Config{Addr: "127.0.0.1:0", Clock: clock})
	b.Cleanup(func() { srv.Close() })
	w := &discardWriter{}
	c := &Client{srv: srv, db: srv.store.DB(0), authed: true, w: w}
	const keys = 100000
	// The arguments live in one reused buffer, as a request's do in the
	// loop's read buffer: built per call, they would be cold in the cache.
	buf := make([]byte, 0, 64)
	args, sixty := make([][]byte, 5), []byte("60")
	rng := uint64(1)
	n := 0
	run := func() {
		clock.Add(24 * time.Microsecond)
		rng = rng*6364136223846793005 + 1442695040888963407
		buf = append(buf[:0], "CL.THROTTLE{rate:"...)
		buf = strconv.AppendUint(buf, (rng>>33)%keys, 10)
		buf = append(buf, "}:gcra:ns99100"...)
		k := len(buf) - len("}:gcra:ns99100")
		args[0], args[1] = buf[:11], buf[11:k+9]
		args[2], args[3], args[4] = buf[k+9:k+11], buf[k+11:k+14], sixty
		srv.lock <- struct{}{}
		srv.execute(c, args)
		if n++; n%4200 == 0 {
			srv.store.ActiveExpire(10000)
		}
		<-srv.lock
	}
	for range 200000 { // steady state: keys expire as fast as they come
		run()
	}
	benchServerPath(b, run, w)
}

package server

import (
	"strconv"
	"testing"
)

// BenchmarkStreamGroupServerPath is the server's side of the requests
// scripts/bench-groups.sh sends: XREADGROUP COUNT 1 and COUNT 10 as the
// PEL grows, XACK of the oldest pending entry, XPENDING's summary over 10
// consumers and XAUTOCLAIM COUNT 10.
func BenchmarkStreamGroupServerPath(b *testing.B) {
	bytes := func(args ...string) [][]byte {
		out := make([][]byte, len(args))
		for i, a := range args {
			out[i] = []byte(a)
		}
		return out
	}
	// setup returns a server with stream s of entries entries and group
	// g, pending delivered to c0 ... c9.
	setup := func(b *testing.B, entries, pending int) *Server {
		srv := New(Config{Addr: "127.0.0.1:0"})
		b.Cleanup(func() { srv.Close() })
		calls := [][][]byte{}
		for i := 1; i <= entries; i++ {
			calls = append(calls, bytes("XADD", "s", strconv.Itoa(i)+"-1", "f", "v"))
		}
		calls = append(calls, bytes("XGROUP", "CREATE", "s", "g", "0"))
		for c := range 10 {
			if pending > 0 {
				calls = append(calls, bytes("XREADGROUP", "GROUP", "g", "c"+strconv.Itoa(c), "COUNT", strconv.Itoa(pending/10), "STREAMS", "s", ">"))
			}
		}
		run, _ := directCalls(srv, calls)
		for range calls {
			run()
		}
		return srv
	}
	const n = 100000
	b.Run("xreadgroup1", func(b *testing.B) {
		// b.N reads of one entry each from a stream refilled as it runs
		// out: the PEL grows by b.N.
		srv := setup(b, n, 0)
		read, w := directCalls(srv, [][][]byte{bytes("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">")})
		next := n + 1
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if i > 0 && i%n == 0 {
				b.StopTimer()
				fill, _ := directCalls(srv, func() [][][]byte {
					var c [][][]byte
					for j := range n {
						c = append(c, bytes("XADD", "s", strconv.Itoa(next+j)+"-1", "f", "v"))
					}
					return c
				}())
				for range n {
					fill()
				}
				next += n
				b.StartTimer()
			}
			read()
		}
		if w.errors != 0 {
			b.Fatal("errors")
		}
	})
	b.Run("xack", func(b *testing.B) {
		srv := setup(b, n, n)
		calls := make([][][]byte, n)
		for i := range calls {
			calls[i] = bytes("XACK", "s", "g", strconv.Itoa(i+1)+"-1")
		}
		run, w := directCalls(srv, calls)
		benchServerPath(b, run, w)
	})
	b.Run("xpending", func(b *testing.B) {
		run, w := directCalls(setup(b, n, n), [][][]byte{bytes("XPENDING", "s", "g")})
		benchServerPath(b, run, w)
	})
	b.Run("xautoclaim", func(b *testing.B) {
		run, w := directCalls(setup(b, n, n), [][][]byte{bytes("XAUTOCLAIM", "s", "g", "c10", "0", "0-0", "COUNT", "10")})
		benchServerPath(b, run, w)
	})
}

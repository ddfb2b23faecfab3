package server

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
)

// BenchmarkPublishFanout: PUBLISH, pipelined 16 deep, to a channel with 1
// and 1,000 subscribers on the event loop, each draining its socket; per
// PUBLISH (divide by the fan-out for a delivered message).
func BenchmarkPublishFanout(b *testing.B) {
	for _, subs := range []int{1, 1000} {
		b.Run(fmt.Sprintf("subscribers=%d", subs), func(b *testing.B) {
			srv := startServer(b, Config{})
			for range subs {
				c, err := net.Dial("tcp", srv.Addr())
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { c.Close() })
				c.Write([]byte("SUBSCRIBE ch\r\n"))
				go io.Copy(io.Discard, c)
			}
			waitFor(b, "the subscribers", func() bool { return numsub(srv, "ch") == subs })
			pub, err := net.Dial("tcp", srv.Addr())
			if err != nil {
				b.Fatal(err)
			}
			defer pub.Close()
			batch := []byte(strings.Repeat("PUBLISH ch 0123456789abcdef\r\n", 16))
			reply := make([]byte, 0, 1024)
			b.ResetTimer()
			for i := 0; i < b.N; i += 16 {
				if _, err := pub.Write(batch); err != nil {
					b.Fatal(err)
				}
				want := 16 * len(fmt.Sprintf(":%d\r\n", subs))
				reply = reply[:want]
				if _, err := io.ReadFull(pub, reply); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

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

// BenchmarkNotifySet: SET, pipelined 16 deep, with notify-keyspace-events
// off, KEA with nobody subscribed, and KEA with one PSUBSCRIBE
// __key*__:* subscriber draining its socket (two messages per SET).
func BenchmarkNotifySet(b *testing.B) {
	for _, mode := range []string{"off", "kea", "subscribed"} {
		b.Run(mode, func(b *testing.B) {
			srv := startServer(b, Config{})
			pub, err := net.Dial("tcp", srv.Addr())
			if err != nil {
				b.Fatal(err)
			}
			defer pub.Close()
			if mode != "off" {
				pub.Write([]byte("CONFIG SET notify-keyspace-events KEA\r\n"))
				io.ReadFull(pub, make([]byte, 5))
			}
			if mode == "subscribed" {
				c, err := net.Dial("tcp", srv.Addr())
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { c.Close() })
				c.Write([]byte("PSUBSCRIBE __key*__:*\r\n"))
				go io.Copy(io.Discard, c)
				waitFor(b, "the subscriber", func() bool {
					n := 0
					srv.Do(func() { n = len(srv.pubsub.patternList) })
					return n == 1
				})
			}
			batch := []byte(strings.Repeat("SET key:0123456789 value\r\n", 16))
			reply := make([]byte, 16*5)
			b.ResetTimer()
			for i := 0; i < b.N; i += 16 {
				if _, err := pub.Write(batch); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(pub, reply); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

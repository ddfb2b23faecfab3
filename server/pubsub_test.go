package server

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// numsub is the subscribers of a channel, read under the lock.
func numsub(srv *Server, ch string) int {
	n := 0
	srv.Do(func() {
		if l := srv.pubsub.channels[ch]; l != nil {
			n = len(l.clients)
		}
	})
	return n
}

// Messages reach an idle subscriber on every transport (the publisher's
// batch wakes the subscriber's transport), in the order published, each
// as its protocol frames it, channel subscribers first, then patterns.
func TestPubSubDelivery(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		for _, tc := range []struct {
			name, hello, header string
		}{
			{"resp2", "", "*"},
			{"resp3", "HELLO 3\r\n", ">"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				sub, pub := conn(), conn()
				if tc.hello != "" {
					sub.send(tc.hello)
					readReply(t, sub)
				}
				sub.send("SUBSCRIBE news\r\nPSUBSCRIBE n*\r\n")
				sub.expect(tc.header + "3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n")
				sub.expect(tc.header + "3\r\n$10\r\npsubscribe\r\n$2\r\nn*\r\n:2\r\n")
				var want strings.Builder
				var req strings.Builder
				for i := range 50 {
					m := fmt.Sprintf("m%d", i)
					req.WriteString("PUBLISH news " + m + "\r\n")
					fmt.Fprintf(&want, "%s3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$%d\r\n%s\r\n", tc.header, len(m), m)
					fmt.Fprintf(&want, "%s4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n$4\r\nnews\r\n$%d\r\n%s\r\n", tc.header, len(m), m)
				}
				pub.send(req.String())
				pub.expect(strings.Repeat(":2\r\n", 50))
				sub.expect(want.String())
				sub.send("UNSUBSCRIBE\r\nPUNSUBSCRIBE\r\n")
				sub.expect(tc.header + "3\r\n$11\r\nunsubscribe\r\n$4\r\nnews\r\n:1\r\n")
				sub.expect(tc.header + "3\r\n$12\r\npunsubscribe\r\n$2\r\nn*\r\n:0\r\n")
				pub.send("PUBLISH news x\r\n")
				pub.expect(":0\r\n")
			})
		}
	})
}

// readReply reads one reply line (enough for HELLO's map header) and
// discards the rest of HELLO's reply by reading up to the modules entry.
func readReply(t *testing.T, c *rawClient) {
	t.Helper()
	for {
		line, err := c.rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == "*0\r\n" { // HELLO's modules: the last field
			return
		}
	}
}

// A message published before a subscriber's command is written before
// that command's reply, as Redis appends it to the subscriber's buffer at
// once; a message published by a subscriber to itself (RESP3) comes
// before its PUBLISH's count.
func TestPubSubOrderWithOwnCommands(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		sub, pub := conn(), conn()
		sub.send("HELLO 3\r\n")
		readReply(t, sub)
		sub.send("SUBSCRIBE c\r\n")
		sub.expect(">3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n")
		pub.send("PUBLISH c first\r\n")
		pub.expect(":1\r\n")
		sub.send("PUBLISH c self\r\nPING\r\n")
		sub.expect(">3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$5\r\nfirst\r\n")
		sub.expect(">3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$4\r\nself\r\n:1\r\n+PONG\r\n")
	})
}

// A subscriber that goes away, by closing its connection, being killed or
// RESET, is subscribed to nothing; a killed one at once.
func TestPubSubGoneClientsDropped(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		admin := conn()
		for _, how := range []string{"close", "kill", "reset"} {
			sub := conn()
			sub.send("CLIENT ID\r\nSUBSCRIBE a b\r\nPSUBSCRIBE p*\r\nSSUBSCRIBE s\r\n")
			line, err := sub.rd.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			id := strings.TrimSpace(line[1:])
			sub.expect("*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n")
			sub.expect("*3\r\n$10\r\npsubscribe\r\n$2\r\np*\r\n:3\r\n*3\r\n$10\r\nssubscribe\r\n$1\r\ns\r\n:1\r\n")
			switch how {
			case "close":
				sub.c.Close()
				waitFor(t, "the closed subscriber dropped", func() bool { return numsub(srv, "a") == 0 })
			case "kill":
				admin.send("CLIENT KILL ID " + id + "\r\nPUBSUB NUMSUB a\r\n")
				admin.expect(":1\r\n*2\r\n$1\r\na\r\n:0\r\n")
			case "reset":
				sub.send("RESET\r\nGET k\r\n")
				sub.expect("+RESET\r\n$-1\r\n")
			}
			admin.send("PUBSUB NUMSUB a b\r\nPUBSUB NUMPAT\r\nPUBSUB SHARDNUMSUB s\r\nPUBLISH a x\r\n")
			admin.expect("*4\r\n$1\r\na\r\n:0\r\n$1\r\nb\r\n:0\r\n:0\r\n*2\r\n$1\r\ns\r\n:0\r\n:0\r\n")
			var clients int64
			srv.Do(func() { clients = srv.pubsub.clients.Load() })
			if clients != 0 {
				t.Fatalf("%s: %d subscribed clients counted", how, clients)
			}
		}
	})
}

// INFO stats counts channels, patterns and shard channels; CLIENT LIST
// shows a subscriber's sub, psub and ssub and the P flag.
func TestPubSubInfoAndClientList(t *testing.T) {
	srv := startServer(t, Config{})
	sub, admin := dialRaw(t, srv), dialRaw(t, srv)
	sub.send("SUBSCRIBE a b\r\nPSUBSCRIBE p*\r\nSSUBSCRIBE s1 s2 s3\r\n")
	for range 6 {
		if _, err := sub.rd.ReadString('\n'); err != nil { // the header of each frame
			t.Fatal(err)
		}
		for range 5 { // kind, name, count
			sub.rd.ReadString('\n')
		}
	}
	c := newRedisClient(t, srv)
	ctx := context.Background()
	info, err := c.Info(ctx, "stats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pubsub_channels:2\r\n", "pubsub_patterns:1\r\n", "pubsubshard_channels:3\r\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO stats lacks %q", want)
		}
	}
	list, err := c.ClientList(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		if strings.Contains(line, " flags=P ") {
			found = true
			if !strings.Contains(line, " sub=2 psub=1 ssub=3 ") {
				t.Errorf("subscriber's line: %s", line)
			}
		} else if !strings.Contains(line, " sub=0 psub=0 ssub=0 ") {
			t.Errorf("other client's line: %s", line)
		}
	}
	if !found {
		t.Errorf("no client with flags=P in %s", list)
	}
	admin.send("PING\r\n")
	admin.expect("+PONG\r\n")
}

// A subscriber that never reads is closed once its pending messages pass
// client-output-buffer-limit's pubsub class (hard, or soft for longer than
// its seconds), and the publisher goes on being served. Over both socket
// transports, and with Redis's default limits (Dial's in-memory pipe takes every byte written, so nothing
// waits in the server); the soft limit, which takes its seconds, over the
// event loop only.
func TestPubSubSlowSubscriberClosed(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		limit      string
		transports []string
	}{
		{"pubsub 1mb 0 0", []string{viaLoop, viaGoroutine}},
		{"pubsub 0 256kb 1", []string{viaLoop}},
		{"default", []string{viaLoop}}, // 32mb 8mb 60: the hard limit
	} {
		for _, tr := range tc.transports {
			t.Run(tc.limit+"/"+tr, func(t *testing.T) {
				useTransport(t, tr)
				srv := startServer(t, Config{})
				conn := func() *rawClient { return dialRaw(t, srv) }
				limit := tc.limit
				pub := conn()
				if limit != "default" {
					pub.send(respCommand("CONFIG", "SET", "client-output-buffer-limit", limit))
					pub.expect("+OK\r\n")
				}
				sub := conn()
				sub.send("SUBSCRIBE slow\r\n")
				sub.expect("*3\r\n$9\r\nsubscribe\r\n$4\r\nslow\r\n:1\r\n")
				msg := strings.Repeat("x", 64<<10)
				// Published until the subscriber is gone: the kernel's socket
				// buffers take a few megabytes before anything waits.
				closed := func() bool { return srv.CurrentConnectionCount() == 1 }
				deadline := time.Now().Add(testDeadline)
				sent := 0
				for !closed() {
					if time.Now().After(deadline) {
						t.Fatalf("subscriber not closed after %d messages", sent)
					}
					pub.send(respCommand("PUBLISH", "slow", msg))
					line, err := pub.rd.ReadString('\n')
					if err != nil || (line != ":1\r\n" && line != ":0\r\n") {
						t.Fatalf("PUBLISH: %q %v", line, err)
					}
					sent++
				}
				pub.send("PUBLISH slow x\r\nPUBSUB NUMSUB slow\r\n")
				pub.expect(":0\r\n*2\r\n$4\r\nslow\r\n:0\r\n")
				got, _ := io.ReadAll(sub.rd)
				if len(got) >= sent*len(msg) {
					t.Fatalf("the subscriber got all %d bytes", len(got))
				}
			})
		}
	}
}

// go-redis's PubSub, on both protocols: Subscribe, PSubscribe, Channel.
func TestPubSubGoRedis(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, _ func() *rawClient) {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
				opts := patient(&redis.Options{Addr: srv.Addr(), Protocol: proto, DisableIdentity: true})
				if transportOf(t) == viaDial {
					opts.Dialer = srv.DialContext
				}
				// The previous protocol's subscriber closed its connection
				// on return; the server may not have seen that yet.
				waitFor(t, "no subscriber left", func() bool {
					n := 0
					srv.Do(func() { n = len(srv.pubsub.channels) + len(srv.pubsub.patterns) })
					return n == 0
				})
				c := redis.NewClient(opts)
				defer c.Close()
				ctx := context.Background()
				ps := c.Subscribe(ctx, "events")
				defer ps.Close()
				if _, err := ps.Receive(ctx); err != nil { // the subscription
					t.Fatal(err)
				}
				if err := ps.PSubscribe(ctx, "ev*"); err != nil {
					t.Fatal(err)
				}
				waitFor(t, "the pattern subscription", func() bool {
					n := 0
					srv.Do(func() { n = len(srv.pubsub.patterns) })
					return n == 1
				})
				ch := ps.Channel()
				if n, err := c.Publish(ctx, "events", "hello").Result(); err != nil || n != 2 {
					t.Fatalf("PUBLISH: %d %v", n, err)
				}
				if n, err := c.Publish(ctx, "evening", "bye").Result(); err != nil || n != 1 {
					t.Fatalf("PUBLISH: %d %v", n, err)
				}
				var got []string
				for len(got) < 3 {
					select {
					case m := <-ch:
						got = append(got, m.Pattern+"|"+m.Channel+"|"+m.Payload)
					case <-time.After(testDeadline):
						t.Fatalf("messages: got %q", got)
					}
				}
				want := []string{"|events|hello", "ev*|events|hello", "ev*|evening|bye"}
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Fatalf("got %q, want %q", got, want)
				}
				if n, err := c.PubSubNumSub(ctx, "events").Result(); err != nil || n["events"] != 1 {
					t.Fatalf("NUMSUB: %v %v", n, err)
				}
			})
		}
	})
}

// A publisher on one transport reaches subscribers on the others: Dial's
// goroutine publishing to the event loop's connections goes through their
// inboxes and wakes the loop, and the loop publishing to a Dial subscriber
// wakes its goroutine.
func TestPubSubAcrossTransports(t *testing.T) {
	srv := startServer(t, Config{})
	loopSub, dialSub := dialRawOver(t, srv, viaLoop), dialRawOver(t, srv, viaDial)
	loopPub, dialPub := dialRawOver(t, srv, viaLoop), dialRawOver(t, srv, viaDial)
	for _, sub := range []*rawClient{loopSub, dialSub} {
		sub.send("SUBSCRIBE x\r\n")
		sub.expect("*3\r\n$9\r\nsubscribe\r\n$1\r\nx\r\n:1\r\n")
	}
	for i, pub := range []*rawClient{dialPub, loopPub, dialPub} {
		m := fmt.Sprintf("m%d", i)
		pub.send("PUBLISH x " + m + "\r\n")
		pub.expect(":2\r\n")
		for _, sub := range []*rawClient{loopSub, dialSub} {
			sub.expect("*3\r\n$7\r\nmessage\r\n$1\r\nx\r\n$2\r\n" + m + "\r\n")
		}
	}
}

// TestPubSubStalledSubscriberStallsNoOne: a subscriber that never reads,
// with no pubsub output limit to close it, holds megabytes of messages in
// the server while a fan-out goes on: the publisher, the subscribers that
// read and another client are all served meanwhile (each PUBLISH answered
// with every subscriber counted, a PING answered between them, every
// message delivered), and the stalled subscriber is still there.
func TestPubSubStalledSubscriberStallsNoOne(t *testing.T) {
	parallel(t)
	for _, tr := range []string{viaLoop, viaGoroutine} {
		t.Run(tr, func(t *testing.T) {
			useTransport(t, tr)
			srv := startServer(t, Config{})
			pub, other := dialRaw(t, srv), dialRaw(t, srv)
			pub.send(respCommand("CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 0 0"))
			pub.expect("+OK\r\n")
			stalled := dialRaw(t, srv)
			stalled.send("CLIENT SETNAME stalled\r\nSUBSCRIBE ch\r\n")
			stalled.expect("+OK\r\n*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n")
			const readers = 2
			var got [readers]atomic.Int64
			for i := range readers {
				r := dialRaw(t, srv)
				r.send("SUBSCRIBE ch\r\n")
				r.expect("*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n")
				go func() {
					buf := make([]byte, 64<<10)
					for {
						n, err := r.c.Read(buf)
						got[i].Add(int64(n))
						if err != nil {
							return
						}
					}
				}()
			}
			// held is what the server holds for the stalled subscriber:
			// its reply list and its inbox.
			held := func() (n int64) {
				srv.Do(func() {
					for _, c := range srv.clientsByID() {
						if c.name == "stalled" && c.conn != nil {
							n = c.conn.omem.Load() + int64(c.conn.pendingPushes())
						}
					}
				})
				return n
			}
			msg := strings.Repeat("x", 64<<10)
			frame := int64(len(fmt.Sprintf("*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$%d\r\n%s\r\n", len(msg), msg)))
			sent := int64(0)
			deadline := time.Now().Add(testDeadline)
			for held() < 4<<20 {
				if time.Now().After(deadline) {
					t.Fatalf("after %d messages the server holds %d bytes for the stalled subscriber", sent, held())
				}
				pub.send(respCommand("PUBLISH", "ch", msg))
				pub.expect(":3\r\n")
				sent++
				other.send("PING\r\n")
				other.expect("+PONG\r\n")
			}
			waitFor(t, "the reading subscribers", func() bool {
				for i := range readers {
					if got[i].Load() != sent*frame {
						return false
					}
				}
				return true
			})
			other.send("PUBSUB NUMSUB ch\r\n")
			other.expect("*2\r\n$2\r\nch\r\n:3\r\n")
		})
	}
}

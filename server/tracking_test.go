package server

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/store"
)

// invalidation is the RESP3 push of one key's invalidation.
func invalidation(key string) string {
	return fmt.Sprintf(">2\r\n$10\r\ninvalidate\r\n*1\r\n$%d\r\n%s\r\n", len(key), key)
}

// readInvalidatedKey reads one single-key invalidation push and returns
// its key.
func readInvalidatedKey(t *testing.T, c *rawClient) string {
	t.Helper()
	c.expect(">2\r\n$10\r\ninvalidate\r\n*1\r\n")
	line, err := c.rd.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "$") {
		t.Fatalf("invalidation key: %q %v", line, err)
	}
	key, err := c.rd.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(key, "\r\n")
}

// Expired keys invalidate, lazily (on access, the tracking client's own
// after its reply, as Redis's pending invalidations) and actively, on a
// manual clock so the expiry is not a matter of timing; on every transport.
func TestTrackingExpiry(t *testing.T) {
	clock := store.NewManualClock(time.UnixMilli(1700000000000))
	forEachTransportWith(t, Config{Clock: clock}, func(t *testing.T, srv *Server, conn func() *rawClient) {
		tracker, writer := conn(), conn()
		tracker.send("HELLO 3\r\n")
		readReply(t, tracker)
		tracker.send("CLIENT TRACKING on\r\n")
		tracker.expect("+OK\r\n")
		writer.send("SET own v PX 1000\r\nSET other v PX 1000\r\nSET active v PX 1000\r\n")
		writer.expect("+OK\r\n+OK\r\n+OK\r\n")
		tracker.send("MGET own other active\r\n")
		tracker.expect("*3\r\n$1\r\nv\r\n$1\r\nv\r\n$1\r\nv\r\n")

		clock.Add(2 * time.Second)
		// The tracking client's own read expires the key: the reply first,
		// then the invalidation (and the key is tracked again).
		tracker.send("GET own\r\n")
		tracker.expect("_\r\n" + invalidation("own"))
		// Another client's read expires it: the invalidation at once.
		writer.send("GET other\r\n")
		writer.expect("$-1\r\n")
		tracker.expect(invalidation("other"))
		// Active expiry (the cron's, or this one, whichever comes first).
		srv.ExpireNow()
		tracker.expect(invalidation("active"))
		tracker.send("PING\r\n")
		tracker.expect("+PONG\r\n")
		var keys int
		srv.Do(func() { keys = len(srv.tracking.keys) })
		if keys != 1 { // "own", remembered again by the GET that expired it
			t.Errorf("tracking table has %d keys, want 1", keys)
		}
	})
}

// Evicted keys invalidate, as Redis's performEvictions signals each one.
func TestTrackingEviction(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		tracker, writer := conn(), conn()
		tracker.send("HELLO 3\r\n")
		readReply(t, tracker)
		tracker.send("CLIENT TRACKING on\r\n")
		tracker.expect("+OK\r\n")
		var want []string
		for i := range 10 {
			key := fmt.Sprintf("k%d", i)
			want = append(want, key)
			writer.send("SET " + key + " v\r\n")
			writer.expect("+OK\r\n")
			tracker.send("GET " + key + "\r\n")
			tracker.expect("$1\r\nv\r\n")
		}
		writer.send("CONFIG SET maxmemory-policy allkeys-random\r\nCONFIG SET maxmemory 1\r\n")
		writer.expect("+OK\r\n+OK\r\n")
		writer.send("GET k0\r\n") // evicts everything first
		writer.expect("$-1\r\n")
		var got []string
		for range want {
			got = append(got, readInvalidatedKey(t, tracker))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("invalidated %q, want %q", got, want)
		}
		writer.send("CONFIG SET maxmemory 0\r\n")
		writer.expect("+OK\r\n")
	})
}

// A tracking client that goes away leaves tracking_clients and its BCAST
// prefixes at once, whether it closes its connection or is killed.
func TestTrackingClientGone(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		counts := func() (clients, prefixes int) {
			srv.Do(func() { clients, prefixes = srv.tracking.clients, len(srv.tracking.prefixes) })
			return
		}
		closer, killed, admin := conn(), conn(), conn()
		closer.send("CLIENT TRACKING on BCAST PREFIX a\r\n")
		closer.expect("+OK\r\n")
		killed.send("CLIENT TRACKING on BCAST PREFIX b\r\nCLIENT ID\r\n")
		killed.expect("+OK\r\n")
		line, _ := killed.rd.ReadString('\n')
		if c, p := counts(); c != 2 || p != 2 {
			t.Fatalf("tracking clients %d, prefixes %d, want 2 and 2", c, p)
		}
		admin.send("CLIENT KILL ID " + strings.TrimSpace(line[1:]) + "\r\n")
		admin.expect(":1\r\n")
		if c, p := counts(); c != 1 || p != 1 {
			t.Errorf("after CLIENT KILL: tracking clients %d, prefixes %d, want 1 and 1", c, p)
		}
		closer.c.Close()
		waitFor(t, "the closed tracking client gone", func() bool { c, p := counts(); return c == 0 && p == 0 })
	})
}

// Pipelined writes of a BCAST client are broadcast once, after the batch,
// as Redis's beforeSleep sends them: one message with every key.
func TestTrackingBroadcastPerBatch(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		c := conn()
		c.send("HELLO 3\r\n")
		readReply(t, c)
		c.send("CLIENT TRACKING on BCAST\r\n")
		c.expect("+OK\r\n")
		c.send("SET b 1\r\nSET a 1\r\nSET b 2\r\n")
		c.expect("+OK\r\n+OK\r\n+OK\r\n>2\r\n$10\r\ninvalidate\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n")
	})
}

//go:build unix

package ratelimit

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

// pollingPair is a loopback TCP connection wrapped by busyPollConn (on two
// CPUs, whatever this machine has) and the peer's end of it.
func pollingPair(t *testing.T, spin time.Duration) (*pollingConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	if peer == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); peer.Close() })
	pc, ok := busyPollConn(c, spin, 2).(*pollingConn)
	if !ok {
		t.Fatal("a TCP connection on two CPUs was not wrapped")
	}
	return pc, peer
}

// TestBusyPollReads: what the peer sends arrives whole and in order however
// it is split, end of file is io.EOF, and a read error is the socket's.
func TestBusyPollReads(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spin   time.Duration
		pieces []string
	}{
		{"one packet", time.Millisecond, []string{"+PONG\r\n"}},
		{"split across packets", time.Millisecond, []string{"$5\r\n", "he", "llo\r\n"}},
		// A spin shorter than the gaps: every read after the first parks.
		{"split, spin shorter than the gaps", time.Microsecond, []string{"$5\r\n", "he", "llo\r\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, peer := pollingPair(t, tc.spin)
			go func() {
				buf := make([]byte, 64)
				if _, err := peer.Read(buf); err != nil {
					return
				}
				for _, p := range tc.pieces {
					peer.Write([]byte(p))
					time.Sleep(2 * time.Millisecond) // separate packets, not a wait for anything
				}
				peer.Close()
			}()
			if _, err := c.Write([]byte("PING\r\n")); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(c)
			if err != nil {
				t.Fatalf("ReadAll: %v (want the pieces, then EOF)", err)
			}
			want := ""
			for _, p := range tc.pieces {
				want += p
			}
			if string(got) != want {
				t.Errorf("read %q, want %q", got, want)
			}
		})
	}
}

func TestBusyPollEOFAndReset(t *testing.T) {
	c, peer := pollingPair(t, time.Millisecond)
	c.Write([]byte("x"))
	peer.Read(make([]byte, 1)) // unread bytes would make the close a reset
	peer.Close()
	if n, err := c.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Errorf("after the peer closed: %d, %v; want 0, io.EOF", n, err)
	}

	c, peer = pollingPair(t, time.Millisecond)
	peer.(*net.TCPConn).SetLinger(0) // close with a reset
	c.Write([]byte("x"))
	peer.Close()
	_, err := c.Read(make([]byte, 8))
	var op *net.OpError
	if !errors.As(err, &op) || !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("after a reset: %v; want a *net.OpError of ECONNRESET", err)
	}
}

// TestBusyPollPeerNeverAnswers: the read deadline is the connection's as
// ever, the poll costs at most its spin before the read parks, and a Close
// ends a read that waits.
func TestBusyPollPeerNeverAnswers(t *testing.T) {
	c, _ := pollingPair(t, 2*time.Millisecond)
	c.Write([]byte("PING\r\n"))
	const wait = 300 * time.Millisecond
	c.SetReadDeadline(time.Now().Add(wait))
	cpu0 := processCPU()
	start := time.Now()
	_, err := c.Read(make([]byte, 8))
	elapsed, cpu := time.Since(start), processCPU()-cpu0
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past the deadline: %v; want a timeout", err)
	}
	if elapsed < wait {
		t.Errorf("the read gave up after %v, before its %v deadline", elapsed, wait)
	}
	// Spinning to the deadline would cost ~300 ms of CPU; parking after 2 ms
	// costs a few.
	if cpu > wait/2 {
		t.Errorf("the read took %v of CPU waiting %v: it did not park after its spin", cpu, elapsed)
	}

	c.SetReadDeadline(time.Time{})
	c.Write([]byte("PING\r\n"))
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 8))
		done <- err
	}()
	c.Close()
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Errorf("read when closed: %v; want net.ErrClosed", err)
	}
}

func TestBusyPollNotWrapped(t *testing.T) {
	c, _ := pollingPair(t, time.Millisecond)
	plain := c.NetConn()
	for _, tc := range []struct {
		name string
		spin time.Duration
		cpus int
		conn net.Conn
	}{
		{"spin 0", 0, 2, plain},
		{"negative spin", -time.Second, 2, plain},
		// On one CPU a spin only keeps the peer from answering.
		{"one CPU", time.Millisecond, 1, plain},
		{"no file descriptor", time.Millisecond, 2, fdless{plain}},
	} {
		if got := busyPollConn(tc.conn, tc.spin, tc.cpus); got != tc.conn {
			t.Errorf("%s: wrapped (%T), want the connection itself", tc.name, got)
		}
	}
}

// fdless hides the connection's syscall.Conn.
type fdless struct{ net.Conn }

// TestBusyPollStore: a store client with BusyPoll talks to floodgate
// through the poll, and go-redis's pool check still sees the socket.
func TestBusyPollStore(t *testing.T) {
	store := servertest.RunT(t)
	c, err := NewStoreClient(store.Addr(), StoreOptions{BusyPoll: 50 * time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	conn, err := c.(*redis.Client).Options().Dialer(ctx, "tcp", store.Addr())
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if _, ok := conn.(*pollingConn); !ok {
		t.Fatalf("the store's dialer gave a %T, not the polling connection", conn)
	}
	for i := range 50 {
		if n, err := c.Incr(ctx, "busy").Result(); err != nil || n != int64(i+1) {
			t.Fatalf("INCR %d: %d, %v", i+1, n, err)
		}
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

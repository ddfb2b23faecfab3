package server

import (
	"bufio"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
)

// forEachTransport runs test against a fresh server for each transport,
// since each serves a blocked client its own way (the event loop's woken
// list, a goroutine's interrupted read); conn opens one more client
// connection.
func forEachTransport(t *testing.T, test func(t *testing.T, srv *Server, conn func() *rawClient)) {
	forEachTransportWith(t, Config{}, test)
}

// forEachTransportWith is forEachTransport for servers configured by cfg.
func forEachTransportWith(t *testing.T, cfg Config, test func(t *testing.T, srv *Server, conn func() *rawClient)) {
	for _, tr := range []string{viaLoop, viaGoroutine, viaDial} {
		t.Run(tr, func(t *testing.T) {
			useTransport(t, tr)
			srv := startServer(t, cfg)
			test(t, srv, func() *rawClient { return dialRaw(t, srv) })
		})
	}
}

// waitBlocked waits until n clients are blocked.
func waitBlocked(t *testing.T, srv *Server, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d blocked clients", n), func() bool {
		var count int
		srv.Do(func() { count = srv.blocking.count })
		return count == n
	})
}

func TestBlockingServedByPush(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		waiter, pusher := conn(), conn()
		waiter.send("BLPOP l 0\r\n")
		waitBlocked(t, srv, 1)
		pusher.send("PING\r\nRPUSH l x\r\n") // the server goes on serving others
		pusher.expect("+PONG\r\n:1\r\n")
		waiter.expect("*2\r\n$1\r\nl\r\n$1\r\nx\r\n")
		waitBlocked(t, srv, 0)
		pusher.send("EXISTS l\r\n")
		pusher.expect(":0\r\n")
	})
}

// A blocked client's pipelined requests wait for it, in order, and run
// once it is served.
func TestBlockingPipelinedInputWaits(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		waiter, pusher := conn(), conn()
		waiter.send("BLPOP l 0\r\nRPUSH l mine\r\nLRANGE l 0 -1\r\n")
		waitBlocked(t, srv, 1)
		waiter.send("PING\r\n") // arrives while blocked
		pusher.send("LLEN l\r\n")
		pusher.expect(":0\r\n")
		pusher.send("RPUSH l a\r\n")
		pusher.expect(":1\r\n")
		waiter.expect("*2\r\n$1\r\nl\r\n$1\r\na\r\n:1\r\n*1\r\n$4\r\nmine\r\n+PONG\r\n")
		// Blocking again after being woken works the same.
		waiter.send("BRPOP l 0\r\nBRPOP l 0\r\nPING\r\n")
		waiter.expect("*2\r\n$1\r\nl\r\n$4\r\nmine\r\n")
		waitBlocked(t, srv, 1)
		pusher.send("LPUSH l b\r\n")
		pusher.expect(":1\r\n")
		waiter.expect("*2\r\n$1\r\nl\r\n$1\r\nb\r\n+PONG\r\n")
	})
}

// A blocked client's input waits in its query buffer, under the same
// limit as any: past it the client is closed, as Redis closes it, and its
// wait is forgotten.
func TestBlockingQueryBufferLimit(t *testing.T) {
	forEachTransportWith(t, Config{QueryBufferLimit: 1024}, func(t *testing.T, srv *Server, conn func() *rawClient) {
		waiter := conn()
		waiter.send("PING\r\nBLPOP l 0\r\n")
		waiter.expect("+PONG\r\n") // the replies before it go out
		waitBlocked(t, srv, 1)
		waiter.send("ECHO " + strings.Repeat("x", 600) + "\r\n")
		waiter.send("ECHO " + strings.Repeat("y", 600) + "\r\n")
		waiter.expectClosed()
		waitBlocked(t, srv, 0)
	})
}

// A blocked client that goes away is forgotten at once: a later push is
// not popped for it.
func TestBlockingDisconnectLeavesNothing(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		waiter, pusher := conn(), conn()
		waiter.send("BLPOP l 0\r\n")
		waitBlocked(t, srv, 1)
		waiter.c.Close()
		waitBlocked(t, srv, 0)
		pusher.send("RPUSH l a\r\nLLEN l\r\n")
		pusher.expect(":1\r\n:1\r\n")
	})
}

func TestBlockingTimeout(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		waiter := conn()
		waiter.send("BLPOP l 0.02\r\nBLMOVE l d LEFT LEFT 0.01\r\nBZPOPMIN z 0.01\r\nPING\r\n")
		waiter.expect("*-1\r\n*-1\r\n*-1\r\n+PONG\r\n")
		waitBlocked(t, srv, 0)
	})
}

func TestBlockingClientUnblock(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		waiter, other := conn(), conn()
		waiter.send("CLIENT ID\r\n")
		line, err := waiter.rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		id := strings.TrimSpace(line[1:])
		waiter.send("BLPOP l 0\r\n")
		waitBlocked(t, srv, 1)
		other.send("CLIENT UNBLOCK " + id + " ERROR\r\n")
		other.expect(":1\r\n")
		waiter.expect("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n")
		// As Redis 7.0.15: BLPOP was called once, when it blocked, and
		// failed once it answered the error.
		var st cmdStat
		srv.Do(func() { st = srv.stats[commandTable.lookup([]byte("blpop")).id] })
		if st.calls != 1 || st.failed != 1 {
			t.Errorf("BLPOP commandstats: %d calls, %d failed; want 1 and 1", st.calls, st.failed)
		}
	})
}

// Many clients block on one key while another pushes one element at a
// time: every element reaches exactly one client, in the order they
// blocked.
func TestBlockingManyWaiters(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		const n = 16
		waiters := make([]*rawClient, n)
		for i := range waiters {
			waiters[i] = conn()
			waiters[i].send("BLPOP q 0\r\n")
			waitBlocked(t, srv, i+1)
		}
		pusher := conn()
		for i := range n {
			pusher.send(fmt.Sprintf("RPUSH q e%d\r\n", i))
			pusher.expect(":1\r\n") // served at once: the list is empty again
		}
		var mu sync.Mutex
		var got []string
		var wg sync.WaitGroup
		for i, w := range waiters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				want := fmt.Sprintf("e%d", i)
				reply := fmt.Sprintf("*2\r\n$1\r\nq\r\n$%d\r\n%s\r\n", len(want), want)
				buf := make([]byte, len(reply))
				if _, err := readFull(w.rd, buf); err != nil || string(buf) != reply {
					t.Errorf("waiter %d: %q %v, want %q", i, buf, err, reply)
				}
				mu.Lock()
				got = append(got, want)
				mu.Unlock()
			}()
		}
		wg.Wait()
		sort.Strings(got)
		if len(got) != n {
			t.Fatalf("%d replies, want %d", len(got), n)
		}
		waitBlocked(t, srv, 0)
	})
}

func readFull(rd *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := rd.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func TestBlockingClientKilled(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		waiter, other := conn(), conn()
		waiter.send("CLIENT ID\r\n")
		line, err := waiter.rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		waiter.send("BLPOP l 0\r\n")
		waitBlocked(t, srv, 1)
		other.send("CLIENT KILL ID " + strings.TrimSpace(line[1:]) + "\r\n")
		other.expect(":1\r\n")
		waiter.expectClosed()
		waitBlocked(t, srv, 0)
		other.send("RPUSH l a\r\nLLEN l\r\n")
		other.expect(":1\r\n:1\r\n")
	})
}

// Closing the server closes a blocked client's connection too.
func TestBlockingServerClose(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		waiter := conn()
		waiter.send("BLPOP l 0\r\n")
		waitBlocked(t, srv, 1)
		closed := make(chan error)
		go func() { closed <- srv.Close() }()
		waiter.expectClosed()
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
	})
}

// Waiters with short timeouts race pushers: every element pushed is
// popped by exactly one waiter or is still in the list at the end, and a
// waiter that times out gets a null array.
func TestBlockingRaceNoElementLost(t *testing.T) {
	forEachTransport(t, func(t *testing.T, srv *Server, conn func() *rawClient) {
		const waiters, rounds, pushes = 6, 30, 120
		var mu sync.Mutex
		seen := map[string]int{}
		var wg sync.WaitGroup
		for i := range waiters {
			w := conn()
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range rounds {
					w.send(fmt.Sprintf("BLPOP q 0.00%d\r\n", 1+(i+r)%5))
					line, err := w.rd.ReadString('\n')
					if err != nil {
						t.Error(err)
						return
					}
					if line == "*-1\r\n" {
						continue
					}
					w.rd.ReadString('\n') // $1
					w.rd.ReadString('\n') // q
					w.rd.ReadString('\n') // $n
					v, _ := w.rd.ReadString('\n')
					mu.Lock()
					seen[strings.TrimSpace(v)]++
					mu.Unlock()
				}
			}()
		}
		pusher := conn()
		for i := range pushes {
			pusher.send(fmt.Sprintf("RPUSH q e%d\r\n", i))
			if _, err := pusher.rd.ReadString('\n'); err != nil {
				t.Fatal(err)
			}
		}
		wg.Wait()
		pusher.send("LRANGE q 0 -1\r\n")
		line, _ := pusher.rd.ReadString('\n')
		var left int
		fmt.Sscanf(line, "*%d", &left)
		for range left {
			pusher.rd.ReadString('\n')
			v, _ := pusher.rd.ReadString('\n')
			seen[strings.TrimSpace(v)]++
		}
		for i := range pushes {
			if n := seen[fmt.Sprintf("e%d", i)]; n != 1 {
				t.Errorf("e%d seen %d times", i, n)
			}
		}
		waitBlocked(t, srv, 0)
	})
}

// Command trackload measures the cost of client-side caching on a GET/SET
// load: -clients connections speak RESP3 and, with -tracking on (or bcast),
// turn CLIENT TRACKING on, then together send -n requests, GET or (one in
// -set-every) SET of a random key of -keys, one at a time per connection,
// reading every invalidation pushed to them. It prints requests/s, the
// server's on-CPU µs per request (from /proc/PID/task/*/schedstat, as
// scripts/measure.sh) and the invalidations received per request.
// scripts/bench-tracking.sh runs it beside Redis.
//
//	go run ./scripts/trackload -addr 127.0.0.1:6379 -pid 1234 -tracking on
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate/floodgate/scripts/internal/schedstat"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	pid := flag.Int("pid", 0, "the server's process id, for its CPU time")
	clients := flag.Int("clients", 50, "connections")
	n := flag.Int("n", 200000, "requests in all")
	keys := flag.Int("keys", 10000, "keys")
	setEvery := flag.Int("set-every", 10, "one request in this many is a SET")
	mode := flag.String("tracking", "off", "off, on or bcast")
	flag.Parse()

	// Every key exists, so that GETs find (and track) something.
	prep, err := dial(*addr, "off")
	if err != nil {
		fail(err)
	}
	prep.send("FLUSHALL")
	prep.reply()
	for i := range *keys {
		prep.send("SET", key(i), "value")
	}
	for range *keys {
		prep.reply()
	}
	prep.c.Close()

	conns := make([]*conn, *clients)
	for i := range conns {
		if conns[i], err = dial(*addr, *mode); err != nil {
			fail(err)
		}
	}
	var next, pushes atomic.Int64
	var wg sync.WaitGroup
	before := schedstat.CPU(*pid)
	start := time.Now()
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for next.Add(1) <= int64(*n) {
				k := key(rng.IntN(*keys))
				if rng.IntN(*setEvery) == 0 {
					c.send("SET", k, "value")
				} else {
					c.send("GET", k)
				}
				pushes.Add(c.reply())
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	after := schedstat.CPU(*pid)
	fmt.Printf("%.0f %.3f %.4f\n", float64(*n)/elapsed.Seconds(), float64((after-before).Microseconds())/float64(*n), float64(pushes.Load())/float64(*n))
}

func key(i int) string { return "key:" + strconv.Itoa(i) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "trackload:", err)
	os.Exit(1)
}

type conn struct {
	c  net.Conn
	rd *bufio.Reader
	wr *bufio.Writer
}

func dial(addr, mode string) (*conn, error) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	c := &conn{c: nc, rd: bufio.NewReader(nc), wr: bufio.NewWriter(nc)}
	c.send("HELLO", "3")
	c.reply()
	switch mode {
	case "on":
		c.send("CLIENT", "TRACKING", "on")
		c.reply()
	case "bcast":
		c.send("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "key:")
		c.reply()
	}
	return c, nil
}

func (c *conn) send(args ...string) {
	fmt.Fprintf(c.wr, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(c.wr, "$%d\r\n%s\r\n", len(a), a)
	}
	c.wr.Flush()
}

// reply reads one reply, skipping the pushes before it; it returns how
// many pushes it skipped.
func (c *conn) reply() int64 {
	var pushes int64
	for {
		line, err := c.rd.ReadString('\n')
		if err != nil {
			fail(err)
		}
		if line[0] == '>' {
			pushes++
			c.skip(line)
			continue
		}
		c.skip(line)
		return pushes
	}
}

// skip reads the rest of the value whose first line is line.
func (c *conn) skip(line string) {
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	switch line[0] {
	case '$', '=', '!':
		if n >= 0 {
			if _, err := c.rd.Discard(n + 2); err != nil {
				fail(err)
			}
		}
	case '*', '~', '>', '%', '|':
		if line[0] == '%' || line[0] == '|' {
			n *= 2
		}
		for range max(n, 0) {
			l, err := c.rd.ReadString('\n')
			if err != nil {
				fail(err)
			}
			c.skip(l)
		}
	}
}

// Command authguess measures what wrong AUTH guesses cost a server: one
// connection sends -n guesses of -user's password (AUTH pass, or AUTH
// user pass with -user), -depth of them in flight at once, and checks
// each is refused. It prints guesses/s and the server's on-CPU µs per
// guess (from /proc/PID/task/*/schedstat, as scripts/measure.sh).
// scripts/bench-auth.sh runs it beside Redis.
//
//	go run ./scripts/authguess -addr 127.0.0.1:6379 -pid 1234 -depth 16
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/floodgate/floodgate/scripts/internal/schedstat"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	pid := flag.Int("pid", 0, "the server's process id, for its CPU time")
	n := flag.Int("n", 500000, "guesses in all")
	depth := flag.Int("depth", 16, "guesses in flight")
	user := flag.String("user", "", "the user guessed at (AUTH user pass); none: AUTH pass")
	flag.Parse()

	conn, err := net.Dial("tcp", *addr)
	if err != nil {
		fail(err)
	}
	defer conn.Close()
	r := bufio.NewReaderSize(conn, 64<<10)
	// One batch of depth guesses, each a different wrong password of the
	// same length, as a guesser would send them.
	var batch bytes.Buffer
	for i := 0; i < *depth; i++ {
		pass := fmt.Sprintf("guess-%010d", i)
		if *user != "" {
			fmt.Fprintf(&batch, "*3\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(*user), *user, len(pass), pass)
		} else {
			fmt.Fprintf(&batch, "*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n", len(pass), pass)
		}
	}
	before := schedstat.CPU(*pid)
	start := time.Now()
	sent := 0
	for sent < *n {
		if _, err := conn.Write(batch.Bytes()); err != nil {
			fail(err)
		}
		for i := 0; i < *depth; i++ {
			line, err := r.ReadString('\n')
			if err != nil {
				fail(err)
			}
			if !strings.HasPrefix(line, "-WRONGPASS") && !strings.HasPrefix(line, "-ERR invalid password") {
				fail(fmt.Errorf("a wrong guess answered %q", line))
			}
		}
		sent += *depth
	}
	elapsed := time.Since(start)
	used := schedstat.CPU(*pid) - before
	fmt.Printf("%.0f %.3f\n", float64(sent)/elapsed.Seconds(), float64(used.Microseconds())/float64(sent))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "authguess:", err)
	os.Exit(1)
}

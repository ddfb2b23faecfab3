package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server"
)

var (
	redisAddr     string
	floodgateAddr string

	countsMu sync.Mutex
	counts   = map[string]int{} // comparisons per command name
)

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	redisAddr, floodgateAddr = os.Getenv("REDIS_ADDR"), os.Getenv("FLOODGATE_ADDR")
	if redisAddr == "" {
		dir, err := os.MkdirTemp("", "floodgate-conformance-")
		if err != nil {
			return 1, err
		}
		defer os.RemoveAll(dir)
		redis, err := redistest.Launch(dir, nil)
		if err != nil {
			return 1, err
		}
		defer redis.Stop()
		redisAddr = redis.Addr
	}
	if floodgateAddr == "" {
		srv := server.New(server.Config{Addr: "127.0.0.1:0"})
		if err := srv.Start(); err != nil {
			return 1, err
		}
		defer srv.Close()
		floodgateAddr = srv.Addr()
	}
	code := m.Run()
	printCounts()
	return code, nil
}

func printCounts() {
	countsMu.Lock()
	defer countsMu.Unlock()
	names := make([]string, 0, len(counts))
	total := 0
	for n, c := range counts {
		names = append(names, n)
		total += c
	}
	sort.Strings(names)
	fmt.Printf("conformance: %d comparisons against real Redis across %d commands (cases run under RESP2 and RESP3)\n", total, len(names))
	if !testing.Verbose() {
		return
	}
	var b strings.Builder
	for i, n := range names {
		fmt.Fprintf(&b, "  %-22s %4d", n, counts[n])
		if i%4 == 3 {
			b.WriteString("\n")
		}
	}
	fmt.Println(b.String())
}

// rawConn is a minimal RESP client that returns replies as raw bytes.
type rawConn struct {
	c  net.Conn
	rd *bufio.Reader
}

func dialRaw(addr string) (*rawConn, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return &rawConn{c: c, rd: bufio.NewReader(c)}, nil
}

func (r *rawConn) close() { r.c.Close() }

// send writes one command as a multibulk request.
func (r *rawConn) send(args ...string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return r.sendRaw(b.Bytes())
}

func (r *rawConn) sendRaw(p []byte) error {
	r.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := r.c.Write(p)
	return err
}

// read returns one complete reply, nested arrays included, as raw bytes.
func (r *rawConn) read() ([]byte, error) {
	r.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var out bytes.Buffer
	err := r.readInto(&out)
	return out.Bytes(), err
}

func (r *rawConn) readInto(out *bytes.Buffer) error {
	line, err := r.rd.ReadBytes('\n')
	out.Write(line)
	if err != nil {
		return err
	}
	if len(line) < 3 {
		return fmt.Errorf("short reply line %q", line)
	}
	n, _ := strconv.Atoi(string(line[1 : len(line)-2]))
	switch line[0] {
	case '$', '=', '!':
		if n < 0 {
			return nil
		}
		buf := make([]byte, n+2)
		if _, err := io_ReadFull(r.rd, buf); err != nil {
			return err
		}
		out.Write(buf)
	case '*', '~', '>':
		for i := 0; i < n; i++ {
			if err := r.readInto(out); err != nil {
				return err
			}
		}
	case '%', '|':
		for i := 0; i < 2*n; i++ {
			if err := r.readInto(out); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *rawConn) do(args ...string) ([]byte, error) {
	if err := r.send(args...); err != nil {
		return nil, err
	}
	return r.read()
}

package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
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
	// floodgateDialAddr is a second in-process floodgate, reached by Dial
	// instead of TCP, so that every case runs on both transports (the event
	// loop and the goroutine transport); "" with FLOODGATE_ADDR.
	floodgateDialAddr string

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
		// SAVE and BGSAVE write here, never into the source tree.
		rdbDir, err := os.MkdirTemp("", "floodgate-conformance-rdb-")
		if err != nil {
			return 1, err
		}
		defer os.RemoveAll(rdbDir)
		for _, sub := range []string{"tcp", "dial"} {
			if err := os.Mkdir(filepath.Join(rdbDir, sub), 0o755); err != nil {
				return 1, err
			}
		}
		// The TCP server's event loop keeps a processor, as the binary's does.
		srv := server.New(server.Config{Addr: "127.0.0.1:0", Dir: filepath.Join(rdbDir, "tcp"), LoopOwnsProcessor: true})
		if err := srv.Start(); err != nil {
			return 1, err
		}
		defer srv.Close()
		floodgateAddr = srv.Addr()
		dialSrv := server.New(server.Config{Addr: "127.0.0.1:0", Dir: filepath.Join(rdbDir, "dial")})
		if err := dialSrv.Start(); err != nil {
			return 1, err
		}
		defer dialSrv.Close()
		floodgateDialAddr = dialAddrOf(dialSrv)
		saveDirs[floodgateAddr] = filepath.Join(rdbDir, "tcp")
		saveDirs[floodgateDialAddr] = filepath.Join(rdbDir, "dial")
	}
	code := m.Run()
	printCounts()
	runAtExit()
	return code, nil
}

// exitFuncs stop what the package's tests share (atExit), last first.
var exitFuncs struct {
	sync.Mutex
	fns []func()
}

// atExit has f run when the package's tests have ended.
func atExit(f func()) {
	exitFuncs.Lock()
	defer exitFuncs.Unlock()
	exitFuncs.fns = append(exitFuncs.fns, f)
}

func runAtExit() {
	exitFuncs.Lock()
	defer exitFuncs.Unlock()
	for i := len(exitFuncs.fns) - 1; i >= 0; i-- {
		exitFuncs.fns[i]()
	}
}

// floodgates returns the floodgate addresses each comparison runs on: TCP,
// and Dial when floodgate runs in process.
func floodgates() []string {
	if floodgateDialAddr == "" {
		return []string{floodgateAddr}
	}
	return []string{floodgateAddr, floodgateDialAddr}
}

// An address with dialPrefix names an in-process server reached by its
// Dial method (dialAddrOf).
const dialPrefix = "dial:"

var dialServers sync.Map // address → *server.Server

// saveDirs are the in-process servers' directories for SAVE: CONFIG GET
// dir answers the process's working directory, which they share.
var saveDirs = map[string]string{}

// dialAddrOf returns an address for srv that dialConn reaches by Dial.
func dialAddrOf(srv *server.Server) string {
	addr := dialPrefix + srv.Addr()
	dialServers.Store(addr, srv)
	return addr
}

// dialConn connects to addr over TCP, or in memory for a dialAddrOf address.
func dialConn(addr string) (net.Conn, error) {
	if strings.HasPrefix(addr, dialPrefix) {
		srv, ok := dialServers.Load(addr)
		if !ok {
			return nil, fmt.Errorf("no in-process server at %s", addr)
		}
		return srv.(*server.Server).Dial()
	}
	return net.DialTimeout("tcp", addr, 10*time.Second)
}

// transportName says which transport a floodgate address is served by.
func transportName(addr string) string {
	if strings.HasPrefix(addr, dialPrefix) {
		return "floodgate over Dial"
	}
	return "floodgate"
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
	c, err := dialConn(addr)
	if err != nil {
		return nil, err
	}
	return &rawConn{c: c, rd: bufio.NewReader(c)}, nil
}

func (r *rawConn) close() { r.c.Close() }

// dialHello connects to addr and says HELLO proto; the caller closes.
func dialHello(t *testing.T, addr, proto string) *rawConn {
	t.Helper()
	c, err := dialRaw(addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.do("HELLO", proto); err != nil {
		c.close()
		t.Fatal(err)
	}
	return c
}

// send writes one command as a multibulk request.
func (r *rawConn) send(args ...string) error {
	return r.sendRaw([]byte(multibulk(args)))
}

// multibulk encodes a command as a multibulk request.
func multibulk(args []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
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

// setEverywhere sends a CONFIG SET line to Redis and every floodgate.
func setEverywhere(t *testing.T, line string) {
	args, _ := splitArgs(line)
	for _, addr := range append([]string{redisAddr}, floodgates()...) {
		c, err := dialRaw(addr)
		if err != nil {
			t.Errorf("dial %s: %v", addr, err)
			continue
		}
		if reply, err := c.do(args...); err != nil || string(reply) != "+OK\r\n" {
			t.Errorf("%s: %s: %q %v", addr, line, reply, err)
		}
		c.close()
	}
}

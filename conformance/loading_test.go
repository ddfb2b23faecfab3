package conformance

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server"
)

// loadingAsk is what TestLoading sends while the dataset loads: commands
// refused with LOADING, the loading-flagged ones that run, MULTI (whose
// EXEC is aborted after a refused command), and the checks that come
// before LOADING in processCommand (unknown command, arity).
var loadingAsk = []string{
	"GET k1", "PING", "SET k1 x", "DBSIZE", "FLUSHALL", "BGSAVE", "SAVE", "BGREWRITEAOF", "KEYS *",
	"EVAL 'return 1' 0", "NOSUCH", "GET", "ECHO a", "SELECT 1", "SELECT 0", "CONFIG GET key-load-delay",
	"CONFIG SET appendonly yes", "CONFIG SET maxmemory-samples 5", "SWAPDB 0 1",
	"CONFIG SET loading-process-events-interval-bytes 1023", "CONFIG GET loading-process-events-interval-bytes",
	"CONFIG SET key-load-delay abc", "CONFIG GET key-load*",
	"DEBUG SLEEP 0", "SHUTDOWN ABORT", "SCRIPT FLUSH", "CLIENT SETNAME x", "CLIENT GETNAME", "AUTH x",
	"FLUSHDB", "BLPOP l 0", "WAIT 0 0", "OBJECT ENCODING k1", "RANDOMKEY",
	"CONFIG SET maxmemory 1", "SET k1 x", "APPEND k1 x", "CONFIG SET maxmemory 0", // LOADING, not OOM: no eviction while loading
	"MULTI", "GET k1", "EXEC", "MULTI", "SELECT 0", "EXEC", "EXEC",
}

// TestLoading starts redis-server and floodgate on the same data with
// key-load-delay, connects while they load, and compares the replies byte
// for byte (INFO persistence by its field names, loading:1 included), over
// RESP2 and RESP3; then lets the loads finish and compares what loaded.
// Once from an RDB file, once from an AOF.
func TestLoading(t *testing.T) {
	t.Parallel() // its own servers, not the shared pair
	if os.Getenv("REDIS_ADDR") != "" || os.Getenv("FLOODGATE_ADDR") != "" {
		t.Skip("starts its own servers")
	}
	for _, tc := range []struct {
		name, keyDelay string
		args           []string // redis-server's extra arguments
		write          func(t *testing.T, dirs ...string)
	}{
		{"rdb", "20000", nil, writeRDB},
		{"aof", "1000", []string{"--appendonly", "yes"}, writeAOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			redisDir, fgDir := t.TempDir(), t.TempDir()
			tc.write(t, redisDir, fgDir)
			delay := []string{"--key-load-delay", tc.keyDelay, "--loading-process-events-interval-bytes", "1024"}
			redisAddr := startLoadingRedis(t, redisDir, append(delay, tc.args...))
			fgAddr, fg := startLoadingFloodgate(t, fgDir, tc.args != nil, tc.keyDelay)
			want := loadingExchange(t, redisAddr)
			for _, addr := range []string{fgAddr, dialAddrOf(fg)} {
				if got := loadingExchange(t, addr); !bytes.Equal(want, got) {
					t.Errorf("while loading:\n  redis:     %q\n  %s: %q", want, transportName(addr), got)
				}
			}
			countsMu.Lock()
			counts["(loading)"] += 2 * (len(loadingAsk) + 1)
			countsMu.Unlock()
			want = loaded(t, redisAddr)
			if got := loaded(t, fgAddr); !bytes.Equal(want, got) {
				t.Errorf("once loaded:\n  redis:     %q\n  floodgate: %q", want, got)
			}
		})
	}
}

// loadingExchange sends loadingAsk on a RESP2 connection to addr and on a
// RESP3 one, each pipelined after its HELLO (both sent before either is
// read, so one turn of a slow AOF load serves them), and returns the
// replies, INFO persistence reduced to its field names.
func loadingExchange(t *testing.T, addr string) []byte {
	t.Helper()
	var conns []*rawConn
	for _, proto := range []string{"2", "3"} {
		c := dialWhenUp(t, addr)
		defer c.close()
		req := multibulk([]string{"HELLO", proto})
		for _, line := range append(loadingAsk, "INFO persistence") {
			args, err := splitArgs(line)
			if err != nil {
				t.Fatal(err)
			}
			req += multibulk(args)
		}
		if err := c.sendRaw([]byte(req)); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	var out bytes.Buffer
	for _, c := range conns {
		if reply, err := c.read(); err != nil || reply[0] == '-' { // HELLO: ids and versions differ
			t.Fatalf("%s: HELLO: %q %v", addr, reply, err)
		}
		for range loadingAsk {
			reply, err := c.read()
			if err != nil {
				t.Fatalf("%s: %v", addr, err)
			}
			out.Write(reply)
		}
		info, err := c.read()
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString(infoFieldNames(string(info)))
	}
	return out.Bytes()
}

// infoFieldNames keeps an INFO reply's section headers, its field names
// and loading's value: the figures differ from server to server.
func infoFieldNames(info string) string {
	var b strings.Builder
	for _, line := range strings.Split(info, "\r\n")[1:] {
		name, _, _ := strings.Cut(line, ":")
		if strings.HasPrefix(line, "loading:") {
			name = line
		}
		b.WriteString(name + "\n")
	}
	return b.String()
}

// loaded lets the load at addr finish and returns what it loaded.
func loaded(t *testing.T, addr string) []byte {
	t.Helper()
	c := dialWhenUp(t, addr)
	defer c.close()
	if reply, err := c.do("CONFIG", "SET", "key-load-delay", "0"); err != nil || string(reply) != "+OK\r\n" {
		t.Fatalf("%s: CONFIG SET key-load-delay 0: %q %v", addr, reply, err)
	}
	redistest.Eventually(t, "the end of the load at "+addr, func() bool {
		reply, err := c.do("PING")
		return err == nil && string(reply) == "+PONG\r\n"
	})
	var out bytes.Buffer
	for _, args := range [][]string{{"DBSIZE"}, {"GET", "k1"}, {"GET", "k1999"}, {"STRLEN", "k0"}} {
		reply, err := c.do(args...)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(reply)
	}
	info, err := c.do("INFO", "persistence")
	if err != nil {
		t.Fatal(err)
	}
	out.WriteString(infoFieldNames(string(info)))
	return out.Bytes()
}

// dialWhenUp connects to addr once it listens.
func dialWhenUp(t *testing.T, addr string) *rawConn {
	t.Helper()
	var c *rawConn
	redistest.Eventually(t, "a listener at "+addr, func() bool {
		var err error
		c, err = dialRaw(addr)
		return err == nil
	})
	return c
}

// Both servers load 3000 keys k0 ... of 1000 random letters (which LZF
// cannot compress, so the RDB is served after every key), or, from an
// AOF, 30000 SETs.
const loadKeyCount, loadAOFCount = 3000, 30000

// writeRDB has a redis-server SAVE the keys and copies its RDB into dirs.
func writeRDB(t *testing.T, dirs ...string) {
	src := redistest.Start(t)
	c, err := dialRaw(src.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	var req bytes.Buffer
	for i := range loadKeyCount {
		rng := rand.New(rand.NewPCG(uint64(i), 1))
		v := make([]byte, 1000)
		for j := range v {
			v[j] = byte('a' + rng.IntN(26))
		}
		req.WriteString(multibulk([]string{"SET", "k" + strconv.Itoa(i), string(v)}))
	}
	if err := c.sendRaw(req.Bytes()); err != nil {
		t.Fatal(err)
	}
	for range loadKeyCount {
		if _, err := c.read(); err != nil {
			t.Fatal(err)
		}
	}
	if reply, err := c.do("SAVE"); err != nil || string(reply) != "+OK\r\n" {
		t.Fatalf("SAVE: %q %v", reply, err)
	}
	rdb, err := os.ReadFile(filepath.Join(src.Dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), rdb, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeAOF writes a manifest and an incr file of SETs into dirs.
func writeAOF(t *testing.T, dirs ...string) {
	var b bytes.Buffer
	for i := range loadAOFCount {
		k := "k" + strconv.Itoa(i)
		b.WriteString(multibulk([]string{"SET", k, k}))
	}
	for _, dir := range dirs {
		aofDir := filepath.Join(dir, "appendonlydir")
		if err := os.MkdirAll(aofDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(aofDir, "appendonly.aof.1.incr.aof"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(aofDir, "appendonly.aof.manifest"), []byte("file appendonly.aof.1.incr.aof seq 1 type i\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// startLoadingRedis starts redis-server on dir without waiting for it
// (redistest.Start waits for PONG, which comes only once it has loaded).
func startLoadingRedis(t *testing.T, dir string, extra []string) string {
	t.Helper()
	port := redistest.ReservePort(t)
	log, err := os.Create(filepath.Join(dir, "redis.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command("redis-server", append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir}, extra...)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// startLoadingFloodgate starts floodgate in process on dir, with the
// binary's LoadRDB, and returns its address once it listens.
func startLoadingFloodgate(t *testing.T, dir string, aof bool, keyDelay string) (string, *server.Server) {
	t.Helper()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(redistest.ReservePort(t)))
	srv := server.Prepare(server.Config{Addr: addr, Dir: dir, LoadRDB: true})
	conf := fmt.Sprintf("key-load-delay %s\nloading-process-events-interval-bytes 1024\nappendonly %s\n", keyDelay, map[bool]string{true: "yes", false: "no"}[aof])
	if err := srv.LoadConfig("", strings.NewReader(conf), ""); err != nil {
		t.Fatal(err)
	}
	srv.Init()
	started := make(chan error, 1)
	go func() { started <- srv.Start() }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-started; err != nil {
			t.Errorf("floodgate's Start: %v", err)
		}
	})
	return addr, srv
}

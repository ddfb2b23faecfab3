package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
)

// The slow load the tests watch: key-load-delay makes each key (AOF
// command) sleep, and a client is served every 1024 bytes (every 1024
// commands). Once the test has seen what it wants it sets the delay to 0,
// so the load's length bounds only how long it may take to look.
const (
	loadKeys      = 3000
	loadValueSize = 1000 // a value per 1024 bytes: clients served after every key
	loadAOFCmds   = 30000
)

// writeLoadRDB writes an RDB of loadKeys keys (k0 ... ) of loadValueSize
// bytes in dir. The file is made once per test binary, through a server's
// SAVE, and copied after that: making it (3,000 pipelined SETs of random
// values, the SAVE) took 10 s of a loaded machine under the race detector,
// and seven tests (three more times through TestOtherTransports) load it.
func writeLoadRDB(t *testing.T, dir string) {
	t.Helper()
	loadRDB.Lock()
	defer loadRDB.Unlock()
	if loadRDB.file == nil {
		saved := t.TempDir()
		srv := startServer(t, Config{Dir: saved})
		c := newRedisClient(t, srv)
		ctx := context.Background()
		p := c.Pipeline()
		for i := range loadKeys {
			p.Set(ctx, "k"+strconv.Itoa(i), loadValue(i), 0)
		}
		if _, err := p.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.Save(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		srv.Close()
		b, err := os.ReadFile(filepath.Join(saved, "dump.rdb"))
		if err != nil {
			t.Fatal(err)
		}
		loadRDB.file = b
	}
	if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), loadRDB.file, 0o644); err != nil {
		t.Fatal(err)
	}
}

// loadRDB is writeLoadRDB's file, once made.
var loadRDB struct {
	sync.Mutex
	file []byte
}

// loadValue is key i's value: random letters, which the RDB's LZF
// cannot compress, so each key takes its 1000 bytes in the file.
func loadValue(i int) string {
	rng := rand.New(rand.NewPCG(uint64(i), 1))
	b := make([]byte, loadValueSize)
	for j := range b {
		b[j] = byte('a' + rng.IntN(26))
	}
	return string(b)
}

// writeLoadAOF writes an AOF (manifest and one incr file) of loadAOFCmds
// SETs of k0 ... in dir.
func writeLoadAOF(t *testing.T, dir string) {
	t.Helper()
	aofDir := filepath.Join(dir, "appendonlydir")
	if err := os.MkdirAll(aofDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for i := range loadAOFCmds {
		k := "k" + strconv.Itoa(i)
		fmt.Fprintf(&b, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(k), k, len(k), k)
	}
	if err := os.WriteFile(filepath.Join(aofDir, "appendonly.aof.1.incr.aof"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(aofDir, "appendonly.aof.manifest"), []byte("file appendonly.aof.1.incr.aof seq 1 type i\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// startLoading starts a server on dir with a slow load (keyDelay µs a
// key) and returns it, its address and what its Start returns.
func startLoadingServer(t *testing.T, cfg Config, keyDelay string) (*Server, string, chan error) {
	t.Helper()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(redistest.ReservePort(t)))
	cfg.Addr = addr
	cfg.GoroutineConns = transportOf(t) == viaGoroutine
	srv := Prepare(cfg)
	if err := srv.LoadConfig("", nil, "key-load-delay "+keyDelay+"\nloading-process-events-interval-bytes 1024"); err != nil {
		t.Fatal(err)
	}
	srv.Init()
	started := make(chan error, 1)
	go func() { started <- srv.Start() }()
	t.Cleanup(func() { srv.Close(); <-started })
	return srv, addr, started
}

// dialLoading connects to srv once it listens at addr, over TCP or, for
// viaDial, Dial (once the listener is up, so the load has begun).
func dialLoading(t *testing.T, srv *Server, addr string) *rawClient {
	t.Helper()
	var c net.Conn
	waitFor(t, "the listener", func() bool {
		var err error
		c, err = net.Dial("tcp", addr)
		return err == nil
	})
	if transportOf(t) == viaDial {
		c.Close()
		var err error
		if c, err = srv.Dial(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(testDeadline))
	return &rawClient{t: t, c: c, rd: bufio.NewReader(c)}
}

const loadingReply = "-" + errLoading + "\r\n"

// TestServesWhileLoading: the server listens before it loads; while it
// loads, commands without the loading flag get LOADING (RESP2 and RESP3,
// and in MULTI, whose EXEC is then aborted), the loading ones run (INFO
// with the loading fields, CONFIG SET, SELECT), and once loaded every key
// is there.
func TestServesWhileLoading(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		name, keyDelay string
		aof            bool
		keys           int
	}{
		{"rdb", "20000", false, loadKeys},
		{"aof", "1000", true, loadAOFCmds},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := Config{Dir: dir, LoadRDB: true}
			if tc.aof {
				writeLoadAOF(t, dir)
				cfg.AOF.Enabled = true
			} else {
				writeLoadRDB(t, dir)
			}
			srv, addr, started := startLoadingServer(t, cfg, tc.keyDelay)
			c := dialLoading(t, srv, addr)
			// One write, so a slow AOF load serves it in one turn.
			c.send("GET k1\r\nPING\r\nSET k1 x\r\nDBSIZE\r\nFLUSHALL\r\nBGSAVE\r\nMULTI\r\nGET k1\r\nEXEC\r\n" +
				"SELECT 1\r\nSELECT 0\r\nCONFIG SET appendonly yes\r\nHELLO 3\r\nGET k1\r\nHELLO 2\r\nINFO persistence\r\n")
			for range 6 {
				c.expect(loadingReply)
			}
			c.expect("+OK\r\n" + loadingReply + "-EXECABORT Transaction discarded because of previous errors.\r\n")
			c.expect("+OK\r\n+OK\r\n" + loadingReply)
			c.expect("%7\r\n") // HELLO 3
			skipReplies(t, c.rd, 14)
			c.expect(loadingReply)
			c.expect("*14\r\n") // HELLO 2
			skipReplies(t, c.rd, 14)
			info := readBulk(t, c)
			for _, want := range []string{"loading:1\r\n", "loading_start_time:", "loading_total_bytes:", "loading_rdb_used_mem:",
				"loading_loaded_bytes:", "loading_loaded_perc:", "loading_eta_seconds:"} {
				if !strings.Contains(info, want) {
					t.Errorf("INFO persistence lacks %q:\n%s", want, info)
				}
			}
			file := filepath.Join(dir, "dump.rdb")
			if tc.aof {
				file = filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof")
			}
			size := fileSize(t, file)
			if total := infoField(info, "loading_total_bytes"); total != strconv.FormatInt(size, 10) {
				t.Errorf("loading_total_bytes %s, want the file's %d", total, size)
			}
			if used := infoField(info, "loading_rdb_used_mem"); (used == "0") != tc.aof { // an RDB says its used-mem
				t.Errorf("loading_rdb_used_mem %s", used)
			}
			if loaded, _ := strconv.ParseInt(infoField(info, "loading_loaded_bytes"), 10, 64); loaded > size {
				t.Errorf("loading_loaded_bytes %d over the file's %d", loaded, size)
			}
			finishLoad(t, c, started)
			c.send("DBSIZE\r\nGET k1\r\n")
			want := "k1"
			if !tc.aof {
				want = loadValue(1)
			}
			c.expect(fmt.Sprintf(":%d\r\n$%d\r\n%s\r\n", tc.keys, len(want), want))
			c.send("INFO persistence\r\n")
			if info := readBulk(t, c); !strings.Contains(info, "loading:0\r\n") || strings.Contains(info, "loading_start_time") {
				t.Errorf("INFO persistence once loaded:\n%s", info)
			}
		})
	}
}

// No client runs a command between the server starting to listen and the
// load beginning. In Redis clients are served only from inside the load,
// so INFO never shows loading:1 without the file's size and its used-mem;
// a client that connected in that window (a loaded machine made it wide
// enough) used to run its commands then and saw zeros.
func TestNoCommandBeforeTheLoadBegins(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	writeLoadRDB(t, dir)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(redistest.ReservePort(t)))
	srv := Prepare(Config{Addr: addr, Dir: dir, LoadRDB: true})
	if err := srv.LoadConfig("", nil, "key-load-delay 20000\nloading-process-events-interval-bytes 1024"); err != nil {
		t.Fatal(err)
	}
	srv.Init()
	gate := make(chan struct{})
	var once sync.Once
	openGate := func() { once.Do(func() { close(gate) }) }
	srv.beforeLoad = func() { <-gate }
	started := make(chan error, 1)
	go func() { started <- srv.Start() }()
	t.Cleanup(func() { srv.Close(); <-started })
	t.Cleanup(openGate) // first: a test that failed early must not leave the load held back
	c := dialLoading(t, srv, addr)
	c.send("INFO persistence\r\n")
	waitFor(t, "the request read", func() bool { return srv.net.reads.Load() >= 1 })
	openGate() // the load begins
	info := readBulk(t, c)
	size := fileSize(t, filepath.Join(dir, "dump.rdb"))
	if !strings.Contains(info, "loading:1\r\n") || infoField(info, "loading_total_bytes") != strconv.FormatInt(size, 10) ||
		infoField(info, "loading_rdb_used_mem") == "0" {
		t.Errorf("INFO persistence, answered during the load, want loading:1, loading_total_bytes:%d and the used-mem:\n%s", size, info)
	}
	finishLoad(t, c, started)
}

// finishLoad lets a slowed load run to its end (key-load-delay 0, set by
// c) and waits for Start to return.
func finishLoad(t *testing.T, c *rawClient, started chan error) {
	t.Helper()
	c.send("CONFIG SET key-load-delay 0\r\n")
	c.expect("+OK\r\n")
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	started <- nil // for the cleanup
}

// TestShutdownWhileLoading: SHUTDOWN while loading is allowed, never saves
// the half-loaded dataset (not even with save points or SAVE), and ends
// the load: Start returns ErrShutdownWhileLoading. AbortLoading (the
// binary's SIGTERM) does the same.
func TestShutdownWhileLoading(t *testing.T) {
	for _, how := range []string{"SHUTDOWN SAVE", "SHUTDOWN", "SHUTDOWN NOSAVE", "signal"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			writeLoadRDB(t, dir)
			before, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
			if err != nil {
				t.Fatal(err)
			}
			srv, addr, started := startLoadingServer(t, Config{Dir: dir, LoadRDB: true, Save: "1 1"}, "20000")
			c := dialLoading(t, srv, addr)
			c.send("GET k1\r\n")
			c.expect(loadingReply)
			if how == "signal" {
				if !srv.AbortLoading() {
					t.Fatal("AbortLoading: not loading")
				}
			} else {
				c.send(how + "\r\n")
				c.expectClosed()
			}
			if err := <-started; !errors.Is(err, ErrShutdownWhileLoading) {
				t.Fatalf("Start: %v", err)
			}
			started <- nil
			after, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
			if err != nil || !bytes.Equal(before, after) {
				t.Fatalf("the RDB changed (%v)", err)
			}
		})
	}
}

// TestLoadingSettings: the two hidden settings read back what was set,
// with Redis's bounds.
func TestLoadingSettings(t *testing.T) {
	srv := startServer(t, Config{})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	for _, tc := range []struct{ name, value, err string }{
		{"key-load-delay", "-5", ""},
		{"key-load-delay", "0", ""},
		{"loading-process-events-interval-bytes", "1024", ""},
		{"loading-process-events-interval-bytes", "1023", "ERR CONFIG SET failed (possibly related to argument 'loading-process-events-interval-bytes') - argument must be between 1024 and 2147483647 inclusive"},
	} {
		err := c.ConfigSet(ctx, tc.name, tc.value).Err()
		if (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("CONFIG SET %s %s: %v, want %q", tc.name, tc.value, err, tc.err)
			continue
		}
		if tc.err == "" {
			if got := c.ConfigGet(ctx, tc.name).Val()[tc.name]; got != tc.value {
				t.Errorf("CONFIG GET %s = %q, want %q", tc.name, got, tc.value)
			}
		}
	}
}

// skipReplies reads n RESP2 or RESP3 replies.
func skipReplies(t *testing.T, rd *bufio.Reader, n int) {
	t.Helper()
	for range n {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		size, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		switch line[0] {
		case '$', '=', '!':
			if size >= 0 {
				if _, err := rd.Discard(size + 2); err != nil {
					t.Fatal(err)
				}
			}
		case '*', '~', '>':
			skipReplies(t, rd, max(size, 0))
		case '%', '|':
			skipReplies(t, rd, 2*size)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// infoField returns an INFO field's value.
func infoField(info, name string) string {
	_, rest, _ := strings.Cut(info, "\r\n"+name+":")
	value, _, _ := strings.Cut(rest, "\r\n")
	return value
}

package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// fullDisk is the incr file on a disk that fills up: while full, a write
// fails with ENOSPC, after writing half of what it was given if partial.
type fullDisk struct {
	aofFile
	full    atomic.Bool
	partial bool
}

func (f *fullDisk) Write(b []byte) (int, error) {
	if !f.full.Load() {
		return f.aofFile.Write(b)
	}
	n := 0
	if f.partial {
		n, _ = f.aofFile.Write(b[:len(b)/2])
	}
	return n, &os.PathError{Op: "write", Path: "appendonly.aof.1.incr.aof", Err: syscall.ENOSPC}
}

// fillDisk swaps srv's incr file for one on a disk that can fill.
func fillDisk(srv *Server, partial bool) *fullDisk {
	a := &srv.aof
	a.mu.Lock()
	defer a.mu.Unlock()
	f := &fullDisk{aofFile: a.file, partial: partial}
	a.file = f
	return f
}

const misconfENOSPC = "MISCONF Errors writing to the AOF file: No space left on device"

// TestAOFWriteErrorRefusesWrites: once a write of the AOF fails, write
// commands (and PING) get Redis's MISCONF error, in MULTI, EXEC and
// scripts too, reads go on, INFO says aof_last_write_status:err; once the
// disk has room, the kept feed is written, writes are accepted again, and
// a restart loads everything acknowledged. A short write is cut off the
// file first, so it never ends inside a command.
func TestAOFWriteErrorRefusesWrites(t *testing.T) {
	for _, partial := range []bool{false, true} {
		name := "failed write"
		if partial {
			name = "short write"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			srv := startServer(t, Config{Dir: dir, AOF: AOFConfig{Enabled: true, Fsync: "everysec"}})
			c := newRedisClient(t, srv)
			ctx := context.Background()
			c.Set(ctx, "before", "1", 0)
			disk := fillDisk(srv, partial)
			disk.full.Store(true)
			// The write that finds the disk full was done already: its reply
			// goes out, as Redis's (the feed keeps it for the next attempt).
			if err := c.Set(ctx, "filling", strings.Repeat("x", 5000), 0).Err(); err != nil {
				t.Fatalf("SET as the disk fills: %v", err)
			}
			for _, tc := range []struct {
				args []any
				want string // error, "" for success
			}{
				{[]any{"set", "k", "v"}, misconfENOSPC},
				{[]any{"ping"}, misconfENOSPC},
				{[]any{"del", "nokey"}, misconfENOSPC},
				{[]any{"get", "before"}, ""},
				{[]any{"eval", "return redis.call('set', 'k', 'v')", "0"}, misconfENOSPC + " script: "},
				{[]any{"eval", "#!lua\nreturn 1", "0"}, misconfENOSPC},
				{[]any{"eval", "#!lua flags=no-writes\nreturn redis.call('get', 'before')", "0"}, ""},
			} {
				err := c.Do(ctx, tc.args...).Err()
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("%v: %v", tc.args, err)
				case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
					t.Errorf("%v = %v, want %q", tc.args, err, tc.want)
				}
			}
			if info := c.Info(ctx, "persistence").Val(); !strings.Contains(info, "aof_last_write_status:err") {
				t.Errorf("INFO while the disk is full:\n%s", info)
			}
			raw := dialConn(t, srv)
			raw.Write([]byte("MULTI\r\nSET k v\r\nEXEC\r\n"))
			want := "+OK\r\n-" + misconfENOSPC + "\r\n-EXECABORT Transaction discarded because of previous errors.\r\n"
			if got := readN(t, raw, len(want)); got != want {
				t.Errorf("MULTI/SET/EXEC = %q, want %q", got, want)
			}

			disk.full.Store(false)
			waitFor(t, "the AOF is written again", func() bool {
				return strings.Contains(c.Info(ctx, "persistence").Val(), "aof_last_write_status:ok")
			})
			if err := c.Set(ctx, "after", "2", 0).Err(); err != nil {
				t.Fatalf("SET once the disk has room: %v", err)
			}
			srv.Close()
			srv2 := startServer(t, Config{Dir: dir, AOF: AOFConfig{Enabled: true}})
			c2 := newRedisClient(t, srv2)
			if got := c2.MGet(ctx, "before", "after").Val(); got[0] != "1" || got[1] != "2" {
				t.Errorf("after a restart MGET before after = %v", got)
			}
			if n := c2.StrLen(ctx, "filling").Val(); n != 5000 {
				t.Errorf("after a restart STRLEN filling = %d, want 5000", n)
			}
			if n := c2.Exists(ctx, "k").Val(); n != 0 {
				t.Errorf("a refused SET was applied")
			}
		})
	}
}

// TestAOFWriteErrorAlwaysExits: under appendfsync always a failed write
// ends the process, as Redis's: the reply must not go out.
func TestAOFWriteErrorAlwaysExits(t *testing.T) {
	srv := startServer(t, Config{Dir: t.TempDir(), AOF: AOFConfig{Enabled: true, Fsync: "always"}})
	exited := make(chan int, 1)
	srv.aof.mu.Lock() // the feed's writer reads it under the lock
	srv.aof.exit = func(code int) { exited <- code }
	srv.aof.mu.Unlock()
	disk := fillDisk(srv, false)
	disk.full.Store(true)
	c := newRedisClient(t, srv)
	go c.Set(context.Background(), "k", "v", 0)
	if code := <-exited; code != 1 {
		t.Fatalf("exit code %d", code)
	}
}

func readN(t *testing.T, c interface{ Read([]byte) (int, error) }, n int) string {
	t.Helper()
	got := make([]byte, 0, n)
	buf := make([]byte, 512)
	for len(got) < n {
		m, err := c.Read(buf)
		if err != nil {
			t.Fatalf("read: %v (got %q)", err, got)
		}
		got = append(got, buf[:m]...)
	}
	return string(got)
}

// TestAOFStartWritesManifestOnlyWhenChanged: a restart that opens the
// files the manifest lists leaves it untouched (so a full disk cannot stop
// the start, as Redis's persistAofManifest writes only a dirty manifest);
// one that finds history entries removes their files and rewrites it,
// as Redis's aofDelHistoryFiles.
func TestAOFStartWritesManifestOnlyWhenChanged(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, Config{Dir: dir, AOF: AOFConfig{Enabled: true}})
	newRedisClient(t, srv).Set(context.Background(), "k", "v", 0)
	srv.Close()
	aofDir := filepath.Join(dir, "appendonlydir")
	manifest := filepath.Join(aofDir, "appendonly.aof.manifest")
	written, _ := os.ReadFile(manifest)
	before, _ := os.Stat(manifest)
	srv2 := startServer(t, Config{Dir: dir, AOF: AOFConfig{Enabled: true}})
	if got := newRedisClient(t, srv2).Get(context.Background(), "k").Val(); got != "v" {
		t.Errorf("GET k = %q after a restart", got)
	}
	srv2.Close()
	// Written, it would be a new file renamed over the old one.
	if after, err := os.Stat(manifest); err != nil || !os.SameFile(before, after) {
		t.Errorf("the manifest was rewritten at start (%v)", err)
	}

	os.WriteFile(filepath.Join(aofDir, "appendonly.aof.0.incr.aof"), nil, 0o644)
	os.WriteFile(manifest, []byte(strings.Replace(string(written), " type b\n", " type b\nfile appendonly.aof.0.incr.aof seq 1 type h\n", 1)), 0o644)
	srv3 := startServer(t, Config{Dir: dir, AOF: AOFConfig{Enabled: true}})
	if got := newRedisClient(t, srv3).Get(context.Background(), "k").Val(); got != "v" {
		t.Errorf("GET k = %q after a restart with history", got)
	}
	if _, err := os.Stat(filepath.Join(aofDir, "appendonly.aof.0.incr.aof")); !os.IsNotExist(err) {
		t.Errorf("the history file is still there: %v", err)
	}
	if got, _ := os.ReadFile(manifest); string(got) != string(written) {
		t.Errorf("manifest %q, want %q", got, written)
	}
}

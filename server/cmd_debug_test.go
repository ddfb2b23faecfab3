package server

import (
	"context"
	"path/filepath"
	"testing"
)

// startDebugServer starts a server from a config text, as the binary
// reads its file, with DEBUG set by enable-debug-command.
func startDebugServer(t *testing.T, config string) *Server {
	t.Helper()
	return startDebugServerWith(t, Config{}, config)
}

func startDebugServerWith(t *testing.T, cfg Config, config string) *Server {
	t.Helper()
	cfg.Dir = t.TempDir()
	return startConfiguredServer(t, cfg, config+"\nsave \"\"")
}

// TestEnableDebugCommand: enable-debug-command decides who may run DEBUG,
// as Redis's allowProtectedAction: no one (Redis's text), any client, or
// only a local one (loopback, a Unix socket, an in-process client). The
// setting is immutable.
func TestEnableDebugCommand(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		setting string
		allowed map[string]bool // by client address
	}{
		{"no", map[string]bool{"127.0.0.1:5000": false, "10.1.2.3:5000": false, "": false}},
		{"yes", map[string]bool{"127.0.0.1:5000": true, "10.1.2.3:5000": true, "[::1]:5000": true}},
		{"local", map[string]bool{"127.0.0.1:5000": true, "[::1]:5000": true, "/tmp/redis.sock": true, "": true,
			"10.1.2.3:5000": false, "[2001:db8::1]:5000": false}},
	} {
		srv := startDebugServer(t, "enable-debug-command "+tc.setting)
		// Over TCP from 127.0.0.1, as a client on the same machine.
		got, err := newRedisClient(t, srv).Do(ctx, "DEBUG", "DIGEST").Text()
		if err != nil {
			got = err.Error()
		}
		if wantOK := tc.setting != "no"; (got == "0000000000000000000000000000000000000000") != wantOK ||
			!wantOK && got != errDebugNotAllowed {
			t.Errorf("enable-debug-command %s: DEBUG DIGEST over TCP = %q", tc.setting, got)
		}
		for addr, allowed := range tc.allowed {
			c := &Client{srv: srv, addr: addr, authed: true}
			if addr != "" {
				c.conn = &conn{} // a remote or local socket, by its address
			}
			var r *refusal
			srv.Do(func() { _, r = check(c, [][]byte{[]byte("debug"), []byte("digest")}, false) })
			if (r == nil) != allowed || r != nil && (r.msg != errDebugNotAllowed || !r.viaReject) {
				t.Errorf("enable-debug-command %s, client %q: refusal %+v, want allowed %v", tc.setting, addr, r, allowed)
			}
		}
		err = newRedisClient(t, srv).ConfigSet(ctx, "enable-debug-command", "yes").Err()
		if want := "ERR CONFIG SET failed (possibly related to argument 'enable-debug-command') - can't set immutable config"; err == nil || err.Error() != want {
			t.Errorf("CONFIG SET enable-debug-command: %v, want %q", err, want)
		}
	}
}

// TestDebugReloadKeepsKeysWithoutMerge: where Redis dies (DEBUG RELOAD
// NOFLUSH of a file holding a key that is in memory) the reload stops with
// an error and the key in memory keeps its value.
func TestDebugReloadKeepsKeysWithoutMerge(t *testing.T) {
	ctx := context.Background()
	srv := startDebugServer(t, "enable-debug-command yes")
	c := newRedisClient(t, srv)
	c.Set(ctx, "a", "1", 0)
	if err := c.Do(ctx, "DEBUG", "RELOAD").Err(); err != nil {
		t.Fatal(err)
	}
	c.Set(ctx, "a", "2", 0)
	if err := c.Do(ctx, "DEBUG", "RELOAD", "NOSAVE", "NOFLUSH").Err(); err == nil || err.Error() != errReloadLoad {
		t.Fatalf("DEBUG RELOAD NOSAVE NOFLUSH: %v, want %q", err, errReloadLoad)
	}
	if v := c.Get(ctx, "a").Val(); v != "2" {
		t.Fatalf("a = %q after the refused reload, want 2", v)
	}
	if err := c.Do(ctx, "DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE").Err(); err != nil {
		t.Fatal(err)
	}
	if v := c.Get(ctx, "a").Val(); v != "1" {
		t.Fatalf("a = %q after MERGE, want the file's 1", v)
	}
}

// TestDebugLoadAOF: DEBUG LOADAOF writes the AOF out, empties the
// keyspace and replays the files, without feeding what it replays to the
// AOF again; without AOF files it answers an error and keeps the keys.
func TestDebugLoadAOF(t *testing.T) {
	ctx := context.Background()
	srv := startDebugServer(t, "enable-debug-command yes\nappendonly yes")
	c := newRedisClient(t, srv)
	c.Set(ctx, "k", "v", 0)
	c.RPush(ctx, "l", "a", "b")
	c.Incr(ctx, "n")
	before := c.Do(ctx, "DEBUG", "DIGEST").Val()
	incr := filepath.Join(srv.cfg.Dir, "appendonlydir", "appendonly.aof.1.incr.aof")
	sizeBefore := fileSize(t, incr)
	for range 2 {
		if err := c.Do(ctx, "DEBUG", "LOADAOF").Err(); err != nil {
			t.Fatal(err)
		}
	}
	if after := c.Do(ctx, "DEBUG", "DIGEST").Val(); after != before {
		t.Fatalf("digest %v after LOADAOF, %v before", after, before)
	}
	if got := fileSize(t, incr); got != sizeBefore {
		t.Fatalf("the incr file grew from %d to %d bytes: LOADAOF fed its replay to the AOF", sizeBefore, got)
	}
	c.Set(ctx, "k2", "v2", 0) // and the AOF goes on
	if err := c.Do(ctx, "DEBUG", "LOADAOF").Err(); err != nil || c.Get(ctx, "k2").Val() != "v2" {
		t.Fatalf("LOADAOF after a write: %v, k2 = %q", err, c.Get(ctx, "k2").Val())
	}

	plain := startDebugServer(t, "enable-debug-command yes")
	pc := newRedisClient(t, plain)
	pc.Set(ctx, "k", "v", 0)
	if err := pc.Do(ctx, "DEBUG", "LOADAOF").Err(); err == nil || err.Error() != errLoadAOF {
		t.Fatalf("DEBUG LOADAOF without AOF files: %v, want %q", err, errLoadAOF)
	}
	if v := pc.Get(ctx, "k").Val(); v != "v" {
		t.Fatalf("k = %q after the refused LOADAOF", v)
	}
}

// TestDebugLog: DEBUG LOG writes its message at warning level, as Redis.
func TestDebugLog(t *testing.T) {
	log, logger := newServerLog(t)
	srv := startDebugServerWith(t, Config{Logger: logger}, "enable-debug-command yes")
	if err := newRedisClient(t, srv).Do(context.Background(), "DEBUG", "LOG", "hello there").Err(); err != nil {
		t.Fatal(err)
	}
	if got := log.lines('#', "DEBUG LOG: hello there"); len(got) != 1 {
		t.Fatalf("DEBUG LOG lines %q, want one", got)
	}
}

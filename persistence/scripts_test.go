package persistence

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
)

// The scripts the persist-scripts tests cache: one by SCRIPT LOAD, one by
// EVAL, so both ways into the cache are saved.
const (
	loadedScript = "return 'loaded:' .. ARGV[1]"
	evalScript   = "return redis.call('INCR', KEYS[1])"
)

// startFloodgateWith starts the binary on dir with exactly args (plus the
// port), unlike startFloodgate, which turns the AOF on.
func startFloodgateWith(t *testing.T, dir string, args ...string) *proc {
	t.Helper()
	args = append([]string{"--dir", dir, "--save", ""}, args...)
	p, ok := startProc(t, filepath.Join(dir, fmt.Sprintf("floodgate-%d.log", time.Now().UnixNano())), floodgateBin, args...)
	if !ok {
		t.Fatalf("floodgate did not start:\n%s", p.logText())
	}
	return p
}

// cacheScripts loads both scripts and returns their SHA1s.
func cacheScripts(t *testing.T, p *proc) (loaded, evaled string) {
	t.Helper()
	loaded = p.do("SCRIPT", "LOAD", loadedScript).(string)
	p.do("EVAL", evalScript, "1", "counter")
	evaled = p.do("SCRIPT", "LOAD", evalScript).(string) // already cached: its SHA1
	return loaded, evaled
}

// scriptsAnswer reports what EVALSHA of both scripts answers: the replies,
// or the error text.
func scriptsAnswer(t *testing.T, p *proc, loaded, evaled string) string {
	t.Helper()
	ctx := context.Background()
	var parts []string
	for _, call := range [][]any{{"EVALSHA", loaded, "0", "x"}, {"EVALSHA", evaled, "1", "counter"}} {
		v, err := p.client.Do(ctx, call...).Result()
		if err != nil {
			parts = append(parts, err.Error())
		} else {
			parts = append(parts, fmt.Sprint(v))
		}
	}
	return strings.Join(parts, " | ")
}

const noScript = "NOSCRIPT No matching script. Please use EVAL."

// TestPersistScriptsRDB: with persist-scripts yes, the scripts go into the
// RDB and EVALSHA answers after a restart; a server with it off forgets
// them (NOSCRIPT, as Redis), and redis-server 7.0 loads the file.
func TestPersistScriptsRDB(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fg := startFloodgateWith(t, dir, "--appendonly", "no", "--persist-scripts", "yes")
	loaded, evaled := cacheScripts(t, fg)
	fg.do("SET", "k", "v")
	fg.do("SAVE")
	fg.shutdown()

	fg = startFloodgateWith(t, dir, "--appendonly", "no", "--persist-scripts", "yes")
	if got, want := scriptsAnswer(t, fg, loaded, evaled), "loaded:x | 2"; got != want {
		t.Errorf("after a restart with persist-scripts yes: %s, want %s", got, want)
	}
	if v := fg.do("CONFIG", "GET", "persist-scripts"); fmt.Sprint(v) != "[persist-scripts yes]" && fmt.Sprint(v) != "map[persist-scripts:yes]" {
		t.Errorf("CONFIG GET persist-scripts: %v", v)
	}
	fg.shutdown()

	fg = startFloodgateWith(t, dir, "--appendonly", "no")
	if got, want := scriptsAnswer(t, fg, loaded, evaled), noScript+" | "+noScript; got != want {
		t.Errorf("after a restart with persist-scripts no: %s, want %s", got, want)
	}
	if v := fg.do("GET", "k"); v != "v" {
		t.Errorf("GET k: %v", v)
	}
	fg.shutdown()

	rs, ok := startRedis(t, dir, "--appendonly", "no")
	if !ok {
		t.Fatalf("redis-server refused floodgate's RDB with scripts:\n%s", rs.logText())
	}
	if v := rs.do("GET", "k"); v != "v" {
		t.Errorf("redis-server: GET k: %v", v)
	}
	if got, want := scriptsAnswer(t, rs, loaded, evaled), noScript+" | "+noScript; got != want {
		t.Errorf("redis-server: %s, want %s", got, want)
	}
}

// TestPersistScriptsOffForgets: by default a restart forgets the scripts,
// from the RDB and from the AOF alike, as Redis's.
func TestPersistScriptsOffForgets(t *testing.T) {
	t.Parallel()
	for _, aof := range []string{"no", "yes"} {
		t.Run("appendonly "+aof, func(t *testing.T) {
			dir := t.TempDir()
			fg := startFloodgateWith(t, dir, "--appendonly", aof)
			loaded, evaled := cacheScripts(t, fg)
			fg.do("SAVE")
			fg.shutdown()
			fg = startFloodgateWith(t, dir, "--appendonly", aof)
			if got, want := scriptsAnswer(t, fg, loaded, evaled), noScript+" | "+noScript; got != want {
				t.Errorf("%s, want %s", got, want)
			}
		})
	}
}

// TestPersistScriptsAOF: with persist-scripts yes, the AOF keeps the
// scripts (in the base a rewrite writes, as aux fields of an RDB preamble
// or SCRIPT LOADs of a base of commands, and as SCRIPT LOAD in the incr
// file), so EVALSHA answers after a restart from the AOF; turning the
// setting on at run time logs the scripts already cached; redis-server 7.0
// loads the directory.
func TestPersistScriptsAOF(t *testing.T) {
	t.Parallel()
	for _, preamble := range []string{"yes", "no"} {
		t.Run("aof-use-rdb-preamble "+preamble, func(t *testing.T) {
			dir := t.TempDir()
			fg := startFloodgateWith(t, dir, "--appendonly", "yes", "--aof-use-rdb-preamble", preamble)
			early := fg.do("SCRIPT", "LOAD", "return 'early'").(string) // cached before the setting is on
			fg.do("CONFIG", "SET", "persist-scripts", "yes")
			loaded := fg.do("SCRIPT", "LOAD", loadedScript).(string)
			fg.do("BGREWRITEAOF")
			redistest.Eventually(t, "the rewrite ends", func() bool {
				return strings.Contains(fg.client.Info(context.Background(), "persistence").Val(), "aof_rewrite_in_progress:0")
			})
			fg.do("EVAL", evalScript, "1", "counter") // into the new incr file
			evaled := fg.do("SCRIPT", "LOAD", evalScript).(string)
			fg.do("SET", "k", "v")
			fg.shutdown()

			fg = startFloodgateWith(t, dir, "--appendonly", "yes", "--aof-use-rdb-preamble", preamble, "--persist-scripts", "yes")
			if got, want := scriptsAnswer(t, fg, loaded, evaled), "loaded:x | 2"; got != want {
				t.Errorf("after a restart from the AOF: %s, want %s", got, want)
			}
			if v, err := fg.client.Do(context.Background(), "EVALSHA", early, "0").Result(); err != nil || v != "early" {
				t.Errorf("the script cached before CONFIG SET: %v %v", v, err)
			}
			want := keyspace(t, fg)
			fg.shutdown()

			rs, ok := startRedis(t, dir, "--aof-use-rdb-preamble", preamble)
			if !ok {
				t.Fatalf("redis-server refused floodgate's AOF with scripts:\n%s", rs.logText())
			}
			diffKeyspaces(t, "redis-server loading floodgate's AOF with scripts", keyspace(t, rs), want)
		})
	}
}

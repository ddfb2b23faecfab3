package persistence

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
)

// mountTmpfs mounts a small tmpfs for a test whose disk must fill up, or
// skips the test where mounting is not allowed (not root).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fill writes a file until the filesystem of dir has no room left.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return path
		}
	}
}

// TestFullDiskMatchesRedis fills the disk under the AOF of redis-server
// and of floodgate and sends both the same requests: each answers them
// alike (MISCONF for writes, PING, a script's write and a transaction,
// reads served), writes are accepted again once the disk has room, and
// a restart holds every acknowledged write.
func TestFullDiskMatchesRedis(t *testing.T) {
	t.Parallel() // its own processes, directories and ports
	requests := []string{
		"SET big " + strings.Repeat("x", 20000), // finds the disk full: acknowledged, kept for the next write
		"SET k v",
		"PING",
		"GET k",
		"DEL nokey",
		"EVAL \"return redis.call('set','k','v')\" 0",
		"EVAL \"return redis.pcall('set','k','v')\" 0",
		"MULTI", "SET k v", "EXEC",
	}
	answers := map[string][]string{}
	for _, name := range []string{"redis", "floodgate"} {
		t.Run(name, func(t *testing.T) {
			dir := mountTmpfs(t, "512k")
			args := []string{"--appendfsync", "everysec", "--aof-use-rdb-preamble", "no"}
			var p *proc
			var ok bool
			if name == "redis" {
				p, ok = startRedis(t, dir, args...)
			} else {
				p, ok = startFloodgate(t, dir, args...)
			}
			if !ok {
				t.Fatalf("%s did not start:\n%s", name, p.logText())
			}
			p.do("set", "before", "1")
			filler := fill(t, dir)
			conn, err := net.Dial("tcp", p.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			r := bufio.NewReader(conn)
			for i, req := range requests {
				if i == 1 {
					// With appendfsync everysec a write waits (up to 2 s)
					// for a background fsync still running, as Redis's
					// does on a loaded machine: the requests after the
					// first meet the failed write only once it was tried.
					redistest.Eventually(t, "the AOF write fails", func() bool {
						return strings.Contains(p.client.Info(context.Background(), "persistence").Val(), "aof_last_write_status:err")
					})
				}
				fmt.Fprintf(conn, "%s\r\n", req)
				line, err := r.ReadString('\n')
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasPrefix(line, "$") && line != "$-1\r\n" {
					rest, _ := r.ReadString('\n')
					line += rest
				}
				answers[name] = append(answers[name], req[:min(len(req), 30)]+" -> "+strings.TrimSpace(line))
			}
			if info := p.client.Info(context.Background(), "persistence").Val(); !strings.Contains(info, "aof_last_write_status:err") {
				t.Errorf("INFO with the disk full:\n%s", info)
			}
			os.Remove(filler)
			redistest.Eventually(t, "writes are accepted again", func() bool {
				return p.client.Set(context.Background(), "after", "2", 0).Err() == nil
			})
			want := keyspace(t, p)
			p.shutdown()
			var again *proc
			if name == "redis" {
				again, ok = startRedis(t, dir, args...)
			} else {
				again, ok = startFloodgate(t, dir, args...)
			}
			if !ok {
				t.Fatalf("%s did not start again:\n%s", name, again.logText())
			}
			diffKeyspaces(t, name+" after a restart", keyspace(t, again), want)
			if _, ok := want["0/big"]; !ok {
				t.Errorf("the write acknowledged as the disk filled is lost")
			}
		})
	}
	if t.Failed() || len(answers["redis"]) == 0 {
		return
	}
	for i := range requests {
		t.Logf("%s", answers["redis"][i])
		if answers["floodgate"][i] != answers["redis"][i] {
			t.Errorf("floodgate: %s\n    redis: %s", answers["floodgate"][i], answers["redis"][i])
		}
	}
}

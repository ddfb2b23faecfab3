package persistence

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
)

// TestShutdownWhenTheSaveFails: with save points set and the directory
// gone, the final save fails, and Redis 7.0 will not exit (it would lose
// every change since the last good save): on SIGTERM and on SIGINT it logs
// why and goes on serving; SHUTDOWN answers an error; SHUTDOWN FORCE
// exits. floodgate goes through the same steps, and what both log from
// then on is the same, line for line.
func TestShutdownWhenTheSaveFails(t *testing.T) {
	t.Parallel() // its own processes, directories and ports
	logs := map[string][]string{}
	for _, sv := range []struct{ name, bin string }{{"floodgate", floodgateBin}, {"redis", "redis-server"}} {
		t.Run(sv.name, func(t *testing.T) {
			if _, err := exec.LookPath(sv.bin); err != nil {
				t.Skip(err)
			}
			root := t.TempDir()
			dir := filepath.Join(root, "data")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			p, ok := startProc(t, filepath.Join(root, sv.name+".log"), sv.bin, "--bind", "127.0.0.1", "--dir", dir, "--save", "3600 1", "--appendonly", "no")
			if !ok {
				t.Fatalf("%s did not start:\n%s", sv.name, p.logText())
			}
			ctx := context.Background()
			p.do("SET", "k", "v")
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			failures := func() int { return strings.Count(p.logText(), "Errors trying to shut down the server") }
			for i, sig := range []os.Signal{syscall.SIGTERM, syscall.SIGINT} {
				p.cmd.Process.Signal(sig)
				redistest.Eventually(t, "the failed shutdown to be logged", func() bool { return failures() == i+1 })
				if got := p.do("PING"); got != "PONG" {
					t.Fatalf("PING after %v: %v", sig, got)
				}
			}
			if err := p.client.Do(ctx, "SHUTDOWN").Err(); err == nil || err.Error() != "ERR Errors trying to SHUTDOWN. Check logs." {
				t.Fatalf("SHUTDOWN: %v", err)
			}
			if got := p.do("GET", "k"); got != "v" {
				t.Fatalf("GET after the failed SHUTDOWN: %v", got)
			}
			p.client.Do(ctx, "SHUTDOWN", "FORCE")
			<-p.exited
			if p.err != nil {
				t.Fatalf("exit after SHUTDOWN FORCE: %v", p.err)
			}
			logs[sv.name] = shutdownLines(t, p.logText())
		})
	}
	if len(logs) < 2 {
		return
	}
	if got, want := strings.Join(logs["floodgate"], "\n"), strings.Join(logs["redis"], "\n"); got != want {
		t.Fatalf("floodgate logged:\n%s\n\nRedis logged:\n%s", got, want)
	}
}

var (
	logPrefix = regexp.MustCompile(`^\d+:(?:[MC] \d\d \w{3} \d{4} [\d:.]+ ([*#.-])|signal-handler \(\d+\)) `)
	tempFile  = regexp.MustCompile(`temp-\d+\.rdb`)
)

// shutdownLines returns what a server logged after it became ready,
// without pids and times.
func shutdownLines(t *testing.T, log string) []string {
	t.Helper()
	_, after, ok := strings.Cut(log, "Ready to accept connections")
	if !ok {
		t.Fatalf("not ready in the log:\n%s", log)
	}
	var lines []string
	for _, l := range strings.Split(after, "\n")[1:] {
		if l == "" {
			continue
		}
		m := logPrefix.FindStringSubmatchIndex(l)
		if m == nil {
			t.Fatalf("log line %q", l)
		}
		l = tempFile.ReplaceAllString(l, "temp-PID.rdb")
		mark := "signal-handler"
		if m[2] >= 0 {
			mark = l[m[2]:m[3]]
		}
		lines = append(lines, mark+" "+l[m[1]:])
	}
	return lines
}

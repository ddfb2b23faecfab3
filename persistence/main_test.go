package persistence

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// floodgateBin is the binary the tests run, built once by TestMain.
var floodgateBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "floodgate-persistence")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	floodgateBin = filepath.Join(dir, "floodgate")
	if out, err := exec.Command("go", "build", "-o", floodgateBin, "../cmd/floodgate").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is a server process (floodgate or redis-server) on dir.
type proc struct {
	t      testing.TB
	cmd    *exec.Cmd
	addr   string
	log    string
	exited chan struct{}
	err    error // Wait's, once exited is closed
	client *redis.Client
}

// startProc starts name with args plus a free port, and waits until it
// answers PING or exits (a server that refuses its files). It returns the
// process either way; ok tells which.
func startProc(t testing.TB, logPath, name string, args ...string) (p *proc, ok bool) {
	t.Helper()
	port := redistest.ReservePort(t)
	args = append(args, "--port", strconv.Itoa(port))
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p = &proc{t: t, cmd: cmd, addr: "127.0.0.1:" + strconv.Itoa(port), log: logPath, exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	t.Cleanup(p.kill)
	redistest.Eventually(t, name+" answers PING or exits", func() bool {
		select {
		case <-p.exited:
			return true
		default:
			return redistest.Ping(p.addr)
		}
	})
	select {
	case <-p.exited:
		return p, false
	default:
	}
	p.client = redis.NewClient(&redis.Options{Addr: p.addr, MaxRetries: -1})
	t.Cleanup(func() { p.client.Close() })
	return p, true
}

// startFloodgate starts the binary with the AOF on in dir.
func startFloodgate(t testing.TB, dir string, args ...string) (*proc, bool) {
	t.Helper()
	// --save "": these tests are about the AOF; SHUTDOWN must not wait on
	// an RDB save.
	args = append([]string{"--dir", dir, "--appendonly", "yes", "--save", ""}, args...)
	return startProc(t, filepath.Join(dir, fmt.Sprintf("floodgate-%d.log", time.Now().UnixNano())), floodgateBin, args...)
}

// startRedis starts redis-server with the AOF on in dir.
func startRedis(t testing.TB, dir string, args ...string) (*proc, bool) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed")
	}
	args = append([]string{"--bind", "127.0.0.1", "--save", "", "--dir", dir, "--appendonly", "yes"}, args...)
	return startProc(t, filepath.Join(dir, fmt.Sprintf("redis-%d.log", time.Now().UnixNano())), "redis-server", args...)
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *proc) kill() {
	p.cmd.Process.Kill()
	<-p.exited
}

// shutdown asks for a clean SHUTDOWN and waits for the exit.
func (p *proc) shutdown() {
	p.t.Helper()
	if err := p.client.Do(context.Background(), "shutdown").Err(); err != nil && strings.HasPrefix(err.Error(), "ERR") {
		p.t.Fatalf("SHUTDOWN: %v", err)
	}
	<-p.exited
}

// logText returns what the process logged.
func (p *proc) logText() string {
	b, _ := os.ReadFile(p.log)
	return string(b)
}

func (p *proc) do(args ...any) any {
	p.t.Helper()
	v, err := p.client.Do(context.Background(), args...).Result()
	if err != nil && err != redis.Nil {
		p.t.Fatalf("%v: %v", args, err)
	}
	return v
}

// keyspace describes every key of every database the way both servers
// can be asked: type, value (sorted where order is not the type's), and
// absolute expiry in ms (PEXPIRETIME), so two servers' can be compared.
func keyspace(t testing.TB, p *proc) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	for db := 0; db < 16; db++ {
		c := redis.NewClient(&redis.Options{Addr: p.addr, DB: db})
		keys, err := c.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			typ := c.Type(ctx, k).Val()
			var val string
			switch typ {
			case "string":
				val = c.Get(ctx, k).Val()
			case "list":
				val = strings.Join(c.LRange(ctx, k, 0, -1).Val(), ",")
			case "set":
				m := c.SMembers(ctx, k).Val()
				sortStrings(m)
				val = strings.Join(m, ",")
			case "zset":
				for _, z := range c.ZRangeWithScores(ctx, k, 0, -1).Val() {
					val += fmt.Sprintf("%v=%v,", z.Member, z.Score)
				}
			case "hash":
				h := c.HGetAll(ctx, k).Val()
				var fs []string
				for f, v := range h {
					fs = append(fs, f+"="+v)
				}
				sortStrings(fs)
				val = strings.Join(fs, ",")
			}
			exp, _ := c.Do(ctx, "pexpiretime", k).Int64()
			out[fmt.Sprintf("%d/%s", db, k)] = fmt.Sprintf("%s %q expire=%d", typ, val, exp)
		}
		c.Close()
	}
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func diffKeyspaces(t testing.TB, what string, got, want map[string]string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: nothing to compare", what)
	}
	for k, w := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: key %s missing (want %s)", what, k, w)
		} else if g != w {
			t.Errorf("%s: key %s = %s, want %s", what, k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: extra key %s = %s", what, k, g)
		}
	}
}

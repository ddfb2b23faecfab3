package failover

import (
	"bufio"
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
	dir, err := os.MkdirTemp("", "floodgate-failover")
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

// needSentinel skips t when Debian's redis-sentinel is not installed
// (scripts/ensure-redis.sh installs it for make test).
func needSentinel(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("redis-sentinel"); err != nil {
		t.Skip("redis-sentinel not found on PATH: install the Debian package redis-sentinel (scripts/ensure-redis.sh does)")
	}
}

// node is a server process (floodgate or redis-sentinel) with a config
// file in its own directory, on a port of the test's, that can be killed
// and started again on the same port and files.
type node struct {
	t      testing.TB
	name   string   // the program
	port   int      // reserved for the whole test
	dir    string   // working directory: config file, RDB, log
	conf   string   // the config file, which CONFIG REWRITE rewrites
	args   []string // after the config file
	addr   string
	cmd    *exec.Cmd
	exited chan struct{}
	client *redis.Client
}

// newNode writes a config file of lines (plus port, bind and dir) for
// program name, and starts it.
func newNode(t testing.TB, name string, lines ...string) *node {
	t.Helper()
	n := &node{t: t, name: name, port: redistest.ReservePort(t), dir: t.TempDir()}
	n.addr = "127.0.0.1:" + strconv.Itoa(n.port)
	n.conf = filepath.Join(n.dir, "node.conf")
	lines = append([]string{"port " + strconv.Itoa(n.port), "bind 127.0.0.1", "dir " + n.dir}, lines...)
	if err := os.WriteFile(n.conf, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n.client = redis.NewClient(&redis.Options{Addr: n.addr, MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { n.client.Close() })
	t.Cleanup(n.kill)
	n.start()
	return n
}

// floodgate starts a floodgate process with the config lines.
func floodgate(t testing.TB, lines ...string) *node {
	t.Helper()
	// No RDB saves of their own: SIGKILL is how these tests stop a node.
	return newNode(t, floodgateBin, append([]string{`save ""`, "repl-diskless-sync-delay 0"}, lines...)...)
}

// start runs the node and waits until it answers PING.
func (n *node) start() {
	n.t.Helper()
	log, err := os.OpenFile(filepath.Join(n.dir, "node.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		n.t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(n.name, append([]string{n.conf}, n.args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		n.t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	n.cmd, n.exited = cmd, exited
	redistest.Eventually(n.t, n.addr+" answers PING", func() bool {
		select {
		case <-exited:
			n.t.Fatalf("%s on %s exited:\n%s", filepath.Base(n.name), n.addr, n.logText())
		default:
		}
		return redistest.Ping(n.addr)
	})
}

// kill sends SIGKILL and waits for the process to be gone.
func (n *node) kill() {
	if n.cmd != nil {
		n.cmd.Process.Kill()
		<-n.exited
		n.cmd = nil
	}
}

func (n *node) logText() string {
	b, _ := os.ReadFile(filepath.Join(n.dir, "node.log"))
	return string(b)
}

// configText is the node's config file as it is now.
func (n *node) configText() string {
	b, err := os.ReadFile(n.conf)
	if err != nil {
		n.t.Fatal(err)
	}
	return string(b)
}

// info is an INFO section as a map (nil when the node does not answer).
func (n *node) info(section string) map[string]string {
	s, err := n.client.Info(context.Background(), section).Result()
	if err != nil {
		return nil
	}
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":"); ok {
			m[k] = v
		}
	}
	return m
}

// replicaOf reports whether the node is a replica of master with its link
// up.
func (n *node) replicaOf(master *node) bool {
	r := n.info("replication")
	return r["role"] == "slave" && r["master_port"] == strconv.Itoa(master.port) && r["master_link_status"] == "up"
}

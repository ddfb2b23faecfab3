// Command bigargs measures commands with very large arguments against
// several servers in one run: for each workload and server it starts a
// fresh server (so that no earlier run's memory counts), sends the request
// over TCP, times it from the first byte written to the last byte of the
// reply, and reads the server's peak resident set (/proc/PID/status VmHWM),
// its resident set once the reply is read and again -settle later, when a
// server that gives memory back once idle has done so. It prints the median of
// -reps runs, the servers taking turns rep by rep. scripts/bench-bigargs.sh
// runs it.
//
//	go run ./scripts/bigargs -reps 5 'redis=redis-server --port {port} --save ""' 'floodgate=bin/floodgate --port {port}'
//
// {port} in a server's command line is replaced by a free port, and ”
// stands for an empty argument.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/floodgate/floodgate/scripts/internal/schedstat"
)

// server is a server to measure: its name and command line.
type server struct {
	name string
	argv []string
}

// workload is one measured request and the untimed requests before it.
type workload struct {
	name    string
	setup   [][]byte // requests sent before the timed one, untimed
	request []byte
}

func main() {
	reps := flag.Int("reps", 3, "runs of each workload on each server")
	args := flag.Int("args", 1_000_000, "arguments of the many-argument commands")
	bigMB := flag.Int("bigmb", 200, "megabytes of the large SET's value")
	only := flag.String("only", "", "run only the workloads whose name contains this")
	flag.IntVar(&fixedPort, "port", 0, "port for every server started (0: a free one each time)")
	flag.DurationVar(&settle, "settle", 3*time.Second, "how long after the reply the settled resident set is read (0: not read)")
	flag.Parse()
	var servers []server
	for _, spec := range flag.Args() {
		name, cmdline, _ := strings.Cut(spec, "=")
		servers = append(servers, server{name, strings.Fields(cmdline)})
	}
	fmt.Printf("%-12s %-10s %8s %8s %8s %9s %10s\n", "workload", "server", "wall_ms", "cpu_ms", "peak_MB", "after_MB", "settled_MB")
	for _, w := range workloads(*args, *bigMB) {
		if *only != "" && !strings.Contains(w.name, *only) {
			continue
		}
		// The servers take turns rep by rep, so that a machine's load,
		// which changes over a run, weighs on each alike.
		type samples struct{ walls, cpus, peaks, afters, settled []float64 }
		got := make([]samples, len(servers))
		for r := 0; r < *reps; r++ {
			for i, s := range servers {
				m, err := run(s, w)
				if err != nil {
					fmt.Fprintf(os.Stderr, "bigargs: %s on %s: %v\n", w.name, s.name, err)
					os.Exit(1)
				}
				g := &got[i]
				g.walls, g.cpus = append(g.walls, m.wall), append(g.cpus, m.cpu)
				g.peaks, g.afters, g.settled = append(g.peaks, m.peak), append(g.afters, m.after), append(g.settled, m.settled)
			}
		}
		for i, s := range servers {
			g := got[i]
			fmt.Printf("%-12s %-10s %8.0f %8.0f %8.1f %9.1f %10.1f\n", w.name, s.name, median(g.walls), median(g.cpus), median(g.peaks), median(g.afters), median(g.settled))
		}
	}
}

func workloads(n, bigMB int) []workload {
	many := func(cmd string, key bool, arg func(i int) string) []byte {
		parts := []string{cmd}
		if key {
			parts = append(parts, "k")
		}
		total := n
		if cmd == "MSET" && n%2 == 0 {
			total++ // MSET takes pairs
		}
		for i := 0; len(parts) < total; i++ {
			parts = append(parts, arg(i))
		}
		return encode(parts)
	}
	mset := many("MSET", false, func(i int) string {
		if i%2 == 0 {
			return "key:" + strconv.Itoa(i/2)
		}
		return "v" + strconv.Itoa(i)
	})
	// MGET, EXISTS and UNLINK of the n/2 keys MSET made.
	ofKeys := func(cmd string) []byte {
		parts := []string{cmd}
		for i := range n / 2 {
			parts = append(parts, "key:"+strconv.Itoa(i))
		}
		return encode(parts)
	}
	zadd := []string{"ZADD", "k"}
	for i := 0; len(zadd) < n; i++ {
		zadd = append(zadd, strconv.Itoa(i), "m"+strconv.Itoa(i))
	}
	eval := []string{"EVAL", "return #ARGV", "0"}
	for i := 0; len(eval) < n+3; i++ {
		eval = append(eval, "a"+strconv.Itoa(i))
	}
	sadd := many("SADD", true, func(i int) string { return "m" + strconv.Itoa(i) })
	bigRPush := []string{"RPUSH", "k"}
	for i := 0; i < 10; i++ {
		bigRPush = append(bigRPush, strings.Repeat(string(rune('a'+i)), 20<<20))
	}
	// cmd k <bigMB of x>
	bigValue := func(cmd string) []byte {
		b := make([]byte, 0, bigMB<<20+64)
		b = fmt.Appendf(b, "*3\r\n$%d\r\n%s\r\n$1\r\nk\r\n$%d\r\n", len(cmd), cmd, bigMB<<20)
		b = append(b, bytes.Repeat([]byte{'x'}, bigMB<<20)...)
		return append(b, "\r\n"...)
	}
	hset := many("HSET", true, func(i int) string { return "f" + strconv.Itoa(i) })
	// SREM of every member SADD added, HDEL of every field HSET did.
	srem := many("SREM", true, func(i int) string { return "m" + strconv.Itoa(i) })
	hdel := []string{"HDEL", "k"}
	for i := 0; len(hdel) < n/2+2; i += 2 {
		hdel = append(hdel, "f"+strconv.Itoa(i))
	}
	sunion := []string{"SUNION"}
	for i := range n {
		sunion = append(sunion, "s"+strconv.Itoa(i)) // keys that are not there
	}
	return []workload{
		{name: "RPUSH", request: many("RPUSH", true, func(i int) string { return "v" + strconv.Itoa(i) })},
		{name: "SADD", request: sadd},
		{name: "HSET", request: hset},
		{name: "MSET", request: mset},
		{name: "DEL", setup: [][]byte{mset}, request: many("DEL", false, func(i int) string { return "key:" + strconv.Itoa(i) })},
		{name: "MGET", setup: [][]byte{mset}, request: ofKeys("MGET")},
		{name: "EXISTS", setup: [][]byte{mset}, request: ofKeys("EXISTS")},
		{name: "UNLINK", setup: [][]byte{mset}, request: ofKeys("UNLINK")},
		{name: "SREM", setup: [][]byte{sadd}, request: srem},
		{name: "HDEL", setup: [][]byte{hset}, request: encode(hdel)},
		{name: "SUNION1M", request: encode(sunion)},
		{name: "SET200MB", request: bigValue("SET")},
		{name: "RPUSH200MB", request: bigValue("RPUSH")},
		{name: "ZADD", request: encode(zadd)},
		{name: "EVAL", request: encode(eval)},
		{name: "PUSH20MBx10", request: encode(bigRPush)},
		{name: "SUNIONSTORE", setup: [][]byte{sadd}, request: encode([]string{"SUNIONSTORE", "d", "k", "k"})},
	}
}

func encode(parts []string) []byte {
	var b []byte
	b = fmt.Appendf(b, "*%d\r\n", len(parts))
	for _, p := range parts {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(p), p)
	}
	return b
}

// fixedPort, when not 0, is the port each server is started on: the
// servers run one at a time, so one port does for all. settle is how long
// after the reply the settled resident set is read.
var (
	fixedPort int
	settle    time.Duration
)

// measurement is one run of a workload: wall time and server CPU time in
// ms, the server's peak resident set, its resident set after and once
// settled, in MB.
type measurement struct{ wall, cpu, peak, after, settled float64 }

// run starts s, sends w's setup, then measures w's request.
func run(s server, w workload) (m measurement, err error) {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", fixedPort))
	if err != nil {
		return m, err
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	argv := make([]string, len(s.argv))
	for i, a := range s.argv {
		argv[i] = strings.ReplaceAll(a, "{port}", port)
		if a == "''" {
			argv[i] = "" // an empty argument: --save ''
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = os.TempDir() // where a server would write its files
	if err := cmd.Start(); err != nil {
		return m, err
	}
	defer stop(cmd)
	var c net.Conn
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err = net.Dial("tcp", addr); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return m, err
	}
	defer c.Close()
	rd := bufio.NewReaderSize(c, 1<<16)
	for _, req := range w.setup {
		if _, err := c.Write(req); err != nil {
			return m, err
		}
		if _, err := readReply(rd); err != nil {
			return m, err
		}
	}
	pid := cmd.Process.Pid
	if len(w.setup) > 0 {
		waitIdle(pid)
	}
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return m, err
	}
	cpu0 := schedstat.CPU(pid)
	start := time.Now()
	werr := make(chan error, 1)
	go func() { _, err := c.Write(w.request); werr <- err }()
	reply, err := readReply(rd)
	m.wall = float64(time.Since(start).Microseconds()) / 1000
	m.cpu = float64((schedstat.CPU(pid) - cpu0).Microseconds()) / 1000
	if err == nil {
		err = <-werr
	}
	if err == nil && reply[0] == '-' {
		err = fmt.Errorf("reply %q", reply)
	}
	m.peak, m.after = status(pid, "VmHWM"), status(pid, "VmRSS")
	if err == nil && settle > 0 {
		time.Sleep(settle) // a benchmark, not a test: the server is left idle for a set time
		m.settled = status(pid, "VmRSS")
	}
	return m, err
}

// waitIdle returns once pid has been idle (under half a millisecond of
// CPU each 100 ms) for 1.5 s, or after 20 s: the setup's aftermath (a
// collection of its garbage, an idle heap's purge a second later) is not
// the timed request's. Redis frees a request's memory as it ends, inside
// the request's own time.
func waitIdle(pid int) {
	quiet := 0
	last := schedstat.CPU(pid)
	for deadline := time.Now().Add(20 * time.Second); quiet < 15 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond) // a benchmark's poll of the server's CPU
		now := schedstat.CPU(pid)
		if now-last < 500*time.Microsecond {
			quiet++
		} else {
			quiet = 0
		}
		last = now
	}
}

// stop interrupts the server (so that a CPU profile it writes is
// complete) and kills it if it has not exited within 10 s.
func stop(cmd *exec.Cmd) {
	cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// readReply reads one reply, an array (MGET's) read to its end: the
// first line is returned.
func readReply(rd *bufio.Reader) ([]byte, error) {
	line, err := rd.ReadBytes('\n')
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil || len(line) < 3 {
		return line, err
	}
	n, _ := strconv.Atoi(string(line[1 : len(line)-2]))
	switch line[0] {
	case '*':
		for range n {
			if _, err := readReply(rd); err != nil {
				return line, err
			}
		}
	case '$':
		if n >= 0 {
			_, err = rd.Discard(n + 2)
		}
	}
	return line, err
}

// status is a /proc/PID/status field in MB.
func status(pid int, field string) float64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}

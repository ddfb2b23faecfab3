package redistest

import (
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
)

// A port for a child process (redis-server, a floodgate binary) or for a
// server that must know its address before it listens cannot come from
// listening on port 0: the child binds the number itself. Asking the
// kernel for a free port and closing it again (what FreePort used to do)
// races with everything else on the machine: the kernel hands the same
// ephemeral ports to the next bind(":0") and to outgoing connections, and
// test binaries of other packages run at the same time; packages run in
// parallel failed with "address already in use".
//
// ReservePort takes its numbers from below the kernel's ephemeral range
// (ip_local_port_range), which bind(":0") and connect() never hand out, and
// holds an flock on a file named for the port, shared by every test process
// on the machine, until the test ends: no other test, in this test binary
// or another, is given the same number (flock locks belong to the open
// file, so two opens in one process exclude each other too). A bind checks
// that nothing else (a server started by hand) holds it.

// ReservePort returns a TCP port that nothing listens on and no other test
// (in this process or another) is given until t ends. Bind it as the test
// likes: 127.0.0.1, every interface, or leave it unbound (a port where
// nothing answers).
func ReservePort(t testing.TB) int {
	t.Helper()
	port, release, err := reservePort()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	return port
}

// Reserve is ReservePort for callers without a testing.TB (TestMain,
// state shared by a package's tests): release gives the port back.
func Reserve() (port int, release func(), err error) { return reservePort() }

func reservePort() (port int, release func(), err error) {
	lo, hi := reservableRange()
	dir := filepath.Join(os.TempDir(), "floodgate-test-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return 0, nil, err
	}
	os.Chmod(dir, 0o777|os.ModeSticky) // shared by every user's tests, like /tmp; fails harmlessly if not ours
	for range 1000 {
		port := lo + rand.IntN(hi-lo)
		unlock, ok, err := lockPort(filepath.Join(dir, strconv.Itoa(port)))
		if err != nil {
			return 0, nil, err
		}
		if !ok {
			continue
		}
		if !bindable(port) {
			unlock()
			continue
		}
		var once sync.Once
		return port, func() { once.Do(unlock) }, nil
	}
	return 0, nil, fmt.Errorf("no free port in %d-%d after 1000 tries", lo, hi-1)
}

// bindable reports whether port can be listened on, on every interface
// (which also fails if anything holds it on 127.0.0.1 alone).
func bindable(port int) bool {
	ln, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// reservableRange is the ports ReservePort picks from, [lo, hi): from
// 20000 up to the start of the ephemeral range (32768 on Linux by
// default), or above its end if a machine configured it to start lower.
func reservableRange() (lo, hi int) {
	// FLOODGATE_TEST_PORTS=lo-hi (inclusive) keeps a run inside a range it
	// was given, as on a machine shared by several people's test runs.
	if l, h, ok := strings.Cut(os.Getenv("FLOODGATE_TEST_PORTS"), "-"); ok {
		l, err1 := strconv.Atoi(l)
		h, err2 := strconv.Atoi(h)
		if err1 == nil && err2 == nil && 0 < l && l <= h && h < 65536 {
			return l, h + 1
		}
	}
	ephLo, ephHi := 32768, 60999
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			l, err1 := strconv.Atoi(f[0])
			h, err2 := strconv.Atoi(f[1])
			if err1 == nil && err2 == nil && l <= h {
				ephLo, ephHi = l, h
			}
		}
	}
	if ephLo-20000 >= 2000 {
		return 20000, ephLo
	}
	if 65536-(ephHi+1) >= 2000 {
		return ephHi + 1, 65536
	}
	// An ephemeral range over (almost) everything: nothing is outside it,
	// so take ports below it, or (failing that) the whole range, and let the
	// lock and the bind check do what they can.
	if ephLo-1024 >= 1000 {
		return 1024, ephLo
	}
	return 1024, 65536
}

// errAddrInUse is a child server's report that its port was taken.
var errAddrInUse = errors.New("address already in use")

// listensOn reports whether process pid holds a listening TCP socket on
// port: a PONG on the port may come from another server that got it first
// while pid is about to exit with "address already in use". known is false
// where /proc does not say (then a PONG is taken at its word).
func listensOn(pid, port int) (listens, known bool) {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		known = true
		for _, line := range strings.Split(string(b), "\n")[1:] {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" { // 0A: TCP_LISTEN
				continue
			}
			_, hexPort, ok := strings.Cut(f[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil && int(p) == port {
				inodes["socket:["+f[9]+"]"] = true
			}
		}
	}
	if !known {
		return false, false
	}
	fdDir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(fdDir)
	if err != nil {
		return false, false
	}
	for _, fd := range fds {
		if link, err := os.Readlink(filepath.Join(fdDir, fd.Name())); err == nil && inodes[link] {
			return true, true
		}
	}
	return false, true
}

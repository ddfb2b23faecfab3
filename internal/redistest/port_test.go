package redistest

import (
	"errors"
	"net"
	"strconv"
	"testing"
)

// Reserved ports are outside the kernel's ephemeral range, distinct while
// held, bindable, and locked against every other reservation until
// released.
func TestReservePort(t *testing.T) {
	lo, hi := reservableRange()
	held := map[int]bool{}
	var releases []func()
	for range 50 {
		port, release, err := reservePort()
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, release)
		if port < lo || port >= hi {
			t.Errorf("port %d outside [%d, %d)", port, lo, hi)
		}
		if held[port] {
			t.Fatalf("port %d given out twice", port)
		}
		held[port] = true
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatalf("reserved port %d: %v", port, err)
		}
		ln.Close()
	}
	for _, release := range releases {
		release()
		release() // a second release is harmless
	}
}

// A port held by something that is not a reservation (here a listener on
// it) is skipped.
func TestReservePortSkipsBoundPorts(t *testing.T) {
	port, release, err := reservePort()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	release()
	if bindable(port) {
		t.Fatalf("port %d with a listener on 127.0.0.1 counted as bindable", port)
	}
}

// Launch gives each redis-server a port of its own, and a port taken
// behind the reservation's back is retried on another one.
func TestLaunchRetriesATakenPort(t *testing.T) {
	s := Start(t)
	if !Ping(s.Addr) {
		t.Fatal("no PONG")
	}
	// A second redis-server on the first's port fails with "Address
	// already in use", which Start reports as errAddrInUse.
	clash := &Server{Addr: s.Addr, Port: s.Port, Dir: t.TempDir(), args: []string{"--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1", "--save", ""}}
	err := clash.Start()
	if err == nil {
		clash.Stop()
		t.Fatal("a second redis-server on a taken port started")
	}
	if !errors.Is(err, errAddrInUse) {
		t.Fatalf("Start on a taken port: %v, want errAddrInUse", err)
	}
}

// FLOODGATE_TEST_PORTS narrows the range when it is a valid one and is
// ignored otherwise.
func TestReservableRangeFromEnv(t *testing.T) {
	t.Setenv("FLOODGATE_TEST_PORTS", "")
	defLo, defHi := reservableRange()
	for _, c := range []struct {
		env    string
		lo, hi int
	}{
		{"27510-27529", 27510, 27530},
		{"40000-40000", 40000, 40001},
		{"27529-27510", defLo, defHi},
		{"0-10", defLo, defHi},
		{"1-65536", defLo, defHi},
		{"x-10", defLo, defHi},
		{"27510", defLo, defHi},
	} {
		t.Setenv("FLOODGATE_TEST_PORTS", c.env)
		if lo, hi := reservableRange(); lo != c.lo || hi != c.hi {
			t.Errorf("%q: [%d, %d), want [%d, %d)", c.env, lo, hi, c.lo, c.hi)
		}
	}
}

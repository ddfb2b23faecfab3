package server

import (
	"bufio"
	"io"
	"net"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/floodgate/floodgate/store"
)

// blockGate lets a test hold a command inside its handler; a test that uses
// it sets a fresh one first (newBlockGate), so it can run again (-count).
var blockGate struct{ running, release chan struct{} }

func newBlockGate() {
	blockGate.running = make(chan struct{}, 1)
	blockGate.release = make(chan struct{})
}

func init() {
	register(&Command{Name: "test.block", Arity: 1, Handler: func(c *Client, args [][]byte) {
		gate := blockGate
		gate.running <- struct{}{}
		<-gate.release
		c.w.Status("UNBLOCKED")
	}})
}

func TestCloseFinishesBatchInFlight(t *testing.T) {
	for _, goroutineConns := range []bool{false, true} {
		t.Run(map[bool]string{false: viaLoop, true: viaGoroutine}[goroutineConns], func(t *testing.T) {
			testCloseFinishesBatchInFlight(t, goroutineConns)
		})
	}
}

func testCloseFinishesBatchInFlight(t *testing.T, goroutineConns bool) {
	newBlockGate()
	goroutines := runtime.NumGoroutine()
	srv := New(Config{Addr: "127.0.0.1:0", GoroutineConns: goroutineConns})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	idle, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	// One batch: the blocking command and a PING behind it.
	if _, err := conn.Write([]byte("*1\r\n$10\r\ntest.block\r\n*1\r\n$4\r\nPING\r\n")); err != nil {
		t.Fatal(err)
	}
	<-blockGate.running
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	// A second Close (the binary's, after SHUTDOWN began one) must wait too.
	closedAgain := make(chan struct{})
	go func() { srv.Close(); close(closedAgain) }()
	select {
	case <-closed:
		t.Fatal("Close returned while a batch was still running")
	case <-closedAgain:
		t.Fatal("second Close returned while the first was still draining")
	case <-time.After(50 * time.Millisecond):
	}
	close(blockGate.release)
	<-closed
	<-closedAgain
	got, _ := io.ReadAll(bufio.NewReader(conn))
	if want := "+UNBLOCKED\r\n+PONG\r\n"; string(got) != want {
		t.Fatalf("replies after Close = %q, want %q then EOF", got, want)
	}
	if n, err := idle.Read(make([]byte, 1)); err == nil {
		t.Fatalf("idle connection still open after Close (read %d bytes)", n)
	}
	if _, err := net.Dial("tcp", srv.Addr()); err == nil {
		t.Fatal("server still accepting after Close")
	}
	waitFor(t, "the server's goroutines to end after Close", func() bool {
		return runtime.NumGoroutine() <= goroutines+2
	})
}

func TestPipelineRepliesInOrder(t *testing.T) {
	srv := startServer(t, Config{})
	conn, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var req, want []byte
	for i := 0; i < 1000; i++ {
		req = append(req, "*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n"...)
		want = append(want, ":"+itoa(int64(i+1))+"\r\n"...)
	}
	if _, err := conn.Write(req); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(want))
	conn.SetReadDeadline(time.Now().Add(testDeadline))
	if _, err := io.ReadFull(conn, got); err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("pipelined INCR replies out of order or wrong")
	}
}

// clockedServer is a started server on a manual clock, for the package's own
// tests (servertest's WithManualClock and FastForward serve everyone else).
type clockedServer struct {
	*Server
	clock *store.ManualClock
}

func startClockedServer(t testing.TB, t0 time.Time) *clockedServer {
	t.Helper()
	clock := store.NewManualClock(t0)
	return &clockedServer{Server: startServer(t, Config{Clock: clock}), clock: clock}
}

// SetTime and FastForward move the clock, then expire what is due, as
// servertest's do.
func (s *clockedServer) SetTime(t time.Time) { s.clock.Set(t); s.ExpireNow() }

func (s *clockedServer) FastForward(d time.Duration) { s.clock.Add(d); s.ExpireNow() }

// serverSizeLimit is the largest Server that fits the 3,456 B size class
// with the 8 B header Go puts before an object of over 512 B that holds
// pointers. A test double allocates one Server per start, and one more
// byte takes it to the 4,096 B class (BenchmarkStartClose in servertest):
// move a group that few servers use behind a pointer made on first use
// (limiterStats.counts, scripting.caller, tlsState.settings, clientPeaks)
// rather than raise this.
const serverSizeLimit = 3456 - 8

func TestServerSizeClass(t *testing.T) {
	if size := unsafe.Sizeof(Server{}); size > serverSizeLimit {
		t.Fatalf("Server is %d B, over %d B: a size class more per start", size, serverSizeLimit)
	}
}

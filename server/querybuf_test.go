package server

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/floodgate/floodgate/internal/resp"
)

// stubTransport is a transport that moves no bytes, for feeding a conn
// directly.
type stubTransport struct{}

func (stubTransport) Kill()             {}
func (stubTransport) Interrupt()        {}
func (stubTransport) LocalAddr() string { return "" }
func (stubTransport) SocketFD() int     { return -1 }
func (stubTransport) Woke()             {}

// feedConn returns a conn of an authenticated client reading into its own
// query buffer, as an event-loop connection does, without a socket.
func feedConn(t *testing.T) *conn {
	t.Helper()
	srv := New(Config{})
	cn := newConn(srv, stubTransport{})
	cn.client = &Client{srv: srv, conn: cn, authed: true}
	return cn
}

// feed hands data to cn in reads of at most chunk bytes, as the event
// loop does, and returns how many times the query buffer was reallocated
// or sealed and replaced.
func feed(t *testing.T, cn *conn, data string, chunk int) (grown int) {
	t.Helper()
	for len(data) > 0 {
		before := unsafe.SliceData(cn.in[:cap(cn.in)])
		buf := cn.ReadBuf(nil)
		n := copy(buf, data[:min(chunk, len(data))])
		data = data[n:]
		if !cn.Received(buf, n, false) {
			t.Fatal("connection closed")
		}
		if unsafe.SliceData(cn.in[:cap(cn.in)]) != before {
			grown++
		}
	}
	return grown
}

// A request that takes many reads is copied O(1) times per byte: growing
// by a fixed step copied a 1M-argument request once per 16 KB read (4.5 GB
// of copying for 13 MB). A big bulk grows the buffer geometrically to hold
// it; many small arguments are sealed as they arrive, so that the buffer
// holds only the last of them (TestLoopLongRequest runs such requests).
func TestQueryBufferLongRequest(t *testing.T) {
	cases := []struct {
		name, req string
		sealed    bool
	}{
		{"many small arguments", "*200001\r\n$5\r\nRPUSH\r\n$1\r\nl" + strings.Repeat("\r\n$6\r\nvalue1", 199999) + "\r\n", true},
		{"one big argument", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3000000\r\n" + strings.Repeat("x", 3000000) + "\r\n", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cn := feedConn(t)
			partial := tc.req[:len(tc.req)-1] // not complete yet: nothing runs
			grown := feed(t, cn, partial, 16<<10)
			// Doubling from 16 KB to the request's size, and a few more.
			limit := 4
			for size := 16 << 10; size < len(partial); size *= 2 {
				limit++
			}
			held := len(partial)
			if tc.sealed {
				held = len(cn.in) // the start is sealed
				if held > sealedBufMax {
					t.Fatalf("the buffer holds %d bytes of a request of many small arguments, want at most %d", held, sealedBufMax)
				}
				if got := transientHeld(cn.srv); got < uint64(len(partial)-held) {
					t.Fatalf("the GC tuner counts %d bytes of the partial request, want at least the %d sealed", got, len(partial)-held)
				}
			}
			if grown > limit || len(cn.in) != held {
				t.Fatalf("%d bytes in %d reads: buffer reallocated %d times (want at most %d), holds %d (want %d)", len(partial), len(partial)/(16<<10), grown, limit, len(cn.in), held)
			}
			cn.srv.closedConn(cn)
			if got := transientHeld(cn.srv); got != 0 {
				t.Fatalf("the GC tuner counts %d bytes after the connection closed", got)
			}
		})
	}
}

// A big bulk whose length is known is read into a buffer of the request's
// size, as Redis reads a PROTO_MBULK_BIG_ARG bulk.
func TestQueryBufferBigBulkExact(t *testing.T) {
	cn := feedConn(t)
	head := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1000000\r\n"
	feed(t, cn, head+strings.Repeat("x", 100), 1<<20)
	// The next read goes into a buffer of the request's size, asking for
	// the rest of the bulk.
	buf := cn.ReadBuf(nil)
	if want := len(head) + 1000000 + 2; cap(cn.in) != want || len(buf) != 1000000-100+2 {
		t.Fatalf("after the bulk's header: capacity %d, read room %d; want %d, %d", cap(cn.in), len(buf), want, 1000000-100+2)
	}
}

func TestLend(t *testing.T) {
	cn := feedConn(t)
	cn.in = make([]byte, 100<<10, 120<<10)
	cases := []struct {
		name string
		b    []byte
		want bool
	}{
		{"big, most of the buffer", cn.in[10 : 90<<10], true},
		{"under bigArg", cn.in[10 : 10+bigArg-1], false},
		{"half the buffer or less", cn.in[:60<<10], false},
		{"outside the buffer", make([]byte, 100<<10), false},
	}
	for _, tc := range cases {
		cn.lent = false
		if got := cn.lend(tc.b); got != tc.want || cn.lent != tc.want {
			t.Errorf("%s: lend %v, lent %v; want %v", tc.name, got, cn.lent, tc.want)
		}
	}
}

// resizeQueryBuffer follows clientsCronResizeQueryBuffer.
func TestResizeQueryBuffer(t *testing.T) {
	cases := []struct {
		name            string
		len, cap, peak  int
		idle            time.Duration
		wantLen, wantCp int
		bulk            int64 // the length of the bulk being read; 0: none
	}{
		{"idle, empty: freed", 0, 16 << 10, 100, 3 * time.Second, 0, 0, 0},
		{"idle, partial: cut to it", 5000, 64 << 10, 5000, 3 * time.Second, 5000, 5000, 0},
		{"idle two seconds: kept", 0, 16 << 10, 100, 2 * time.Second, 0, 16 << 10, 0},
		{"little waste: kept", 0, 4 << 10, 0, time.Hour, 0, 4 << 10, 0},
		{"big, low peak: cut to the peak", 0, 400 << 10, 130, 0, 0, 130, 0},
		{"big, peak over half: kept", 0, 400 << 10, 201 << 10, 0, 0, 400 << 10, 0},
		{"under the threshold: kept", 0, 32 << 10, 10, 0, 0, 32 << 10, 0},
		{"a big bulk being read: kept", 50 << 10, 400<<10 + 100, 50 << 10, 0, 50 << 10, 400<<10 + 100, 400 << 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cn := feedConn(t)
			cn.in = make([]byte, tc.len, tc.cap)
			copy(cn.in, strings.Repeat("*", tc.len))
			cn.inPeak = tc.peak
			if tc.bulk > 0 {
				header := "*1\r\n$" + strconv.FormatInt(tc.bulk, 10) + "\r\n"
				if st, _, _, _ := cn.parser.Next([]byte(header), true); st != resp.ParseIncomplete {
					t.Fatalf("parsing %q: %v", header, st)
				}
			}
			now := ioClock()
			cn.lastIO.Store(now - int64(tc.idle))
			cn.ResizeQueryBuffer(now)
			if len(cn.in) != tc.wantLen || cap(cn.in) != tc.wantCp || strings.Trim(string(cn.in), "*") != "" {
				t.Fatalf("len %d cap %d, want %d %d", len(cn.in), cap(cn.in), tc.wantLen, tc.wantCp)
			}
			if got := cn.qbufFree.Load(); tc.wantCp != tc.cap && got != int64(tc.wantCp-tc.wantLen) {
				t.Fatalf("qbuf-free %d, want %d", got, tc.wantCp-tc.wantLen)
			}
			if want := max(len(cn.in), int(tc.bulk)); cn.inPeak != want {
				t.Fatalf("peak %d after, want %d", cn.inPeak, want)
			}
		})
	}
}

// A SET of a big argument keeps the query buffer as its value; the
// requests after it in the buffer move out of it and run intact, and the
// value stays the client's to change.
func TestBigSetKeepsQueryBuffer(t *testing.T) {
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	big := strings.Repeat("v", 200<<10)
	c.send(fmt.Sprintf("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n%s\r\n*2\r\n$4\r\nECHO\r\n$3\r\nab", len(big), big))
	c.expect("+OK\r\n")
	c.send("c\r\n*4\r\n$8\r\nSETRANGE\r\n$1\r\nk\r\n$1\r\n0\r\n$1\r\nw\r\n*3\r\n$6\r\nAPPEND\r\n$1\r\nk\r\n$1\r\nz\r\n")
	c.expect(fmt.Sprintf("$3\r\nabc\r\n:%d\r\n:%d\r\n", len(big), len(big)+1))
	c.send("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")
	if got, want := readBulk(t, c), "w"+big[1:]+"z"; got != want {
		t.Fatalf("GET: %d bytes, want %d (%q...)", len(got), len(want), got[:min(len(got), 8)])
	}
}

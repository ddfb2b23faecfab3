package server

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/resp"
)

// A request whose bulk is larger than a read arrives over many reads; the
// loop sizes its buffer from the bulk's header and answers it whole.
func TestLoopLargeRequest(t *testing.T) {
	parallel(t)
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	value := strings.Repeat("0123456789", 3<<20/10) // 3 MB
	c.send(fmt.Sprintf("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n%s\r\n*2\r\n$6\r\nSTRLEN\r\n$1\r\nk\r\n", len(value), value))
	c.expect(fmt.Sprintf("+OK\r\n:%d\r\n", len(value)))
	c.send("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")
	c.expect(fmt.Sprintf("$%d\r\n%s\r\n", len(value), value))
}

// longMSet is an MSET of n pairs, its i-th value "v<i>" except the
// pair at big, whose value is bigValue: a request over many reads, whose
// complete arguments the connection seals as it goes.
func longMSet(n, big int, bigValue string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n$4\r\nMSET\r\n", 1+2*n)
	for i := range n {
		k, v := fmt.Sprint("key:", i), fmt.Sprint("v", i)
		if i == big {
			v = bigValue
		}
		fmt.Fprintf(&b, "$%d\r\n%s\r\n$%d\r\n%s\r\n", len(k), k, len(v), v)
	}
	return b.String()
}

// A request of many arguments over many reads (its first parts sealed, so
// that it is never whole in one buffer), with a bulk larger than a read in
// the middle, runs with every argument intact, and so does the request
// pipelined after it.
func TestLoopLongRequest(t *testing.T) {
	parallel(t)
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	const n = 50000
	big := strings.Repeat("0123456789", 200<<10/10) // 200 KB
	c.send(longMSet(n, n/2, big) + "*4\r\n$4\r\nMGET\r\n$5\r\nkey:0\r\n$9\r\nkey:49999\r\n$9\r\nkey:12345\r\n")
	c.expect("+OK\r\n*3\r\n$2\r\nv0\r\n$6\r\nv49999\r\n$6\r\nv12345\r\n")
	c.send("*2\r\n$6\r\nSTRLEN\r\n$9\r\nkey:25000\r\n*1\r\n$6\r\nDBSIZE\r\n")
	c.expect(fmt.Sprintf(":%d\r\n:%d\r\n", len(big), n))
	if held := transientHeld(srv); held != 0 {
		t.Fatalf("the GC tuner still counts %d bytes of requests that have run", held)
	}
}

// A request of big bulks, each read into a buffer of its size that the
// parser then keeps as the bulk's part (resp.Parser.Seal), runs with each
// bulk intact, and so does the request after it, read into new buffers.
func TestLoopBigBulksKept(t *testing.T) {
	parallel(t)
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	var req, want strings.Builder
	const n = 6
	fmt.Fprintf(&req, "*%d\r\n$5\r\nRPUSH\r\n$1\r\nk\r\n", 2+n)
	fmt.Fprintf(&want, "*%d\r\n", n)
	for i := range n {
		v := strings.Repeat(string(rune('a'+i)), 300<<10+i) // 300 KB, each its own length
		fmt.Fprintf(&req, "$%d\r\n%s\r\n", len(v), v)
		fmt.Fprintf(&want, "$%d\r\n%s\r\n", len(v), v)
	}
	c.send(req.String() + "*4\r\n$6\r\nLRANGE\r\n$1\r\nk\r\n$1\r\n0\r\n$2\r\n-1\r\n")
	c.expect(fmt.Sprintf(":%d\r\n", n) + want.String())
	// MSET keeps such values as they are (conn.lend); each stays its own
	// when another is appended to.
	req.Reset()
	want.Reset()
	fmt.Fprintf(&req, "*%d\r\n$4\r\nMSET\r\n", 1+2*n)
	get := fmt.Sprintf("*%d\r\n$4\r\nMGET\r\n", 1+n)
	fmt.Fprintf(&want, "*%d\r\n", n)
	for i := range n {
		v := strings.Repeat(string(rune('A'+i)), 300<<10+i)
		fmt.Fprintf(&req, "$2\r\nm%d\r\n$%d\r\n%s\r\n", i, len(v), v)
		get += fmt.Sprintf("$2\r\nm%d\r\n", i)
		if i == 0 {
			v += "+" // APPENDed below
		}
		fmt.Fprintf(&want, "$%d\r\n%s\r\n", len(v), v)
	}
	c.send(req.String())
	c.expect("+OK\r\n")
	c.send("*3\r\n$6\r\nAPPEND\r\n$2\r\nm0\r\n$1\r\n+\r\n" + get)
	c.expect(fmt.Sprintf(":%d\r\n", 300<<10+1) + want.String())
	if held := transientHeld(srv); held != 0 {
		t.Fatalf("the GC tuner still counts %d bytes of requests that have run", held)
	}
}

// A big bulk's buffer is held for the GC tuner while it is read and until
// its request has run, and given back after, also by a client that goes
// away halfway.
func TestLoopBigBulkHeld(t *testing.T) {
	parallel(t)
	srv := startProtocolServer(t, Config{})
	const size = hugeBufMin + 1<<20
	v := strings.Repeat("v", size)
	head := fmt.Sprintf("*3\r\n$5\r\nRPUSH\r\n$1\r\nk\r\n$%d\r\n", size)
	c := dialRaw(t, srv)
	c.send(head + v[:size/2])
	waitFor(t, "the bulk's buffer held", func() bool { return transientHeld(srv) >= size })
	c.send(v[size/2:] + "\r\n*2\r\n$4\r\nLLEN\r\n$1\r\nk\r\n")
	c.expect(":1\r\n:1\r\n")
	if held := transientHeld(srv); held != 0 {
		t.Fatalf("the GC tuner still counts %d bytes of a request that has run", held)
	}
	gone := dialRaw(t, srv)
	gone.send(head + v[:size/2])
	waitFor(t, "the second bulk's buffer held", func() bool { return transientHeld(srv) >= size })
	gone.c.Close()
	waitFor(t, "the hold given back", func() bool { return transientHeld(srv) == 0 })
}

// transientHeld is what the GC tuner counts of long requests.
func transientHeld(srv *Server) uint64 {
	srv.gc.mu.Lock()
	defer srv.gc.mu.Unlock()
	return srv.gc.transient
}

// A long request that CLIENT PAUSE holds back, whose start was sealed,
// runs whole once the pause ends, before what was sent after it.
func TestLoopLongRequestPaused(t *testing.T) {
	parallel(t)
	srv := startProtocolServer(t, Config{})
	admin, c := dialRaw(t, srv), dialRaw(t, srv)
	admin.send("CLIENT PAUSE 100000 WRITE\r\n")
	admin.expect("+OK\r\n")
	const n = 20000
	c.send(longMSet(n, -1, "") + "*2\r\n$3\r\nGET\r\n$9\r\nkey:19999\r\n")
	waitFor(t, "the MSET to wait for the pause", func() bool {
		admin.send("INFO clients\r\n")
		return infoField(admin.bulk(), "blocked_clients") == "1"
	})
	admin.send("CLIENT UNPAUSE\r\n")
	admin.expect("+OK\r\n")
	c.expect("+OK\r\n$6\r\nv19999\r\n")
	c.send("*1\r\n$6\r\nDBSIZE\r\n")
	c.expect(fmt.Sprintf(":%d\r\n", n))
}

// A client that sends a long pipeline before reading stops being read
// while its replies wait, and then gets every reply, in order.
func TestLoopSlowReader(t *testing.T) {
	parallel(t)
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	const n = 20000
	payload := strings.Repeat("x", 1000)
	var req strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&req, "*2\r\n$4\r\nECHO\r\n$%d\r\n%s\r\n", len(payload), payload)
	}
	// 20 MB of replies: more than the socket buffers hold, so the server
	// must wait for the client to read while the client is still writing.
	sent := make(chan error, 1)
	go func() {
		_, err := c.c.Write([]byte(req.String()))
		sent <- err
	}()
	want := fmt.Sprintf("$%d\r\n%s\r\n", len(payload), payload)
	for i := 0; i < n; i++ {
		c.expect(want)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	other := dialRaw(t, srv)
	other.send("PING\r\n")
	other.expect("+PONG\r\n")
}

// Scripts past their time limit are answered across transports: a script
// run for an event-loop client makes Dial clients see BUSY, and the other
// way round, and SCRIPT KILL from either side stops it.
func TestBusyAcrossTransports(t *testing.T) {
	srv, _ := newScriptTestServer(t, 20*time.Millisecond)
	ctx := context.Background()
	const spin = `while true do end`
	for _, tc := range []struct{ name, runner, other string }{
		{"script over TCP", viaLoop, viaDial},
		{"script over Dial", viaDial, viaLoop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runner, other := dialOver(t, srv, tc.runner), dialOver(t, srv, tc.other)
			done := make(chan error, 1)
			go func() { done <- runner.Eval(ctx, spin, nil).Err() }()
			waitFor(t, "BUSY", func() bool { return errText(other.Ping(ctx).Err()) == errBusy })
			if err := other.ScriptKill(ctx).Err(); err != nil {
				t.Fatalf("SCRIPT KILL: %v", err)
			}
			if err := <-done; !strings.Contains(errText(err), "Script killed by user") {
				t.Fatalf("script: %v", err)
			}
			if err := other.Ping(ctx).Err(); err != nil {
				t.Fatalf("PING after the kill: %v", err)
			}
		})
	}
}

// TestOtherTransports runs the protocol and busy-script tests again over
// TCP served on goroutines (GoroutineConns), over Dial, and on an event
// loop that parks in Go's netpoller instead of sleeping in epoll_wait on a
// processor of its own (transport.Loop.wait): every transport only moves
// bytes into the same parser and dispatch, so each answers byte for byte
// as the event loop does. The transports run at the same time, each
// with its own servers (as the tests they run share nothing), and the
// tests over one transport run in order.
func TestOtherTransports(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{viaGoroutine, viaDial, viaParkedLoop} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			useTransport(t, transport)
			for _, tc := range []struct {
				name string
				test func(*testing.T)
			}{
				{"Inline", TestProtocolInline},
				{"ByteAtATime", TestProtocolByteAtATime},
				{"Pipeline", TestProtocolPipeline},
				{"EmptyRequests", TestProtocolEmptyRequests},
				{"Limits", TestProtocolLimits},
				{"UnauthenticatedLimits", TestProtocolUnauthenticatedLimits},
				{"HandlerPanic", TestProtocolHandlerPanic},
				{"Shutdown", TestShutdown},
				{"LargeRequest", TestLoopLargeRequest},
				{"LongRequest", TestLoopLongRequest},
				{"LongRequestPaused", TestLoopLongRequestPaused},
				{"SlowReader", TestLoopSlowReader},
				{"ClientGoneMidReply", TestLoopClientGoneMidReply},
				{"ClientKill", TestClientKill},
				{"ScriptBusyAndKill", TestScriptBusyAndKill},
				{"ScriptUnkillableAfterWrite", TestScriptUnkillableAfterWrite},
				{"BusyCommandsAreCounted", TestBusyCommandsAreCounted},
				{"ServesWhileLoading", TestServesWhileLoading},
			} {
				t.Run(tc.name, tc.test)
			}
		})
	}
}

// A client that goes away with replies still to come costs the server
// nothing but the connection: the write fails (no SIGPIPE), the connection
// is released, and everyone else is served.
func TestLoopClientGoneMidReply(t *testing.T) {
	parallel(t)
	srv := startProtocolServer(t, Config{})
	// Five clients, each with 5 MB of replies to come, far past what the
	// sockets hold (twenty took 8 s under the race detector, a transport).
	for i := 0; i < 5; i++ {
		c := dialRaw(t, srv)
		c.send(strings.Repeat("*2\r\n$4\r\nECHO\r\n$1000\r\n"+strings.Repeat("y", 1000)+"\r\n", 5000))
		c.c.Close()
	}
	other := dialRaw(t, srv)
	other.send("PING\r\n")
	other.expect("+PONG\r\n")
	waitFor(t, "the closed connections released", func() bool { return srv.CurrentConnectionCount() == 1 })
}

// While a script is busy, a request is checked in the order of Redis's
// processCommand: an unknown command, a wrong arity or an unknown
// subcommand is told so, then BUSY (EXEC: EXECABORT, ending the
// transaction), while the allow-busy commands (MULTI, WATCH, UNWATCH,
// DISCARD, SCRIPT KILL) run at once. The replies are Redis 7.0's for the
// same requests, whatever transport the script and the asking client use.
func TestBusyAnswersInRedisOrder(t *testing.T) {
	busy := "-" + errBusy + "\r\n"
	const ask = "NOSUCHCMD a\r\nGET\r\nSCRIPT BOGUS\r\nPING\r\nMULTI\r\nNOSUCH\r\nEXEC\r\nMULTI\r\nGET a\r\nWATCH x\r\nEXEC\r\nMULTI\r\nDISCARD\r\nWATCH a\r\nUNWATCH\r\nSCRIPT KILL\r\n"
	want := "-ERR unknown command 'NOSUCHCMD', with args beginning with: 'a' \r\n" +
		"-ERR wrong number of arguments for 'get' command\r\n" +
		"-ERR unknown subcommand 'BOGUS'. Try SCRIPT HELP.\r\n" +
		busy +
		"+OK\r\n" +
		"-ERR unknown command 'NOSUCH', with args beginning with: \r\n" +
		"-EXECABORT Transaction discarded because of: " + errBusy + "\r\n" +
		"+OK\r\n" + busy +
		"-ERR WATCH inside MULTI is not allowed\r\n" +
		"-EXECABORT Transaction discarded because of: " + errBusy + "\r\n" +
		"+OK\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n"
	for _, tcp := range []string{viaLoop, viaGoroutine} {
		srv := startServerOver(t, Config{LuaTimeLimit: 20 * time.Millisecond}, tcp)
		for _, runner := range []string{tcp, viaDial} {
			for _, asker := range []string{tcp, viaDial} {
				t.Run(fmt.Sprintf("%s server, script over %s, asked over %s", tcp, runner, asker), func(t *testing.T) {
					ctx := context.Background()
					done := make(chan error, 1)
					scripter := dialOver(t, srv, runner)
					go func() { done <- scripter.Eval(ctx, `while true do end`, nil).Err() }()
					probe := dialOver(t, srv, asker)
					waitFor(t, "BUSY", func() bool { return errText(probe.Ping(ctx).Err()) == errBusy })
					c := dialRawOver(t, srv, asker)
					c.send(ask)
					c.expect(want)
					if err := <-done; !strings.Contains(errText(err), "Script killed by user") {
						t.Fatalf("script: %v", err)
					}
				})
			}
		}
	}
}

// While a script run for a Dial client is busy, TCP clients are answered
// at once: WATCH (allowed while busy) does not wait for the script, and a
// SCRIPT KILL from another TCP client behind it stops the script.
func TestWatchAndKillWhileDialScriptBusy(t *testing.T) {
	srv, _ := newScriptTestServer(t, 20*time.Millisecond)
	ctx := context.Background()
	done := make(chan error, 1)
	scripter := dialOver(t, srv, viaDial)
	go func() { done <- scripter.Eval(ctx, `while true do end`, nil).Err() }()
	probe := dialOver(t, srv, viaLoop)
	waitFor(t, "BUSY", func() bool { return errText(probe.Ping(ctx).Err()) == errBusy })
	watcher, killer := dialRawOver(t, srv, viaLoop), dialRawOver(t, srv, viaLoop)
	watcher.send("WATCH k\r\n")
	watcher.expect("+OK\r\n")
	killer.send("SCRIPT KILL\r\n")
	killer.expect("+OK\r\n")
	if err := <-done; !strings.Contains(errText(err), "Script killed by user") {
		t.Fatalf("script: %v", err)
	}
	// The watch holds: a write by someone else fails the transaction.
	killer.send("SET k v\r\n")
	killer.expect("+OK\r\n")
	watcher.send("MULTI\r\nGET k\r\nEXEC\r\n")
	watcher.expect("+OK\r\n+QUEUED\r\n*-1\r\n")
}

func init() {
	register(&Command{Name: "test.busypanic", Arity: 1, Flags: FlagAllowBusy, Handler: func(c *Client, args [][]byte) {
		panic("test.busypanic")
	}})
}

// Commands answered while a script is busy go through invoke like any
// other: they are counted in INFO commandstats (SCRIPT KILL's call, PING's
// rejection) and a panic in one is answered with an error.
func TestBusyCommandsAreCounted(t *testing.T) {
	srv, dial := newScriptTestServer(t, 20*time.Millisecond)
	ctx := context.Background()
	done := make(chan error, 1)
	scripter := dial()
	go func() { done <- scripter.Eval(ctx, `while true do end`, nil).Err() }()
	c := dialRaw(t, srv)
	waitFor(t, "BUSY", func() bool {
		c.send("PING\r\n")
		line, err := c.rd.ReadString('\n')
		return err != nil || line == "-"+errBusy+"\r\n"
	})
	c.send("test.busypanic\r\nSCRIPT KILL\r\n")
	c.expect("-ERR internal error while running 'test.busypanic'\r\n+OK\r\n")
	if err := <-done; !strings.Contains(errText(err), "Script killed by user") {
		t.Fatalf("script: %v", err)
	}
	stats, err := dial().Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cmdstat_script|kill:calls=1,", "cmdstat_test.busypanic:calls=1,"} {
		if !strings.Contains(stats, want) {
			t.Errorf("INFO commandstats has no %q:\n%s", want, stats)
		}
	}
	if !regexp.MustCompile(`cmdstat_ping:calls=\d+,usec=\d+,usec_per_call=[\d.]+,rejected_calls=[1-9]`).MatchString(stats) {
		t.Errorf("PING's BUSY not counted as rejected:\n%s", stats)
	}
}

// A long MSET run from its LongArgs logs its first arguments and count in
// the slow log as any request, and one of an even count is refused with
// MSET's arity error; inside MULTI it is queued as slices and runs at EXEC.
// A long DEL counts the keys it deleted.
func TestLoopLongArgs(t *testing.T) {
	parallel(t)
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	const n = 20000
	c.send("*4\r\n$6\r\nCONFIG\r\n$3\r\nSET\r\n$23\r\nslowlog-log-slower-than\r\n$1\r\n0\r\n")
	c.expect("+OK\r\n")
	c.send(longMSet(n, -1, ""))
	c.expect("+OK\r\n")
	rc := newRedisClient(t, srv)
	logged, err := rc.SlowLogGet(context.Background(), 10).Result()
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, e := range logged {
		if len(e.Args) == slowlogMaxArgs && e.Args[0] == "MSET" && e.Args[1] == "key:0" {
			found = e.Args[slowlogMaxArgs-1] == fmt.Sprintf("... (%d more arguments)", 1+2*n-slowlogMaxArgs+1)
		}
	}
	if !found {
		t.Fatalf("no slow log entry of the long MSET with its argument count: %v", logged)
	}
	even := strings.Replace(longMSet(n, -1, ""), fmt.Sprintf("*%d\r\n", 1+2*n), fmt.Sprintf("*%d\r\n", 2+2*n), 1) + "$1\r\nx\r\n"
	c.send(even)
	c.expect("-ERR wrong number of arguments for 'mset' command\r\n")
	c.send("*1\r\n$5\r\nMULTI\r\n" + strings.ReplaceAll(longMSet(n, -1, ""), "\r\nv", "\r\nw") + "*1\r\n$4\r\nEXEC\r\n*2\r\n$3\r\nGET\r\n$5\r\nkey:7\r\n")
	c.expect("+OK\r\n+QUEUED\r\n*1\r\n+OK\r\n$2\r\nw7\r\n")
	// DEL of the keys and as many that are not there.
	var del strings.Builder
	fmt.Fprintf(&del, "*%d\r\n$3\r\nDEL\r\n", 1+2*n)
	for i := range 2 * n {
		k := fmt.Sprint("key:", i)
		fmt.Fprintf(&del, "$%d\r\n%s\r\n", len(k), k)
	}
	c.send(del.String() + "*1\r\n$6\r\nDBSIZE\r\n")
	c.expect(fmt.Sprintf(":%d\r\n:0\r\n", n))

	// The other commands that run from LongArgs, over keys of which half
	// exist, one of them a list.
	c.send(longMSet(n, -1, "") + "*3\r\n$5\r\nRPUSH\r\n$5\r\nkey:1\r\n$1\r\nx\r\n")
	c.expect("+OK\r\n-WRONGTYPE Operation against a key holding the wrong kind of value\r\n")
	c.send("*2\r\n$3\r\nDEL\r\n$5\r\nkey:1\r\n*3\r\n$5\r\nRPUSH\r\n$5\r\nkey:1\r\n$1\r\nx\r\n")
	c.expect(":1\r\n:1\r\n")
	keys := func(name string, extra ...string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "*%d\r\n$%d\r\n%s\r\n", 1+2*n+len(extra), len(name), name)
		for i := range 2 * n {
			k := fmt.Sprint("key:", i)
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(k), k)
		}
		for _, a := range extra {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
		return b.String()
	}
	var mget strings.Builder
	fmt.Fprintf(&mget, "*%d\r\n", 2*n)
	for i := range 2 * n {
		switch {
		case i == 1 || i >= n:
			mget.WriteString("$-1\r\n") // the list, and the missing keys
		default:
			v := fmt.Sprint("v", i)
			fmt.Fprintf(&mget, "$%d\r\n%s\r\n", len(v), v)
		}
	}
	// Each on a connection of its own, whose buffer is sealed as it fills
	// (one that a request before had grown could hold it whole).
	for _, step := range []struct{ req, reply string }{
		{keys("EXISTS"), fmt.Sprintf(":%d\r\n", n)},
		{keys("TOUCH"), fmt.Sprintf(":%d\r\n", n)},
		{keys("MGET"), mget.String()},
		{keys("MSETNX", "last"), "-ERR wrong number of arguments for 'msetnx' command\r\n"}, // a key without its value
		{keys("MSETNX"), ":0\r\n"},                                                          // key:0 exists: nothing is set
		{keys("UNLINK"), fmt.Sprintf(":%d\r\n", n)},
		// The pairs (key:0, key:1), (key:2, key:3)... once none exists.
		{keys("MSETNX") + "*2\r\n$3\r\nGET\r\n$5\r\nkey:2\r\n*1\r\n$6\r\nDBSIZE\r\n", fmt.Sprintf(":1\r\n$5\r\nkey:3\r\n:%d\r\n", n)},
	} {
		fresh := dialRaw(t, srv)
		fresh.send(step.req)
		fresh.expect(step.reply)
	}
}

// runsLong lets a long request run from its LongArgs only when nothing
// but its handler reads its arguments.
func TestRunsLong(t *testing.T) {
	srv := New(Config{})
	c := &Client{srv: srv, authed: true}
	mset := resp.NewLongArgs([][]byte{[]byte("mset"), []byte("k"), []byte("v")})
	if !srv.runsLong(c, mset) || !srv.runsLong(c, resp.NewLongArgs([][]byte{[]byte("DEL"), []byte("k")})) {
		t.Fatal("a plain MSET or DEL does not run from its LongArgs")
	}
	for name, args := range map[string][][]byte{
		"even count":     {[]byte("mset"), []byte("k")},
		"no LongHandler": {[]byte("rpush"), []byte("k"), []byte("v")},
		"unknown":        {[]byte("nosuchcommand")},
	} {
		if srv.runsLong(c, resp.NewLongArgs(args)) {
			t.Errorf("%s: runs from its LongArgs", name)
		}
	}
	c.multi = &multiState{}
	if srv.runsLong(c, mset) {
		t.Error("inside MULTI: runs from its LongArgs")
	}
	c.multi = nil
	srv.monitors = append(srv.monitors, &Client{srv: srv})
	if srv.runsLong(c, mset) {
		t.Error("with a monitor: runs from its LongArgs")
	}
}

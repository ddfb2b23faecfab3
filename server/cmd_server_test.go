package server

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/store"
)

// TestTimeFollowsManualClock: TIME reads the store's clock, seconds and
// microseconds, so moving a test clock moves TIME with the TTLs.
func TestTimeFollowsManualClock(t *testing.T) {
	clock := store.NewManualClock(time.Unix(1700000000, 123456789))
	srv := startProtocolServer(t, Config{Clock: clock})
	c := dialRaw(t, srv)
	c.send("TIME\r\n")
	c.expect("*2\r\n$10\r\n1700000000\r\n$6\r\n123456\r\n")
	clock.Add(90*time.Second + 500*time.Microsecond)
	c.send("TIME\r\n")
	c.expect("*2\r\n$10\r\n1700000090\r\n$6\r\n123956\r\n")
}

// TestCommandCountIsTableSize: COMMAND COUNT counts top-level commands of
// the table (families are still being added, so no fixed number).
func TestCommandCountIsTableSize(t *testing.T) {
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	c.send("COMMAND COUNT\r\n")
	c.expect(fmt.Sprintf(":%d\r\n", len(commandTable.all)))
	if len(commandTable.all) < 20 {
		t.Fatalf("table has only %d commands", len(commandTable.all))
	}
}

// TestCommandTableInfoShape: every command's COMMAND INFO entry has the
// ten fields, and subcommands are named "parent|sub".
func TestCommandTableInfoShape(t *testing.T) {
	initCommandTable()
	for _, cmd := range commandTable.all {
		for _, sub := range cmd.Subcommands {
			if sub.parent != cmd || !strings.HasPrefix(sub.Name, cmd.Name+"|") {
				t.Errorf("subcommand %q of %q", sub.Name, cmd.Name)
			}
		}
		if cmd.Group == "" || cmd.Summary == "" || cmd.Since == "" {
			if !strings.HasPrefix(cmd.Name, "test.") {
				t.Errorf("%s: COMMAND DOCS needs group, summary and since", cmd.Name)
			}
		}
	}
}

// TestNoAuth: with a password only the no_auth commands run before AUTH;
// RESET drops the authentication again.
func TestNoAuth(t *testing.T) {
	srv := startProtocolServer(t, Config{Password: "pw"})
	c := dialRaw(t, srv)
	c.send("PING\r\nGET k\r\nAUTH x\r\nAUTH pw\r\nPING\r\nRESET\r\nPING\r\nHELLO 2 AUTH default pw\r\nPING\r\n")
	c.expect("-NOAUTH Authentication required.\r\n-NOAUTH Authentication required.\r\n" +
		"-WRONGPASS invalid username-password pair or user is disabled.\r\n+OK\r\n+PONG\r\n+RESET\r\n" +
		"-NOAUTH Authentication required.\r\n*14\r\n")
}

// TestConfigSetLuaTimeLimit: CONFIG SET lua-time-limit changes the Config
// the script runner reads, and a failed CONFIG SET changes nothing.
func TestConfigSetLuaTimeLimit(t *testing.T) {
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	c.send("CONFIG SET lua-time-limit 250\r\nCONFIG SET maxmemory 1mb lua-time-limit x\r\nCONFIG GET maxmemory\r\n")
	c.expect("+OK\r\n-ERR CONFIG SET failed (possibly related to argument 'lua-time-limit') - argument couldn't be parsed into an integer\r\n" +
		"*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n")
	srv.Do(func() {
		if srv.cfg.LuaTimeLimit != 250*time.Millisecond {
			t.Errorf("LuaTimeLimit = %v", srv.cfg.LuaTimeLimit)
		}
	})
}

// TestClientKill: CLIENT KILL ID and ADDR close another connection, which
// then leaves CLIENT LIST; SKIPME no closes the caller after its reply.
func TestClientKill(t *testing.T) {
	if transportOf(t) == viaDial {
		t.Skip("Dial's connections all have the address \"pipe\"")
	}
	srv := startProtocolServer(t, Config{})
	admin := dialRaw(t, srv)
	byID := dialRaw(t, srv)
	byAddr := dialRaw(t, srv)
	byID.send("CLIENT ID\r\n")
	line, _ := byID.rd.ReadString('\n')
	id := strings.TrimSpace(line[1:])
	// The server registers a connection after accepting it, concurrently
	// with the test: one round trip guarantees byAddr is known by address.
	byAddr.send("PING\r\n")
	byAddr.expect("+PONG\r\n")
	admin.send("CLIENT KILL ID " + id + "\r\n")
	admin.expect(":1\r\n")
	byID.expectClosed()
	admin.send("CLIENT KILL " + byAddr.c.LocalAddr().String() + "\r\n")
	admin.expect("+OK\r\n")
	byAddr.expectClosed()
	waitFor(t, "one client left after the kills", func() bool { return srv.clientCount() == 1 })
	admin.send("CLIENT KILL SKIPME no ID " + id + "\r\nCLIENT KILL SKIPME no\r\nPING\r\n")
	admin.expect(":0\r\n:1\r\n")
	admin.expectClosed()
}

// TestClientKillWhileWaitingForLock: a request the victim read before it
// was killed, and that waits for the execution lock meanwhile, does not
// run after the kill (Redis frees the client, its input with it). The
// killer is anyone holding the lock: another transport's client, or here
// the test, which kills as CLIENT KILL does.
func TestClientKillWhileWaitingForLock(t *testing.T) {
	for _, tr := range []string{viaLoop, viaGoroutine, viaDial} {
		t.Run(tr, func(t *testing.T) {
			useTransport(t, tr)
			srv := startServer(t, Config{})
			victim := dialRaw(t, srv)
			victim.send("CLIENT ID\r\n")
			line, _ := victim.rd.ReadString('\n')
			id, _ := strconv.ParseInt(strings.TrimSpace(line[1:]), 10, 64)
			var target *Client
			for _, cl := range srv.clientsByID() {
				if cl.id == id {
					target = cl
				}
			}
			srv.lock <- struct{}{}
			victim.send("SET k v\r\n")
			waitFor(t, "the SET waiting for the lock", func() bool { return waitingForLock() })
			srv.killClient(target)
			<-srv.lock
			waitFor(t, "the victim's batch over", func() bool { return !waitingForLock() })
			victim.expectClosed()
			admin := dialRaw(t, srv)
			admin.send("EXISTS k\r\nCLIENT LIST ID " + strconv.FormatInt(id, 10) + "\r\n")
			admin.expect(":0\r\n$0\r\n\r\n")
		})
	}
}

// waitingForLock reports whether some connection's batch waits in
// Server.acquire, as its goroutine's stack says: nothing else shows it.
func waitingForLock() bool {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	return bytes.Contains(buf[:n], []byte("server.(*Server).acquire("))
}

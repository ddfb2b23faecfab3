package conformance

import (
	"bytes"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server"
)

func TestConnection(t *testing.T) {
	runCases(t, []tcase{
		{"ping-echo", []string{"PING", "PING hello", "PING a b", "ECHO hi", "ECHO", "ECHO a b", `ECHO ""`}},
		{"select", []string{"SELECT 15", "SELECT 16", "SELECT -1", "SELECT x", "SELECT", "SELECT 1 2",
			"SELECT 3", "INCR k", "SELECT 0", "GET k", "SELECT 3", "GET k"}},
		{"quit", []string{"QUIT", "@2 QUIT extra args"}},
		{"hello", []string{
			"!type HELLO", "!type HELLO 2", "!type HELLO 2 SETNAME conn1", "CLIENT GETNAME",
			// HELLO's reply carries the connection id: compare its shape.
			"@2 !type HELLO 3", "@2 GET missing",
			"HELLO 4", "HELLO 1", "HELLO 0", "HELLO -1", "HELLO x", "HELLO 99999999999999999999",
			"HELLO 2 AUTH default", "HELLO 2 AUTH", "HELLO 2 SETNAME", "HELLO 2 FOO", "HELLO 2 SETNAME a FOO",
			`HELLO 2 SETNAME "a b"`, `HELLO 2 SETNAME "a\nb"`, "HELLO 2 AUTH nosuch pass",
			"!type HELLO 2 AUTH default anything", "!type hello 2 auth DEFAULT x",
		}},
		{"auth", []string{"AUTH pass", "AUTH default pass", "AUTH nosuch pass", "AUTH a b c", "AUTH", "auth Default x"}},
		{"client-id-name", []string{
			"!type CLIENT ID", "CLIENT ID x", "CLIENT GETNAME", "CLIENT GETNAME x",
			"CLIENT SETNAME conn1", "CLIENT GETNAME", `CLIENT SETNAME "a b"`, `CLIENT SETNAME "a\nb"`,
			`CLIENT SETNAME "\xc3\xa9"`, "CLIENT GETNAME", `CLIENT SETNAME ""`, "CLIENT GETNAME",
			"CLIENT SETNAME", "CLIENT SETNAME a b", "client setname ~!@#",
		}},
		{"client-misc", []string{
			"CLIENT", "CLIENT NOSUCH", "CLIENT nosuch a b", "CLIENT HELP", "CLIENT help x",
			"CLIENT NO-EVICT on", "CLIENT NO-EVICT OFF", "CLIENT NO-EVICT maybe", "CLIENT NO-EVICT", "CLIENT NO-EVICT on off",
			"CLIENT GETREDIR", "CLIENT INFO x",
		}},
		{"client-list", []string{
			"!type CLIENT LIST", "!type CLIENT LIST TYPE normal", "!type CLIENT INFO",
			"CLIENT LIST TYPE master", "CLIENT LIST TYPE replica", "CLIENT LIST TYPE slave", "CLIENT LIST TYPE pubsub",
			"CLIENT LIST TYPE foo", "CLIENT LIST TYPE", "CLIENT LIST ID", "CLIENT LIST ID x", "CLIENT LIST ID 1 x",
			"CLIENT LIST ID 0", "CLIENT LIST ID -5 999999", "CLIENT LIST foo", "CLIENT LIST TYPE normal ID 1",
		}},
		{"client-kill", []string{
			"CLIENT KILL 1.2.3.4:5", "CLIENT KILL ID 999999", "CLIENT KILL ID 0", "CLIENT KILL ID -1", "CLIENT KILL ID x",
			"CLIENT KILL ID 99999999999999999999", "CLIENT KILL ADDR 1.2.3.4:5", "CLIENT KILL LADDR 1.2.3.4:5",
			"CLIENT KILL TYPE foo", "CLIENT KILL TYPE master", "CLIENT KILL USER nosuch", "!type CLIENT KILL USER default",
			"CLIENT KILL SKIPME x", "CLIENT KILL foo bar", "CLIENT KILL a b c", "CLIENT KILL ID 1 ID",
			"CLIENT KILL MAXAGE 0", "CLIENT KILL",
			// Counts of all clients: earlier cases' connections may still be closing.
			"@2 PING", "!type CLIENT KILL TYPE normal SKIPME yes",
		}},
		{"client-kill-self", []string{"CLIENT KILL SKIPME no"}},
		// Redis frees a killed client at once: the killer's next command no
		// longer lists it (go-redis's ClientKillByFilter test), and a push
		// cannot serve it if it was blocked. Inside MULTI, no transport can
		// have closed the socket in between.
		{"client-kill-other", []string{
			"@2 CLIENT SETNAME victim", "@2 !id", "!type CLIENT LIST ID {id@2}",
			"CLIENT KILL ID {id@2}", "CLIENT LIST ID {id@2}", "CLIENT KILL ID {id@2}",
			"@3 CLIENT SETNAME victim3", "@3 !id",
			"MULTI", "CLIENT KILL ID {id@3}", "CLIENT LIST ID {id@3}", "CLIENT KILL ID {id@3}", "EXEC",
		}},
		{"client-kill-blocked", []string{
			"@2 !id", "@2 !send BLPOP l 0", "!blocked=1",
			"MULTI", "CLIENT KILL ID {id@2}", "LPUSH l v", "LLEN l", "EXEC", "LRANGE l 0 -1", "!blocked=0",
			"@3 !id", "@3 !send BLPOP l2 0", "!blocked=1",
			"CLIENT KILL ID {id@3}", "LPUSH l2 v", "LLEN l2", "!blocked=0",
		}},
		{"reset", []string{
			"SELECT 2", "CLIENT SETNAME n", "CLIENT NO-EVICT on", "RESET", "CLIENT GETNAME", "INCR k", "SELECT 2", "GET k",
			"RESET x", "reset",
		}},
		{"swapdb", []string{
			"INCR a", "SELECT 1", "INCR b", "INCR b", "SWAPDB 0 1", "GET b", "GET a", "SELECT 0", "GET a", "GET b",
			"SWAPDB 0 0", "SWAPDB 0 16", "SWAPDB 16 0", "SWAPDB x 1", "SWAPDB 1 x", "SWAPDB x y", "SWAPDB -1 1",
			"SWAPDB 1 -1", "SWAPDB 99999999999999999999 1", "SWAPDB 0", "SWAPDB 0 1 2",
		}},
	})
}

// TestConnectionClientList checks that CLIENT LIST and CLIENT INFO lines
// carry Redis's fields in Redis's order (their values differ: addresses,
// ids, buffer sizes).
func TestConnectionClientList(t *testing.T) {
	fieldNames := func(addr string, args ...string) string {
		c, err := dialRaw(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		c.do("CLIENT", "SETNAME", "probe")
		reply, err := c.do(args...)
		if err != nil {
			t.Fatal(err)
		}
		body := reply[bytes.IndexByte(reply, '\n')+1:]
		line, _, _ := strings.Cut(string(body), "\n")
		var names []string
		for _, f := range strings.Fields(line) {
			name, _, _ := strings.Cut(f, "=")
			names = append(names, name)
		}
		return strings.Join(names, " ")
	}
	for _, args := range [][]string{{"CLIENT", "INFO"}, {"CLIENT", "LIST"}} {
		want := fieldNames(redisAddr, args...)
		for _, addr := range floodgates() {
			if got := fieldNames(addr, args...); want != got {
				t.Errorf("%v fields:\n  redis:     %s\n  %s: %s", args, want, transportName(addr), got)
			}
		}
	}
}

// TestConnectionAuth runs against a redis-server started with requirepass
// and a floodgate with the same password: NOAUTH for ordinary commands, the
// commands allowed before AUTH, and RESET dropping the authentication.
// The cases cannot start with FLUSHALL, so they run here rather than in
// runCases.
func TestConnectionAuth(t *testing.T) {
	const password = "s3cret"
	rAddr := redistest.Start(t, "--requirepass", password).Addr
	srv := server.New(server.Config{Addr: "127.0.0.1:0", Password: password})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cases := []tcase{
		{"noauth", []string{"PING", "GET k", "SELECT 1", "CLIENT ID", "NOSUCH x", "ECHO", "COMMAND COUNT", "CONFIG GET port", "QUIT"}},
		{"auth", []string{
			"AUTH wrong", "GET k", "AUTH default wrong", "AUTH nosuch " + password, "AUTH a b c",
			"AUTH " + password, "GET k", "AUTH wrong", "GET k", "AUTH default " + password, "PING",
		}},
		{"hello", []string{
			"HELLO", "HELLO 2", "HELLO 2 SETNAME x", "HELLO 2 AUTH default wrong", "HELLO 2 AUTH nosuch " + password,
			"HELLO x", "HELLO 4", "HELLO 2 FOO", `HELLO 2 AUTH default wrong SETNAME "a b"`,
			"!type HELLO 2 AUTH default " + password + " SETNAME conn", "CLIENT GETNAME",
		}},
		{"reset", []string{"AUTH " + password, "PING", "RESET", "PING", "CLIENT GETNAME", "AUTH " + password, "PING"}},
	}
	fAddrs := []string{srv.Addr(), dialAddrOf(srv)}
	for _, tc := range cases {
		for _, fAddr := range fAddrs {
			t.Run(tc.name, func(t *testing.T) { compareLines(t, rAddr, fAddr, tc.lines) })
		}
	}
	// Before AUTH, Redis refuses big requests.
	for _, raw := range []string{
		"*10\r\n", "*11\r\n", "*1\r\n$16384\r\n", "*1\r\n$16385\r\n", "*3\r\n$4\r\nECHO\r\n$1\r\na\r\n$16385\r\n",
		"AUTH " + password + "\r\n*11\r\n$4\r\nECHO\r\n", "AUTH " + password + "\r\n*1\r\n$16385\r\n",
	} {
		want := rawExchange(t, rAddr, raw)
		for _, fAddr := range fAddrs {
			if got := rawExchange(t, fAddr, raw); !bytes.Equal(want, got) {
				t.Errorf("%.80q over %s\n%s", raw, transportName(fAddr), replyDiff(want, got))
			}
		}
	}
}

// compareLines sends each line to both servers on one connection each, with
// the modifiers of runCases (except @N), and compares the replies.
func compareLines(t *testing.T, rAddr, fAddr string, lines []string) {
	r, err := dialRaw(rAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	f, err := dialRaw(fAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	for _, line := range lines {
		_, mode, arg, rest := parseModifiers(line)
		args, err := splitArgs(rest)
		if err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		want, errR := r.do(args...)
		got, errF := f.do(args...)
		if errR != nil || errF != nil {
			t.Fatalf("%s: redis %q %v, floodgate %q %v", line, want, errR, got, errF)
		}
		countCommand(args)
		if !sameReply(mode, arg, want, got) {
			t.Errorf("%s\n%s", shortLine(line), replyDiff(want, got))
		}
	}
}

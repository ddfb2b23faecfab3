package conformance

import (
	"strings"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
)

// clientFieldsExact are the CLIENT LIST fields compared by value; the
// rest (ids, addresses, descriptors, allocation sizes, the clock) by
// shape only.
var clientFieldsExact = []string{"name", "flags", "db", "sub", "psub", "ssub", "multi", "qbuf", "argv-mem", "multi-mem",
	"events", "cmd", "user", "resp"}

// TestClientListFields compares CLIENT LIST and CLIENT INFO for clients in
// the states the issue names: one in MULTI with commands queued, one with
// a request half sent, one whose replies wait for a reader, one tracking
// with a redirect, over RESP2 and RESP3.
func TestClientListFields(t *testing.T) {
	for _, addr := range append([]string{redisAddr}, floodgates()...) {
		t.Run(transportName(addr), func(t *testing.T) { compareClients(t, addr) })
	}
}

// clientStates sets up the clients on addr and returns CLIENT LIST's lines
// by client name, the observer's CLIENT INFO, and the tracking target's id.
func clientStates(t *testing.T, addr string) (map[string]map[string]string, map[string]string, string) {
	t.Helper()
	dial := func(name string, setup ...[]string) *rawConn {
		c, err := dialRaw(addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.close)
		for _, cmd := range append([][]string{{"CLIENT", "SETNAME", name}}, setup...) {
			if reply, err := c.do(cmd...); err != nil || reply[0] == '-' {
				t.Fatalf("%s %v: %q %v", addr, cmd, reply, err)
			}
		}
		return c
	}
	obs := dial("fields-obs", []string{"HELLO", "3"})
	target := dial("fields-target")
	idReply, _ := target.do("CLIENT", "ID")
	id := strings.TrimSpace(string(idReply[1:]))
	dial("fields-multi", []string{"SELECT", "2"}, []string{"MULTI"}, []string{"SET", "x", "1"}, []string{"GET", "x"})
	dial("fields-track", []string{"HELLO", "2"}, []string{"CLIENT", "TRACKING", "on", "REDIRECT", id}, []string{"SUBSCRIBE", "fields-ch"})
	for name, cmd := range map[string][]string{"fields-arity": {"GET"}, "fields-unknown": {"NOSUCH"}, "fields-nosub": {"CONFIG", "NOSUCH"}, "fields-ok": {"PING"}} {
		c := dial(name)
		if _, err := c.do(cmd...); err != nil { // refused: lastcmd is what was looked up
			t.Fatal(err)
		}
	}
	partial := dial("fields-partial")
	if err := partial.sendRaw([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\nabc")); err != nil {
		t.Fatal(err)
	}
	slow := dial("fields-slow", []string{"SET", "fields-big", strings.Repeat("v", 1<<20)})
	if err := slow.sendRaw([]byte(strings.Repeat(multibulk([]string{"GET", "fields-big"}), 16))); err != nil {
		t.Fatal(err)
	}
	defer obs.do("DEL", "fields-big")
	var clients map[string]map[string]string
	redistest.Eventually(t, addr+" to hold the half-sent request and the unread replies", func() bool {
		reply, err := obs.do("CLIENT", "LIST")
		if err != nil {
			return false
		}
		clients = map[string]map[string]string{}
		for _, line := range strings.Split(verbatimText(reply), "\n") {
			if f := infoFields(line); strings.HasPrefix(f["name"], "fields-") {
				clients[f["name"]] = f
			}
		}
		return clients["fields-slow"]["events"] == "rw" && clients["fields-partial"]["qbuf"] == "3"
	})
	self, err := obs.do("CLIENT", "INFO")
	if err != nil {
		t.Fatal(err)
	}
	return clients, infoFields(verbatimText(self)), id
}

// verbatimText is the text of a RESP3 verbatim string reply.
func verbatimText(reply []byte) string {
	_, body, _ := strings.Cut(string(reply), "\r\n")
	return strings.TrimPrefix(body, "txt:")
}

func compareClients(t *testing.T, addr string) {
	if addr == redisAddr {
		return // the reference, read by each floodgate's run
	}
	want, wantSelf, wantID := clientStates(t, redisAddr)
	got, gotSelf, gotID := clientStates(t, addr)
	want["self"], got["self"] = wantSelf, gotSelf
	for name, w := range want {
		g := got[name]
		if g == nil {
			t.Errorf("%s: no client %s", addr, name)
			continue
		}
		for _, f := range clientFieldsExact {
			if w[f] != g[f] {
				t.Errorf("%s %s: %s=%q, Redis %q", addr, name, f, g[f], w[f])
			}
		}
		if (w["redir"] == wantID) != (g["redir"] == gotID) || (w["redir"] == "-1") != (g["redir"] == "-1") {
			t.Errorf("%s %s: redir=%s (target %s), Redis %s (target %s)", addr, name, g["redir"], gotID, w["redir"], wantID)
		}
		for f, v := range w {
			if infoShape(f, v) != infoShape(f, g[f]) {
				t.Errorf("%s %s: %s=%q, Redis %q: not the same shape", addr, name, f, g[f], v)
			}
		}
		for _, f := range []string{"age", "idle"} {
			if g[f] != "0" && g[f] != "1" {
				t.Errorf("%s %s: %s=%s for a client made just now", addr, name, f, g[f])
			}
		}
	}
}

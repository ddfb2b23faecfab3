package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestConnSetInfo: Redis 7.0 has no CLIENT SETINFO (it came in 7.2), so
// floodgate refuses it with Redis's error, and neither COMMAND nor CLIENT
// HELP lists it. Clients of 7.2 (go-redis 9, redis-py 5) send it on connect
// and ignore the error.
func TestConnSetInfo(t *testing.T) {
	runCases(t, []tcase{
		{"setinfo", []string{
			"CLIENT SETINFO lib-name x", "CLIENT SETINFO lib-ver 1.0", "client setinfo LIB-NAME x",
			"CLIENT SETINFO", "CLIENT SETINFO lib-name", "CLIENT SETINFO lib-name a b", `CLIENT SETINFO lib-name "a b"`,
			"CLIENT SETINFO nosuch x",
			"COMMAND INFO client|setinfo", "COMMAND DOCS client|setinfo", "COMMAND LIST FILTERBY PATTERN client|set*",
			"CLIENT HELP",
		}},
	})
}

// TestConnQueryBufferFields compares CLIENT LIST's qbuf and argv-mem of a
// client whose partial request waits in its query buffer, and CLIENT
// INFO's of the client asking, with Redis's: qbuf counts the bytes after
// the arguments parsed so far, argv-mem those arguments' bytes, and while
// a command runs, qbuf is all the bytes read. qbuf-free and tot-mem depend
// on allocators: only their shape is compared.
func TestConnQueryBufferFields(t *testing.T) {
	// held is the payload bytes of partial, which qbuf and argv-mem
	// account for once it has all arrived.
	partials := []struct {
		name, partial string
		held          int
	}{
		{"in a bulk", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\nab", 6},
		{"in a header", "*3\r\n$3\r\nSE", 2},
		{"after a bulk", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n", 4},
		{"inline", "PING xyz", 8},
		{"in a big bulk", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n" + strings.Repeat("x", 50000), 50004},
	}
	for _, p := range partials {
		t.Run(p.name, func(t *testing.T) {
			want := partialFields(t, redisAddr, p.partial, p.held)
			for _, addr := range floodgates() {
				if got := partialFields(t, addr, p.partial, p.held); got != want {
					t.Errorf("%s:\n  redis:     %s\n  floodgate: %s", transportName(addr), want, got)
				}
			}
		})
	}
	for _, req := range []string{
		multibulk([]string{"CLIENT", "INFO"}),
		multibulk([]string{"PING"}) + multibulk([]string{"CLIENT", "INFO"}),
		"CLIENT INFO\r\n",
	} {
		want := selfFields(t, redisAddr, req)
		for _, addr := range floodgates() {
			if got := selfFields(t, addr, req); got != want {
				t.Errorf("%q on %s:\n  redis:     %s\n  floodgate: %s", req, transportName(addr), want, got)
			}
		}
	}
}

// partialFields sends partial on a new connection and returns its CLIENT
// LIST qbuf and argv-mem once they account for its held bytes (or after
// 5 s), with the shape of qbuf-free and tot-mem.
func partialFields(t *testing.T, addr, partial string, want int) string {
	t.Helper()
	sender, err := dialRaw(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer sender.close()
	lister, err := dialRaw(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer lister.close()
	if _, err := sender.do("CLIENT", "SETNAME", "partial"); err != nil {
		t.Fatal(err)
	}
	if err := sender.sendRaw([]byte(partial)); err != nil {
		t.Fatal(err)
	}
	// The partial may take several reads: wait until the server holds it
	// all (its parsed arguments and its unparsed rest).
	var fields map[string]string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		reply, err := lister.do("CLIENT", "LIST")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(reply), "\n") {
			if strings.Contains(line, " name=partial ") {
				fields = infoFields(line)
			}
		}
		if held(fields) >= want {
			break
		}
	}
	return fmt.Sprintf("qbuf=%s argv-mem=%s qbuf-free>0:%v tot-mem>0:%v", fields["qbuf"], fields["argv-mem"],
		fields["qbuf-free"] != "0", fields["tot-mem"] != "0")
}

// held is how many bytes of a partial request a CLIENT LIST line accounts
// for: its unparsed bytes and its arguments.
func held(fields map[string]string) int {
	qbuf, _ := strconv.Atoi(fields["qbuf"])
	argv, _ := strconv.Atoi(fields["argv-mem"])
	return qbuf + argv
}

// selfFields sends req, which ends with CLIENT INFO, and returns that
// reply's qbuf, argv-mem and cmd.
func selfFields(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := dialRaw(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if err := c.sendRaw([]byte(req)); err != nil {
		t.Fatal(err)
	}
	var reply []byte
	for n := strings.Count(req, "\r\n*") + 1; n > 0; n-- {
		if reply, err = c.read(); err != nil {
			t.Fatal(err)
		}
	}
	fields := infoFields(string(reply))
	return fmt.Sprintf("qbuf=%s argv-mem=%s qbuf-free>0:%v cmd=%s", fields["qbuf"], fields["argv-mem"], fields["qbuf-free"] != "0", fields["cmd"])
}

// infoFields splits a CLIENT LIST or CLIENT INFO line into its fields.
func infoFields(line string) map[string]string {
	fields := map[string]string{}
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			fields[k] = v
		}
	}
	return fields
}

package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
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
	for _, addr := range append([]string{redisAddr}, floodgates()...) {
		c, err := dialRaw(addr)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.do("SET", "rbuf", strings.Repeat("x", 20000))
		c.close()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, req := range []string{
		multibulk([]string{"CLIENT", "INFO"}),
		multibulk([]string{"PING"}) + multibulk([]string{"CLIENT", "INFO"}),
		"CLIENT INFO\r\n",
		// obl: the replies before CLIENT INFO wait in the reply buffer,
		// which holds 16 KB and sends the rest to the list.
		multibulk([]string{"GET", "rbuf"}) + multibulk([]string{"CLIENT", "INFO"}),
		multibulk([]string{"GETRANGE", "rbuf", "0", "16370"}) + multibulk([]string{"CLIENT", "INFO"}),
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
// reply's qbuf, argv-mem, cmd and reply buffer fields.
func selfFields(t *testing.T, addr, req string) string {
	t.Helper()
	c, fields, err := newClientInfo(addr, req)
	if err != nil {
		t.Fatal(err)
	}
	c.close()
	// rbp is 16384 until the clients cron's first visit resets it, which
	// may come before the request: it is only compared with obl.
	rbp, _ := strconv.Atoi(fields["rbp"])
	obl, _ := strconv.Atoi(fields["obl"])
	return fmt.Sprintf("qbuf=%s argv-mem=%s qbuf-free>0:%v cmd=%s rbs=%s obl=%s rbp>=obl:%v", fields["qbuf"], fields["argv-mem"],
		fields["qbuf-free"] != "0", fields["cmd"], fields["rbs"], fields["obl"], rbp >= obl)
}

// newClientInfo sends req, which ends with CLIENT INFO, on a new
// connection to addr, and returns the connection, open, and CLIENT INFO's
// fields.
//
// A new client's reply buffer is 16 KB until the clients cron's second
// visit, 100-200 ms after it connects (see replyBufferResize), shrinks it
// to 1 KB, and then obl too depends on when the request came. On a busy
// machine the request can come after that on Redis or on floodgate: such
// a sample says nothing of a new client, so it is taken again on another
// connection (until a 30 s deadline, when the last is returned).
func newClientInfo(addr, req string) (*rawConn, map[string]string, error) {
	for deadline := time.Now().Add(30 * time.Second); ; {
		c, err := dialRaw(addr)
		if err != nil {
			return nil, nil, err
		}
		if err := c.sendRaw([]byte(req)); err != nil {
			c.close()
			return nil, nil, err
		}
		var reply []byte
		for n := strings.Count(req, "\r\n*") + 1; n > 0; n-- {
			if reply, err = c.read(); err != nil {
				c.close()
				return nil, nil, err
			}
		}
		fields := infoFields(string(reply))
		if fields["rbs"] == strconv.Itoa(replyBufNew) || time.Now().After(deadline) {
			return c, fields, nil
		}
		c.close()
	}
}

// replyBufNew is a new client's reply buffer, CLIENT INFO's rbs and rbp
// (PROTO_REPLY_CHUNK_BYTES).
const replyBufNew = 16 << 10

// TestConnReplyBufferResize mirrors tests/unit/replybufsize.tcl (which
// needs DEBUG REPLYBUFFER): an idle client's reply buffer (CLIENT INFO's
// rbs) shrinks to 1 KB once its peak is under half of it (the peak of a
// new client, 16 KB, is reset at the clients cron's first visit, a Redis
// 7.0 quirk of seconds compared with milliseconds), and grows back to
// 16 KB while replies fill it; INFO counts both. Every server is watched
// at once.
func TestConnReplyBufferResize(t *testing.T) {
	addrs := append([]string{redisAddr}, floodgates()...)
	results := make([]string, len(addrs))
	var wg sync.WaitGroup
	for i, addr := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = replyBufferResize(addr)
		}()
	}
	wg.Wait()
	for i, addr := range addrs[1:] {
		if results[i+1] != results[0] {
			t.Errorf("%s:\n  redis:     %s\n  floodgate: %s", transportName(addr), results[0], results[i+1])
		}
	}
	if results[0] != "new: rbs=16384 rbp=16384|0 obl=0; idle: rbs=1024; busy: rbs=16384; shrinks>0:true expands>0:true" {
		t.Errorf("Redis: %s", results[0])
	}
}

// replyBufferResize reports a new client's reply buffer figures, and its
// size once idle and once busy (or what it was at a 20 s deadline).
//
// The client is new (newClientInfo).
func replyBufferResize(addr string) string {
	c, f, err := newClientInfo(addr, multibulk([]string{"CLIENT", "INFO"}))
	if err != nil {
		return err.Error()
	}
	defer c.close()
	info := func(args ...string) map[string]string {
		reply, err := c.do(args...)
		if err != nil {
			return map[string]string{"error": err.Error()}
		}
		return infoFields(string(reply))
	}
	if f["rbp"] == "16384" || f["rbp"] == "0" {
		f["rbp"] = "16384|0" // before or after the cron's first visit
	}
	out := fmt.Sprintf("new: rbs=%s rbp=%s obl=%s", f["rbs"], f["rbp"], f["obl"])
	if _, err := c.do("SET", "rbuf:big", strings.Repeat("x", 32768)); err != nil {
		return err.Error()
	}
	waitSize := func(want string, busy bool) string {
		var rbs string
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if busy {
				c.do("GET", "rbuf:big")
			}
			if rbs = info("CLIENT", "INFO")["rbs"]; rbs == want {
				break
			}
		}
		return rbs
	}
	out += "; idle: rbs=" + waitSize("1024", false)
	out += "; busy: rbs=" + waitSize("16384", true)
	reply, _ := c.do("INFO", "stats")
	stats := string(reply)
	return out + fmt.Sprintf("; shrinks>0:%v expands>0:%v", !strings.Contains(stats, "reply_buffer_shrinks:0\r\n"),
		!strings.Contains(stats, "reply_buffer_expands:0\r\n"))
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

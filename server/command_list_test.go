package server

import (
	"bufio"
	"context"
	"strings"
	"testing"
	"time"
)

// TestCommandListHasNothingUnbuilt runs every command COMMAND LIST names
// (subcommands as their container's words), with as many arguments as its
// arity asks: none may be answered as unknown, or refused in floodgate's
// own words, since clients (redis-py) take COMMAND's table for what the
// server can do. COMMAND COUNT, COMMAND INFO and COMMAND DOCS must name
// the same commands.
func TestCommandListHasNothingUnbuilt(t *testing.T) {
	parallel(t)
	srv := startServer(t, Config{Dir: t.TempDir()})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	names, err := c.Do(ctx, "COMMAND", "LIST").StringSlice()
	if err != nil {
		t.Fatal(err)
	}
	count, err := c.Do(ctx, "COMMAND", "COUNT").Int()
	if err != nil {
		t.Fatal(err)
	}
	top := 0
	for _, name := range names {
		if !strings.Contains(name, "|") && !strings.HasPrefix(name, "test.") {
			top++
		}
	}
	tests := 0 // the package's tests register test.* commands
	for _, name := range names {
		if strings.HasPrefix(name, "test.") {
			tests++
		}
	}
	if count != top+tests {
		t.Errorf("COMMAND COUNT %d, COMMAND LIST names %d commands", count, top)
	}
	docs, err := c.Do(ctx, "COMMAND", "DOCS").Slice()
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2*(top+tests) {
		t.Errorf("COMMAND DOCS answers %d commands, COMMAND LIST %d", len(docs)/2, top)
	}
	container := map[string]bool{}
	for _, name := range names {
		if parent, _, ok := strings.Cut(name, "|"); ok {
			container[parent] = true
		}
	}
	for _, name := range names {
		info, err := c.Do(ctx, "COMMAND", "INFO", name).Slice()
		if err != nil || len(info) != 1 || info[0] == nil {
			t.Errorf("COMMAND INFO %s: %v %v", name, info, err)
			continue
		}
		if name == "shutdown" || strings.HasPrefix(name, "test.") || container[name] {
			continue // it would end the test's server; the package's tests' own commands; a container, run as its subcommands
		}
		args := strings.Split(name, "|")
		arity := int(info[0].([]any)[1].(int64))
		for len(args) < max(arity, -arity) {
			args = append(args, "x")
		}
		reply := firstReplyLine(t, srv, args)
		for _, bad := range []string{"-ERR unknown command", "-ERR unknown subcommand", "floodgate", "not built", "not implemented"} {
			if strings.Contains(reply, bad) {
				t.Errorf("%q: %q", args, reply)
			}
		}
	}
}

// firstReplyLine sends args on a connection of its own (MULTI, CLIENT
// REPLY OFF or QUIT leave nothing behind) and returns the reply's first line.
func firstReplyLine(t *testing.T, srv *Server, args []string) string {
	t.Helper()
	conn, err := srv.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(testDeadline))
	conn.Write([]byte(respCommand(args...)))
	line, _ := bufio.NewReader(conn).ReadString('\n')
	return line
}

// TestUnbuiltCommandsAreUnknown: a Redis 7.0 command floodgate lacks is
// in no COMMAND reply and is answered Redis's unknown-command text, so a
// client sees what a Redis without it would say.
func TestUnbuiltCommandsAreUnknown(t *testing.T) {
	srv := startServer(t, Config{})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	for _, args := range [][]string{{"xadd", "k", "*", "f", "v"}, {"SUBSCRIBE", "ch"}, {"publish", "ch", "m"}, {"acl", "whoami"},
		{"function", "list"}, {"fcall", "f", "0"}, {"monitor"}, {"replicaof", "no", "one"}, {"migrate", "h", "1", "k", "0", "1"}} {
		if lookupCommandName([]byte(args[0])) != nil {
			continue // built since this list was written: TestCommandListHasNothingUnbuilt covers it
		}
		want := "-ERR unknown command '" + args[0] + "', with args beginning with: "
		for _, a := range args[1:] {
			want += "'" + a + "' "
		}
		if got := firstReplyLine(t, srv, args); got != want+"\r\n" {
			t.Errorf("%q: %q, want %q", args, got, want)
		}
		if info, err := c.Do(ctx, "COMMAND", "INFO", args[0]).Slice(); err != nil || len(info) != 1 || info[0] != nil {
			t.Errorf("COMMAND INFO %s: %v %v", args[0], info, err)
		}
		if docs, err := c.Do(ctx, "COMMAND", "DOCS", args[0]).Slice(); err != nil || len(docs) != 0 {
			t.Errorf("COMMAND DOCS %s: %v %v", args[0], docs, err)
		}
		if list, err := c.Do(ctx, "COMMAND", "LIST", "FILTERBY", "PATTERN", args[0]).StringSlice(); err != nil || len(list) != 0 {
			t.Errorf("COMMAND LIST FILTERBY PATTERN %s: %v %v", args[0], list, err)
		}
	}
}

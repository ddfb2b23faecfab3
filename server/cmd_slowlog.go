package server

import (
	"strconv"

	"github.com/floodgate/floodgate/internal/number"
)

// The slow log (Redis's slowlog.c): every command that ran at least
// slowlog-log-slower-than microseconds, newest first, at most
// slowlog-max-len of them.

var slowlogHandlers = map[string]Handler{
	"slowlog|len":   cmdSlowlogLen,
	"slowlog|help":  helpHandler(slowlogHelp),
	"slowlog|reset": cmdSlowlogReset,
	"slowlog|get":   cmdSlowlogGet,
}

var slowlogHelp = []string{
	"SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"GET [<count>]",
	"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
	"    Entries are made of:",
	"    id, timestamp, time in microseconds, arguments array, client IP and port,",
	"    client name",
	"LEN",
	"    Return the length of the slowlog.",
	"RESET",
	"    Reset the slowlog.",
	"HELP",
	"    Prints this help.",
}

const errSlowlogCount = "ERR count should be greater than or equal to -1"

// Redis's SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING.
const (
	slowlogMaxArgs   = 32
	slowlogMaxString = 128
)

// slowlogParams are the slow log's settings, applied (config.go).
var slowlogParams = map[string]floodgateParam{
	"slowlog-log-slower-than": {effect: effectApplied, apply: func(s *Server, v string) string {
		s.slowlog.slower, _ = strconv.ParseInt(v, 10, 64)
		return ""
	}},
	"slowlog-max-len": {effect: effectApplied, apply: func(s *Server, v string) string {
		s.slowlog.maxLen, _ = strconv.ParseInt(v, 10, 64)
		s.slowlog.trim()
		return ""
	}},
}

// slowlog is the server's slow log; guarded by the execution lock.
type slowlog struct {
	slower  int64 // µs; negative: off
	maxLen  int64
	nextID  int64
	entries []slowlogEntry // oldest first
}

type slowlogEntry struct {
	id, time, micros int64
	args             []string
	peer, name       string
}

// initSlowlog sets Redis's defaults and then the configured values.
func (s *Server) initSlowlog() {
	s.slowlog = slowlog{slower: 10000, maxLen: 128}
	s.applySettings(slowlogParams)
}

func (l *slowlog) trim() {
	if n := int64(len(l.entries)); n > l.maxLen {
		l.entries = append([]slowlogEntry(nil), l.entries[n-l.maxLen:]...)
	}
}

// slowlogPush logs a command that took micros, as Redis's
// slowlogPushCurrentCommand: arguments past 32 and bytes past 128 are
// summarized, secrets redacted, and a script's commands are logged as its
// client's, which has no address. argc is the command's argument count,
// of which args holds at least the first slowlogMaxArgs.
func (s *Server) slowlogPush(c *Client, cmd *Command, args [][]byte, argc int, micros int64) {
	l := &s.slowlog
	n := min(argc, slowlogMaxArgs)
	logged := make([]string, n)
	hidden := redactedArgs(cmd, args)
	for i := range n {
		a := args[i]
		switch {
		case n != argc && i == n-1:
			logged[i] = "... (" + strconv.Itoa(argc-n+1) + " more arguments)"
		case hidden.has(i):
			logged[i] = "(redacted)"
		case len(a) > slowlogMaxString:
			logged[i] = string(a[:slowlogMaxString]) + "... (" + strconv.Itoa(len(a)-slowlogMaxString) + " more bytes)"
		default:
			logged[i] = string(a)
		}
	}
	peer, name := c.addr, c.name
	if c.inScript {
		peer, name = "?:0", ""
	}
	l.entries = append(l.entries, slowlogEntry{id: l.nextID, time: s.store.Clock().Now().Unix(), micros: micros, args: logged, peer: peer, name: name})
	l.nextID++
	l.trim()
}

func cmdSlowlogLen(c *Client, _ [][]byte) { c.w.Int(int64(len(c.srv.slowlog.entries))) }

func cmdSlowlogReset(c *Client, _ [][]byte) {
	c.srv.slowlog.entries = nil
	c.w.Status("OK")
}

func cmdSlowlogGet(c *Client, args [][]byte) {
	if len(args) > 3 {
		c.errorf("ERR unknown subcommand or wrong number of arguments for '%s'. Try SLOWLOG HELP.", sanitizeError(string(args[1])))
		return
	}
	l := &c.srv.slowlog
	count := int64(10)
	if len(args) == 3 {
		n, ok := number.ParseInt(args[2])
		if !ok || n < -1 {
			c.w.Error(errSlowlogCount)
			return
		}
		count = n
		if n == -1 {
			count = int64(len(l.entries))
		}
	}
	count = min(count, int64(len(l.entries)))
	c.w.Array(int(count))
	for i := len(l.entries) - 1; i >= len(l.entries)-int(count); i-- {
		e := &l.entries[i]
		c.w.Array(6)
		c.w.Int(e.id)
		c.w.Int(e.time)
		c.w.Int(e.micros)
		c.w.Array(len(e.args))
		for _, a := range e.args {
			c.w.BulkString(a)
		}
		c.w.BulkString(e.peer)
		c.w.BulkString(e.name)
	}
}

package server

import (
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/floodgate/floodgate/internal/argline"
	"github.com/floodgate/floodgate/internal/number"
)

// MONITOR, as Redis 7.0's monitorCommand and replicationFeedMonitors: every
// command a client runs (after it ran, as call() feeds the monitors) goes to
// each monitor as one status line,
//
//	+1700000000.123456 [0 127.0.0.1:50000] "SET" "k" "v"
//
// the time of the feed, the client's database and address ("lua" for a
// script's redis.call, "unix:<path>" for a Unix socket), then every
// argument as sdscatrepr quotes it, secrets "(redacted)". Admin commands
// (CONFIG, CLIENT LIST, MONITOR ...) and those flagged skip_monitor (EVAL
// and friends, which feed themselves before their script runs, so that the
// script's commands come after them) are never shown; nor is a command the
// generic checks refused (unknown, arity, NOAUTH, queued in MULTI), except
// EXEC, which a refusal still shows so that a transaction seen to start is
// seen to end (execCommandAbort). Nothing is fed while the data loads.
//
// A monitor is Redis's CLIENT_MONITOR|CLIENT_SLAVE client: CLIENT LIST flag
// O, refused "Replica can't interact with the keyspace" for commands that
// read or write keys, never paused by CLIENT PAUSE nor closed by the idle
// timeout, and of the normal output-buffer class. RESET (or closing)
// leaves monitor mode.
var monitorHandlers = map[string]Handler{
	"monitor": cmdMonitor,
}

const (
	errMonitorDenyBlocking = "ERR MONITOR isn't allowed for DENY BLOCKING client"
	errReplicaKeyspace     = "ERR Replica can't interact with the keyspace"
)

func cmdMonitor(c *Client, _ [][]byte) {
	// Inside EXEC (Redis's CLIENT_DENY_BLOCKING); an in-process client
	// (Server.Call) has no connection to stream to and expects one reply.
	if c.deniesBlocking() || c.conn == nil {
		c.w.Error(errMonitorDenyBlocking)
		return
	}
	if c.monitor {
		return // already one: no reply at all, as Redis
	}
	c.monitor = true
	s := c.srv
	s.monitors = append(s.monitors, c)
	c.w.Status("OK")
}

// stopMonitoring takes a client out of monitor mode (RESET, a closed or
// killed connection). Call it with the lock held.
func (s *Server) stopMonitoring(c *Client) {
	if !c.monitor {
		return
	}
	c.monitor = false
	for i, m := range s.monitors {
		if m == c {
			s.monitors = append(s.monitors[:i], s.monitors[i+1:]...)
			break
		}
	}
	if len(s.monitors) == 0 {
		s.monitors = nil
	}
}

// refusesMonitor is processCommand's check for a replica (a monitor is
// one): a command that reads, writes or may replicate is refused.
func refusesMonitor(c *Client, cmd *Command) bool {
	return (c.monitor || c.isReplica()) && cmd.Flags&(FlagReadonly|FlagWrite|FlagMayReplicate) != 0
}

// monitored reports whether a command run through invoke is fed to the
// monitors after it ran (call()'s test).
func monitored(cmd *Command) bool { return cmd.Flags&(FlagSkipMonitor|FlagAdmin) == 0 }

// feedMonitors sends a command to every monitor, as replicationFeedMonitors.
// Call it with the lock held; it costs nothing without monitors.
func (s *Server) feedMonitors(c *Client, cmd *Command, args [][]byte) {
	if len(s.monitors) == 0 || s.loading.active.Load() {
		return
	}
	now := time.Now()
	line := make([]byte, 0, 48+len(c.addr)+monitorArgsLen(args))
	line = append(line, '+')
	line = strconv.AppendInt(line, now.Unix(), 10)
	line = append(line, '.')
	usec := now.Nanosecond() / 1000
	for d := 100000; d > 1; d /= 10 { // %06ld
		if usec < d {
			line = append(line, '0')
		}
	}
	line = strconv.AppendInt(line, int64(usec), 10)
	line = append(line, " ["...)
	line = strconv.AppendInt(line, int64(c.db.Index()), 10)
	line = append(line, ' ')
	line = append(line, monitorPeer(c)...)
	line = append(line, "] "...)
	hidden := redactedArgs(cmd, args)
	for i, a := range args {
		if i > 0 {
			line = append(line, ' ')
		}
		if hidden.has(i) {
			line = append(line, `"(redacted)"`...)
		} else {
			line = argline.AppendQuote(line, a)
		}
	}
	line = append(line, '\r', '\n')
	var over []*Client
	for _, m := range s.monitors {
		// Under CLIENT REPLY OFF a monitor's lines are dropped too
		// (prepareClientToWrite): they are ordinary replies, not pushes.
		if m.replyOff || (m.conn == s.running && m.conn.reply.Muted) {
			continue
		}
		if !s.deliver(m, line) {
			over = append(over, m)
		}
	}
	for _, m := range over {
		s.closeOverLimit(m)
	}
}

func monitorArgsLen(args [][]byte) int {
	n := 0
	for _, a := range args {
		n += len(a) + 3
	}
	return n
}

// monitorPeer is how a monitor line names the client: "lua" for a script's
// redis.call, "unix:<socket path>" for a Unix-socket client (Redis prints
// its unixsocket setting), the peer's address otherwise.
func monitorPeer(c *Client) string {
	if c.inScript {
		return "lua"
	}
	if c.conn != nil {
		if la := c.conn.tr.LocalAddr(); isSocketPath(la) {
			return "unix:" + la
		}
	}
	return c.addr
}

// isSocketPath reports whether a connection's local address is a Unix
// socket's path rather than a TCP host:port (or Dial's "pipe").
func isSocketPath(addr string) bool {
	if addr == "" || addr == "pipe" {
		return false
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return true
	}
	_, err = strconv.ParseUint(port, 10, 16)
	return err != nil
}

// redactions is the arguments of a command that Redis hides from MONITOR
// and the slow log (redactClientCommandArgument). Most commands have none;
// MIGRATE's AUTH and AUTH2 may each come more than once.
type redactions []int

func (r redactions) has(i int) bool {
	for _, j := range r {
		if j == i {
			return true
		}
	}
	return false
}

// redactedArgs is which of a command's arguments its handler redacts in
// Redis: where Redis's handler returns with an error before reaching a
// secret, that secret is left as it is, as it is there.
func redactedArgs(cmd *Command, args [][]byte) redactions {
	if cmd == nil {
		return nil
	}
	switch cmd.Name {
	case "auth":
		// authCommand: more than 3 arguments is a syntax error first.
		if len(args) > 3 {
			return nil
		}
		r := redactions{1}
		if len(args) == 3 {
			r = append(r, 2)
		}
		return r
	case "acl|setuser":
		// aclCommand redacts the user's name and every rule before it
		// parses any of them.
		var r redactions
		for i := 2; i < len(args); i++ {
			r = append(r, i)
		}
		return r
	case "hello":
		return helloRedactions(args)
	case "migrate":
		return migrateRedactions(args)
	case "config|set":
		var r redactions
		for i := 3; i < len(args); i += 2 {
			switch strings.ToLower(string(args[i-1])) {
			case "requirepass", "masterauth", "masteruser":
				r = append(r, i)
			}
		}
		return r
	}
	return nil
}

// helloRedactions follows helloCommand's option loop: AUTH's username and
// password are redacted when reached, and the loop stops at the first
// error (a bad protocol version, a bad SETNAME, an unknown option).
func helloRedactions(args [][]byte) redactions {
	if len(args) >= 2 {
		ver, ok := number.ParseInt(args[1])
		if !ok || ver < 2 || ver > 3 {
			return nil
		}
	}
	var r redactions
	for j := 2; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case eqFold(args[j], "auth") && more >= 2:
			r = append(r, j+1, j+2)
			j += 2
		case eqFold(args[j], "setname") && more >= 1:
			if !validName(args[j+1]) {
				return r
			}
			j++
		default:
			return r
		}
	}
	return r
}

// migrateRedactions follows migrateCommand's option loop: AUTH's password
// and AUTH2's username and password, up to the first error or KEYS.
func migrateRedactions(args [][]byte) redactions {
	var r redactions
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case eqFold(args[j], "copy"), eqFold(args[j], "replace"):
		case eqFold(args[j], "auth"):
			if more < 1 {
				return r
			}
			j++
			r = append(r, j)
		case eqFold(args[j], "auth2"):
			if more < 2 {
				return r
			}
			r = append(r, j+1, j+2)
			j += 2
		default: // KEYS ends the options; anything else is an error
			return r
		}
	}
	return r
}

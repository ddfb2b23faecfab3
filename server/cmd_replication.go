package server

import (
	"strconv"
	"time"

	"github.com/floodgate/floodgate/internal/number"
)

// The replication commands (SYNC, PSYNC and REPLCONF are replication.go's,
// FAILOVER failover.go's), ROLE and WAIT of a master; and MODULE's
// loading, which Redis 7.0 refuses by default (enable-module-command is
// "no", the only value floodgate accepts: it loads no modules). DEBUG is
// cmd_debug.go's, refused in dispatch unless enable-debug-command allows.

var replicationHandlers = map[string]Handler{
	"sync":          cmdSync,
	"psync":         cmdSync,
	"replconf":      cmdReplconf,
	"replicaof":     cmdReplicaof,
	"slaveof":       cmdReplicaof,
	"role":          cmdRole,
	"wait":          cmdWait,
	"failover":      cmdFailover,
	"module|list":   func(c *Client, _ [][]byte) { c.w.Array(0) },
	"module|loadex": refuse(errModuleNotAllowed),
	"module|unload": refuse(errModuleNotAllowed),
	"module|help":   helpHandler(moduleHelp),
	"module|load":   refuse(errModuleNotAllowed),
}

const (
	errDebugNotAllowed  = `ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`
	errModuleNotAllowed = `ERR MODULE command not allowed. If the enable-module-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`
	errWaitTimeout      = "ERR timeout is not an integer or out of range"
)

var moduleHelp = []string{
	"MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"LIST",
	"    Return a list of loaded modules.",
	"LOAD <path> [<arg> ...]",
	"    Load a module library from <path>, passing to it any optional arguments.",
	"LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
	"    Load a module library from <path>, while passing it module configurations and optional arguments.",
	"UNLOAD <name>",
	"    Unload a module.",
	"HELP",
	"    Prints this help.",
}

// refuse answers err, whatever the arguments.
func refuse(err string) func(c *Client, _ [][]byte) {
	return func(c *Client, _ [][]byte) { c.w.Error(err) }
}

// cmdRole is roleCommand of a master: its offset and its online
// replicas as [ip, port, acknowledged offset].
func cmdRole(c *Client, _ [][]byte) {
	s := c.srv
	if l := s.repl.master; l != nil {
		state := "connecting"
		switch {
		case l.syncing.Load():
			state = "sync"
		case l.up.Load():
			state = "connected"
		}
		c.w.Array(5)
		c.w.BulkString("slave")
		c.w.BulkString(l.host)
		c.w.Int(int64(l.port))
		c.w.BulkString(state)
		c.w.Int(s.repl.offset)
		return
	}
	var online []*replicaLink
	for _, l := range s.liveReplicas() {
		if l.state == replicaOnline {
			online = append(online, l)
		}
	}
	c.w.Array(3)
	c.w.BulkString("master")
	c.w.Int(s.repl.offset)
	c.w.Array(len(online))
	for _, l := range online {
		ip := l.addr
		if ip == "" {
			ip = l.c.peerIP()
		}
		c.w.Array(3)
		c.w.BulkString(ip)
		c.w.BulkString(strconv.FormatInt(l.listeningPort, 10))
		c.w.BulkString(strconv.FormatInt(l.ackOffset, 10))
	}
}

// cmdWait is waitCommand: the number of replicas that acknowledged the
// client's last write, at once when enough have (or inside MULTI), else
// once enough have or the timeout (milliseconds; 0 forever) passes,
// having asked the replicas for an ACK.
func cmdWait(c *Client, args [][]byte) {
	s := c.srv
	if s.repl.master != nil {
		c.w.Error(errWaitOnReplica)
		return
	}
	want, ok := intArg(c, args[1])
	if !ok {
		return
	}
	ms, ok := number.ParseInt(args[2])
	switch {
	case !ok:
		c.w.Error(errWaitTimeout)
		return
	case ms < 0:
		c.w.Error(errTimeoutNegative)
		return
	}
	acked := s.acksAt(c.woff)
	if acked >= want || !c.mayBlock() {
		c.w.Int(acked)
		return
	}
	timeout := time.Duration(0)
	if ms > 0 {
		timeout = time.Duration(min(ms, int64(1<<62)/int64(time.Millisecond))) * time.Millisecond
	}
	offset := c.woff
	s.block(c, nil, 0, timeout, nil)
	w := c.blockedOn
	w.waitOffset, w.waitReplicas = offset, want
	w.onTimeout = func(c *Client) { c.w.Int(c.srv.acksAt(offset)) }
	s.repl.waits = append(s.repl.waits, w)
	s.repl.getackWanted = true
}

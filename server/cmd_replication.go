package server

import (
	"strings"
	"time"

	"github.com/floodgate/floodgate/internal/number"
)

// The replication and administration commands a server with no replicas
// answers as Redis 7.0 does with none: ROLE, WAIT, FAILOVER; and DEBUG and
// MODULE's loading, which Redis 7.0 refuses by default
// (enable-debug-command and enable-module-command are "no", the only value
// floodgate accepts).

var replicationCommands = []*Command{
	{Name: "role", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast, ACL: []string{"admin", "dangerous"}, Group: "server", Summary: "Return the role of the instance in the context of replication", Since: "2.8.12", Handler: cmdRole},
	{Name: "wait", Arity: 3, Flags: FlagNoScript, ACL: []string{"connection"}, Group: "generic", Summary: "Wait for the synchronous replication of all the write commands sent in the context of the current connection", Since: "3.0.0", Tips: []string{"request_policy:all_shards", "response_policy:agg_min"}, Handler: cmdWait},
	{Name: "failover", Arity: -1, Flags: FlagAdmin | FlagNoScript | FlagStale, Group: "server", Summary: "Start a coordinated failover between this server and one of its replicas.", Since: "6.2.0", Handler: cmdFailover},
	{Name: "debug", Arity: -2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Summary: "A container for debugging commands", Since: "1.0.0", Handler: refuse(errDebugNotAllowed)},
	{Name: "module", Arity: -2, Group: "server", Summary: "A container for module commands", Since: "4.0.0", Subcommands: []*Command{
		{Name: "list", Arity: 2, Flags: FlagAdmin | FlagNoScript, Group: "server", Summary: "List all modules loaded by the server", Since: "4.0.0", Tips: []string{"nondeterministic_output_order"}, Handler: func(c *Client, _ [][]byte) { c.w.Array(0) }},
		{Name: "loadex", Arity: -3, Flags: moduleLoadFlags, Group: "server", Summary: "Load a module with extended parameters", Since: "7.0.0", Handler: refuse(errModuleNotAllowed)},
		{Name: "unload", Arity: 3, Flags: moduleLoadFlags, Group: "server", Summary: "Unload a module", Since: "4.0.0", Handler: refuse(errModuleNotAllowed)},
		{Name: "help", Arity: 2, Flags: FlagLoading | FlagStale, Group: "server", Summary: "Show helpful text about the different subcommands", Since: "5.0.0", Handler: helpHandler(moduleHelp)},
		{Name: "load", Arity: -3, Flags: moduleLoadFlags, Group: "server", Summary: "Load a module", Since: "4.0.0", Handler: refuse(errModuleNotAllowed)},
	}},
}

func init() { register(replicationCommands...) }

const moduleLoadFlags = FlagAdmin | FlagNoScript | FlagNoAsyncLoading

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

// cmdRole: a master with no replicas and nothing replicated.
func cmdRole(c *Client, _ [][]byte) {
	c.w.Array(3)
	c.w.BulkString("master")
	c.w.Int(0)
	c.w.Array(0)
}

// cmdWait is Redis's waitCommand with no replica ever acknowledging: WAIT
// 0 answers 0 at once, and so does WAIT inside MULTI; otherwise the client
// blocks until its timeout (milliseconds; 0 forever) and is answered 0.
func cmdWait(c *Client, args [][]byte) {
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
	if want <= 0 || !c.mayBlock() {
		c.w.Int(0)
		return
	}
	timeout := time.Duration(0)
	if ms > 0 {
		timeout = time.Duration(min(ms, int64(1<<62)/int64(time.Millisecond))) * time.Millisecond
	}
	c.srv.block(c, nil, 0, timeout, nil)
	c.blockedOn.onTimeout = func(c *Client) { c.w.Int(0) }
}

// cmdFailover parses as Redis's failoverCommand, then finds no replica.
func cmdFailover(c *Client, args [][]byte) {
	if len(args) == 2 && eqFold(args[1], "abort") {
		c.w.Error("ERR No failover in progress.")
		return
	}
	var timeout int64
	force, to := false, false
	for j := 1; j < len(args); j++ {
		switch a := string(args[j]); {
		case strings.EqualFold(a, "timeout") && j+1 < len(args) && timeout == 0:
			n, ok := intArg(c, args[j+1])
			if !ok {
				return
			}
			if n <= 0 {
				c.w.Error("ERR FAILOVER timeout must be greater than 0")
				return
			}
			timeout = n
			j++
		case strings.EqualFold(a, "to") && j+2 < len(args) && !to:
			if _, ok := intArg(c, args[j+2]); !ok {
				return
			}
			to = true
			j += 2
		case strings.EqualFold(a, "force") && !force:
			force = true
		default:
			c.w.Error(errSyntax)
			return
		}
	}
	c.w.Error("ERR FAILOVER requires connected replicas.")
}

package server

import "github.com/floodgate/floodgate/store"

var connectionCommands = []*Command{
	{Name: "ping", Arity: -1, Flags: FlagFast, ACL: []string{"fast", "connection"}, Group: "connection", Summary: "Ping the server", Since: "1.0.0", Handler: cmdPing},
	{Name: "echo", Arity: 2, Flags: FlagFast, ACL: []string{"fast", "connection"}, Group: "connection", Summary: "Echo the given string", Since: "1.0.0", Handler: cmdEcho},
	{Name: "quit", Arity: -1, Flags: FlagAllowBusy | FlagNoAuth | FlagLoading | FlagStale | FlagNoScript | FlagFast, ACL: []string{"fast", "connection"}, Group: "connection", Summary: "Close the connection", Since: "1.0.0", Handler: cmdQuit},
	{Name: "select", Arity: 2, Flags: FlagLoading | FlagStale | FlagFast, ACL: []string{"fast", "connection"}, Group: "connection", Summary: "Change the selected database for the current connection", Since: "1.0.0", Handler: cmdSelect},
}

func cmdPing(c *Client, args [][]byte) {
	switch len(args) {
	case 1:
		c.w.Status("PONG")
	case 2:
		c.w.Bulk(args[1])
	default:
		c.wrongArity(c.cmd)
	}
}

func cmdEcho(c *Client, args [][]byte) { c.w.Bulk(args[1]) }

func cmdQuit(c *Client, args [][]byte) {
	c.w.Status("OK")
	c.closing = true
}

func cmdSelect(c *Client, args [][]byte) {
	n, ok := store.ParseInt(args[1])
	if !ok {
		c.w.Error(errNotInteger)
		return
	}
	if n < 0 || n >= int64(c.srv.store.Databases()) {
		c.w.Error(errDBIndex)
		return
	}
	c.db = c.srv.store.DB(int(n))
	c.w.Status("OK")
}

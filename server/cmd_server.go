package server

import "strconv"

var serverCommands = []*Command{
	{Name: "dbsize", Arity: 1, Flags: FlagReadonly | FlagFast, ACL: []string{"keyspace", "read", "fast"}, Group: "server", Summary: "Return the number of keys in the selected database", Since: "1.0.0", Handler: cmdDBSize},
	{Name: "flushdb", Arity: -1, Flags: FlagWrite, ACL: []string{"keyspace", "write", "slow", "dangerous"}, Group: "server", Summary: "Remove all keys from the current database", Since: "1.0.0", Handler: cmdFlushDB},
	{Name: "flushall", Arity: -1, Flags: FlagWrite, ACL: []string{"keyspace", "write", "slow", "dangerous"}, Group: "server", Summary: "Remove all keys from all databases", Since: "1.0.0", Handler: cmdFlushAll},
}

func cmdDBSize(c *Client, args [][]byte) { c.w.Int(int64(c.db.Len())) }

// flushMode accepts FLUSHDB/FLUSHALL's optional ASYNC or SYNC.
func flushMode(c *Client, args [][]byte) bool {
	if len(args) > 2 || (len(args) == 2 && !eqFold(args[1], "async") && !eqFold(args[1], "sync")) {
		c.w.Error(errSyntax)
		return false
	}
	return true
}

func cmdFlushDB(c *Client, args [][]byte) {
	if flushMode(c, args) {
		c.db.Flush()
		c.w.Status("OK")
	}
}

func cmdFlushAll(c *Client, args [][]byte) {
	if flushMode(c, args) {
		c.srv.store.FlushAll()
		c.w.Status("OK")
	}
}

// eqFold reports whether b equals the lower-case ASCII word, ignoring case.
func eqFold(b []byte, word string) bool {
	if len(b) != len(word) {
		return false
	}
	for i := range b {
		ch := b[i]
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		if ch != word[i] {
			return false
		}
	}
	return true
}

var _ = strconv.Itoa

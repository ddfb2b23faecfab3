package server

var keyCommands = []*Command{
	{Name: "del", Arity: -2, Flags: FlagWrite, FirstKey: 1, LastKey: -1, Step: 1, ACL: []string{"keyspace", "write", "slow"}, Group: "generic", Summary: "Delete a key", Since: "1.0.0", Handler: cmdDel},
}

func cmdDel(c *Client, args [][]byte) {
	var n int64
	for _, k := range args[1:] {
		if c.db.Delete(k) {
			n++
		}
	}
	c.w.Int(n)
}

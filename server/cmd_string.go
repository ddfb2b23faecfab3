package server

import "github.com/floodgate/floodgate/store"

var stringCommands = []*Command{
	{Name: "get", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"read", "string", "fast"}, Group: "string", Summary: "Get the value of a key", Since: "1.0.0", Handler: cmdGet},
	{Name: "incr", Arity: 2, Flags: FlagWrite | FlagDenyOOM | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"write", "string", "fast"}, Group: "string", Summary: "Increment the integer value of a key by one", Since: "1.0.0", Handler: cmdIncr},
}

// stringValue returns the string at key, nil if there is none, or false
// (having answered WRONGTYPE) if the key holds another type.
func stringValue(c *Client, key []byte) (*store.String, bool) {
	e := c.db.Get(key)
	if e == nil {
		return nil, true
	}
	s, ok := e.Value.(*store.String)
	if !ok {
		c.w.Error(errWrongType)
		return nil, false
	}
	return s, true
}

func cmdGet(c *Client, args [][]byte) {
	s, ok := stringValue(c, args[1])
	if !ok {
		return
	}
	if s == nil {
		c.w.Null()
		return
	}
	if n, isInt := s.Int(); isInt {
		c.w.BulkString(itoa(n))
		return
	}
	c.w.Bulk(s.Bytes())
}

func cmdIncr(c *Client, args [][]byte) { incrBy(c, args[1], 1) }

// incrBy adds delta to the integer at key, creating it at 0.
func incrBy(c *Client, key []byte, delta int64) {
	s, ok := stringValue(c, key)
	if !ok {
		return
	}
	if s == nil {
		c.db.SetKeepTTL(key, store.NewInt(delta))
		c.w.Int(delta)
		return
	}
	n, err := s.IncrBy(delta)
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	c.db.Modified(key)
	c.w.Int(n)
}

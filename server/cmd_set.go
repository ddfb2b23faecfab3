package server

import "github.com/floodgate/floodgate/store"

var setCommands = []*Command{
	{Name: "sadd", Arity: -3, Flags: FlagWrite | FlagDenyOOM | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"set"}, Group: "set", Summary: "Add one or more members to a set", Since: "1.0.0", Handler: cmdSAdd},
	{Name: "srem", Arity: -3, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"set"}, Group: "set", Summary: "Remove one or more members from a set", Since: "1.0.0", Handler: cmdSRem},
	{Name: "scard", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"set"}, Group: "set", Summary: "Get the number of members in a set", Since: "1.0.0", Handler: cmdSCard},
	{Name: "smembers", Arity: 2, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"set"}, Group: "set", Summary: "Get all the members in a set", Since: "1.0.0", Handler: cmdSMembers},
	{Name: "sismember", Arity: 3, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"set"}, Group: "set", Summary: "Determine if a given value is a member of a set", Since: "1.0.0", Handler: cmdSIsMember},
	{Name: "smismember", Arity: -3, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"set"}, Group: "set", Summary: "Returns the membership associated with the given elements for a set", Since: "6.2.0", Handler: cmdSMIsMember},
}

func init() { register(setCommands...) }

// setForRead returns the set at key, or an empty one if there is none
// (readers treat a missing key as an empty set, as Redis does); false after
// WRONGTYPE. The empty set is shared: never add to it.
func setForRead(c *Client, key []byte) (*store.Set, bool) {
	s, ok := valueAs[*store.Set](c, key)
	if s == nil {
		s = emptySet
	}
	return s, ok
}

var emptySet = store.NewSet()

func cmdSAdd(c *Client, args [][]byte) {
	s, ok := valueAs[*store.Set](c, args[1])
	if !ok {
		return
	}
	created := s == nil
	if created {
		s = store.NewSet()
	}
	var added int64
	for _, m := range args[2:] {
		if s.Add(m) {
			added++
		}
	}
	switch {
	case created:
		c.db.Set(args[1], s, 0)
	case added > 0:
		c.db.Modified(args[1])
	}
	c.w.Int(added)
}

func cmdSRem(c *Client, args [][]byte) {
	s, ok := setForRead(c, args[1]) // removing from the shared empty set changes nothing
	if !ok {
		return
	}
	var removed int64
	for _, m := range args[2:] {
		if s.Remove(m) {
			removed++
		}
	}
	switch {
	case removed == 0:
	case s.Len() == 0: // Redis never keeps an empty set
		c.db.Delete(args[1])
	default:
		c.db.Modified(args[1])
	}
	c.w.Int(removed)
}

func cmdSCard(c *Client, args [][]byte) {
	s, ok := setForRead(c, args[1])
	if !ok {
		return
	}
	c.w.Int(int64(s.Len()))
}

// cmdSMembers answers an intset in numeric order, as Redis does; a
// hashtable's order is unspecified.
func cmdSMembers(c *Client, args [][]byte) {
	s, ok := setForRead(c, args[1])
	if !ok {
		return
	}
	members := s.Members()
	c.w.Set(len(members))
	for _, m := range members {
		c.w.BulkString(m)
	}
}

func cmdSIsMember(c *Client, args [][]byte) {
	s, ok := setForRead(c, args[1])
	if !ok {
		return
	}
	c.w.Int(isMember(s, args[2]))
}

func cmdSMIsMember(c *Client, args [][]byte) {
	s, ok := setForRead(c, args[1])
	if !ok {
		return
	}
	c.w.Array(len(args) - 2)
	for _, m := range args[2:] {
		c.w.Int(isMember(s, m))
	}
}

// isMember answers 1 or 0.
func isMember(s *store.Set, m []byte) int64 {
	if s.Has(m) {
		return 1
	}
	return 0
}

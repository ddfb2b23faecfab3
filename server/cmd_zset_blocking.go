package server

import "github.com/floodgate/floodgate/store"

// The blocking sorted-set pops. ZMPOP, their non-blocking sibling, belongs
// with the rest of the sorted-set family; zpopWithKey and zminMaxArg are
// what it needs too.
var zsetBlockingCommands = []*Command{
	{Name: "bzpopmin", Arity: -3, Flags: FlagWrite | FlagNoScript | FlagBlocking | FlagFast, FirstKey: 1, LastKey: -2, Step: 1, ACL: []string{"write", "sortedset", "fast", "blocking"}, Group: "sorted-set", Summary: "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available", Since: "5.0.0", Handler: cmdBZPopMin},
	{Name: "bzpopmax", Arity: -3, Flags: FlagWrite | FlagNoScript | FlagBlocking | FlagFast, FirstKey: 1, LastKey: -2, Step: 1, ACL: []string{"write", "sortedset", "fast", "blocking"}, Group: "sorted-set", Summary: "Remove and return the member with the highest score from one or more sorted sets, or block until one is available", Since: "5.0.0", Handler: cmdBZPopMax},
	{Name: "bzmpop", Arity: -5, Flags: FlagWrite | FlagBlocking | FlagMovableKeys, FirstKey: 0, LastKey: 0, Step: 0, ACL: []string{"write", "sortedset", "slow", "blocking"}, Group: "sorted-set", Summary: "Remove and return members with scores in a sorted set or block until one is available", Since: "7.0.0", Handler: cmdBZMPop},
}

func init() { register(zsetBlockingCommands...) }

func cmdBZPopMin(c *Client, args [][]byte) {
	blockingZPop(c, args[1:len(args)-1], false, args[len(args)-1], -1)
}

func cmdBZPopMax(c *Client, args [][]byte) {
	blockingZPop(c, args[1:len(args)-1], true, args[len(args)-1], -1)
}

func cmdBZMPop(c *Client, args [][]byte) {
	keys, fromTop, count, ok := mpopArgs(c, args, 2, zminMaxArg)
	if ok {
		blockingZPop(c, keys, fromTop, args[1], count)
	}
}

// zminMaxArg parses MIN or MAX (true for MAX, the high end).
func zminMaxArg(c *Client, b []byte) (fromTop, ok bool) {
	switch {
	case eqFold(b, "min"):
		return false, true
	case eqFold(b, "max"):
		return true, true
	}
	c.w.Error(errSyntax)
	return false, false
}

// blockingZPop is Redis's blockingGenericZpopCommand: pop from the first
// non-empty sorted set of keys, or wait for one. count -1 is BZPOPMIN's
// [key, member, score] reply; otherwise BZMPOP's [key, [[member, score]...]].
func blockingZPop(c *Client, keys [][]byte, fromTop bool, timeoutArgument []byte, count int64) {
	timeout, ok := timeoutArg(c, timeoutArgument)
	if !ok {
		return
	}
	nested := count != -1
	for _, key := range keys {
		z, ok := zsetValue(c, key)
		if !ok {
			return
		}
		if z != nil {
			zpopWithKey(c, key, z, fromTop, max(count, 1), nested)
			return
		}
	}
	if !c.mayBlock() {
		c.w.NullArray()
		return
	}
	c.srv.block(c, keys, store.KindZSet, timeout, func(c *Client, key []byte) {
		z, _ := zsetValue(c, key)
		zpopWithKey(c, key, z, fromTop, max(count, 1), nested)
	})
}

// zpopWithKey pops up to count members from one end of z and answers as
// Redis's genericZpopCommand with the key: [key, member, score, ...], or
// nested, [key, [[member, score], ...]].
func zpopWithKey(c *Client, key []byte, z *store.ZSet, fromTop bool, count int64, nested bool) {
	n := int(min(count, int64(z.Len())))
	if nested {
		c.w.Array(2)
		c.w.Bulk(key)
		c.w.Array(n)
	} else {
		c.w.Array(2*n + 1)
		c.w.Bulk(key)
	}
	for i := range n {
		rank := i
		if fromTop {
			rank = z.Len() - 1 - i
		}
		m, score := z.At(rank)
		if nested {
			c.w.Array(2)
		}
		c.w.Bulk(m)
		c.w.Double(score)
	}
	lo, hi := 0, n
	if fromTop {
		lo, hi = z.Len()-n, z.Len()
	}
	z.RemoveRange(lo, hi)
	zsetChanged(c, key, z)
}

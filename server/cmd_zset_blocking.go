package server

import "github.com/floodgate/floodgate/store"

// The blocking sorted-set pops. ZMPOP, their non-blocking sibling, belongs
// with the rest of the sorted-set family, and shares its parser (mpopArgs,
// zminMaxArg) and reply (zmpopReply) with BZMPOP.
var zsetBlockingHandlers = map[string]Handler{
	"bzpopmin": cmdBZPopMin,
	"bzpopmax": cmdBZPopMax,
	"bzmpop":   cmdBZMPop,
}

func cmdBZPopMin(c *Client, args [][]byte) { zsetPops.pop(c, args, false) }
func cmdBZPopMax(c *Client, args [][]byte) { zsetPops.pop(c, args, true) }
func cmdBZMPop(c *Client, args [][]byte)   { zsetPops.mpop(c, args) }

// zsetPops touches the key once more than the list pops: Redis's blocking
// sorted-set pops look it up to find it (blockingGenericZpopCommand, or
// handleClientsBlockedOnKeys when a blocked client is served) and again in
// genericZpopCommand, which pops, and each lookup is an access (LFU).
var zsetPops = blockingPops[*store.ZSet]{kind: store.KindZSet, end: zminMaxArg,
	one: func(c *Client, key []byte, z *store.ZSet, fromTop bool) {
		c.db.Get(key)
		zpopWithKey(c, key, z, fromTop)
	},
	many: func(c *Client, key []byte, z *store.ZSet, fromTop bool, count int64) {
		c.db.Get(key)
		zmpopReply(c, key, z, fromTop, count)
	},
}

// zpopWithKey pops one member from one end of z, the sorted set at key,
// and answers [key, member, score], as BZPOPMIN and BZPOPMAX do.
func zpopWithKey(c *Client, key []byte, z *store.ZSet, fromTop bool) {
	rank := 0
	if fromTop {
		rank = z.Len() - 1
	}
	m, score := z.At(rank)
	c.logAsPop(zpopName(fromTop), key, -1)
	c.w.Array(3)
	c.w.Bulk(key)
	zpopRaise(c, fromTop, key)
	c.w.Bulk(m)
	c.w.Double(score)
	z.RemoveRange(rank, rank+1)
	zsetChanged(c, key, z)
	zpopEmptied(c, key, z)
}

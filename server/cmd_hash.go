package server

import (
	"math"
	"strconv"

	"github.com/floodgate/floodgate/store"
)

var hashHandlers = map[string]Handler{
	"hset":         cmdHSet,
	"hsetnx":       cmdHSetNX,
	"hget":         cmdHGet,
	"hmget":        cmdHMGet,
	"hmset":        cmdHSet,
	"hgetall":      cmdHGetAll,
	"hdel":         cmdHDel,
	"hexists":      cmdHExists,
	"hlen":         cmdHLen,
	"hkeys":        cmdHKeys,
	"hvals":        cmdHVals,
	"hincrby":      cmdHIncrBy,
	"hincrbyfloat": cmdHIncrByFloat,
	"hstrlen":      cmdHStrLen,
	"hrandfield":   cmdHRandField,
	"hscan":        cmdHScan,
}

// errNaNOrInfArg is HINCRBYFLOAT's answer to an infinite increment (the
// stored value being infinite gets store.ErrNaNOrInf instead).
const errNaNOrInfArg = "ERR value is NaN or Infinity"

// hashForRead returns the hash at key, or an empty one if there is none
// (readers treat a missing key as an empty hash, as Redis does); false after
// WRONGTYPE. The empty hash is shared: never change it.
func hashForRead(c *Client, key []byte) (*store.Hash, bool) {
	h, ok := valueAs[*store.Hash](c, key)
	if h == nil {
		h = emptyHash
	}
	return h, ok
}

var emptyHash = store.NewHash()

// hashForWrite returns the hash at key, or a new empty one that stored
// tells to keep (hashStore) once it has fields; false after WRONGTYPE.
func hashForWrite(c *Client, key []byte) (h *store.Hash, created, ok bool) {
	if h, ok = valueAs[*store.Hash](c, key); !ok || h != nil {
		return h, false, ok
	}
	return store.NewHash(), true, true
}

// hashStore publishes a change made to h: it stores a hash created by
// hashForWrite, signals one changed in place, and deletes an emptied one,
// as Redis never keeps an empty collection.
func hashStore(c *Client, key []byte, h *store.Hash, created bool) {
	switch {
	case h.Len() == 0:
		if !created {
			c.db.Delete(key)
		}
	case created:
		c.db.Set(key, h, 0)
	default:
		c.db.Modified(key)
	}
}

// cmdHSet serves HSET (the number of new fields) and HMSET (OK).
func cmdHSet(c *Client, args [][]byte) {
	if len(args)%2 != 0 {
		c.wrongArity(c.cmd)
		return
	}
	added, err := c.db.HSet(args[1], args[2:])
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	if c.cmd.Name == "hmset" {
		c.w.Status("OK")
	} else {
		c.w.Int(int64(added))
	}
	c.notify(notifyHash, "hset", args[1])
}

func cmdHSetNX(c *Client, args [][]byte) {
	h, created, ok := hashForWrite(c, args[1])
	if !ok {
		return
	}
	if h.Has(args[2]) {
		c.w.Int(0)
		return
	}
	h.Set(args[2], args[3], c.db.Encodings())
	hashStore(c, args[1], h, created)
	c.w.Int(1)
	c.notify(notifyHash, "hset", args[1])
}

func cmdHGet(c *Client, args [][]byte) {
	h, ok := hashForRead(c, args[1])
	if !ok {
		return
	}
	writeHashValue(c, h, args[2])
}

// writeHashValue answers the value of a field, or a null bulk string.
func writeHashValue(c *Client, h *store.Hash, name []byte) {
	var scratch [20]byte
	if v, found := h.View(name, &scratch); found {
		c.w.Bulk(v)
	} else {
		c.w.Null()
	}
}

func cmdHMGet(c *Client, args [][]byte) {
	h, ok := hashForRead(c, args[1])
	if !ok {
		return
	}
	c.w.Array(len(args) - 2)
	for _, f := range args[2:] {
		writeHashValue(c, h, f)
	}
}

// hashFields answers a hash's fields, values, or both (HKEYS, HVALS, HGETALL).
func hashFields(c *Client, key []byte, names, values bool) {
	h, ok := hashForRead(c, key)
	if !ok {
		return
	}
	if names && values {
		c.w.Map(h.Len())
	} else {
		c.w.Array(h.Len())
	}
	for name, value := range h.All() {
		if names {
			c.w.BulkString(name)
		}
		if values {
			c.w.BulkString(value)
		}
	}
}

func cmdHGetAll(c *Client, args [][]byte) { hashFields(c, args[1], true, true) }
func cmdHKeys(c *Client, args [][]byte)   { hashFields(c, args[1], true, false) }
func cmdHVals(c *Client, args [][]byte)   { hashFields(c, args[1], false, true) }

func cmdHDel(c *Client, args [][]byte) {
	h, ok := hashForRead(c, args[1]) // deleting from the shared empty hash changes nothing
	if !ok {
		return
	}
	var deleted int64
	for _, f := range args[2:] {
		if h.Delete(f) {
			deleted++
		}
	}
	if deleted > 0 {
		hashStore(c, args[1], h, false)
		c.notify(notifyHash, "hdel", args[1])
		if h.Len() == 0 {
			c.notify(notifyGeneric, "del", args[1])
		}
	}
	c.w.Int(deleted)
}

func cmdHExists(c *Client, args [][]byte) {
	h, ok := hashForRead(c, args[1])
	if !ok {
		return
	}
	if h.Has(args[2]) {
		c.w.Int(1)
	} else {
		c.w.Int(0)
	}
}

func cmdHLen(c *Client, args [][]byte) {
	h, ok := hashForRead(c, args[1])
	if !ok {
		return
	}
	c.w.Int(int64(h.Len()))
}

func cmdHStrLen(c *Client, args [][]byte) {
	h, ok := hashForRead(c, args[1])
	if !ok {
		return
	}
	var scratch [20]byte
	v, _ := h.View(args[2], &scratch)
	c.w.Int(int64(len(v)))
}

// cmdHIncrBy parses the increment before it looks at the key, as Redis does.
func cmdHIncrBy(c *Client, args [][]byte) {
	delta, ok := intArg(c, args[3])
	if !ok {
		return
	}
	hashUpdate(c, args[1], "hincrby", func(h *store.Hash) error {
		n, err := h.IncrBy(args[2], delta, c.db.Encodings())
		if err == nil {
			c.w.Int(n)
		}
		return err
	})
}

func cmdHIncrByFloat(c *Client, args [][]byte) {
	delta, ok := c.string2ld(args[3])
	if !ok {
		c.w.Error(errNotFloat)
		return
	}
	if delta.IsInf() {
		c.w.Error(errNaNOrInfArg)
		return
	}
	hashUpdate(c, args[1], "hincrbyfloat", func(h *store.Hash) error {
		v, err := h.IncrByFloat(args[2], delta, c.db.Encodings())
		if err == nil {
			c.w.BulkString(v)
		}
		return err
	})
}

// hashUpdate runs change, which replies on success, on the hash at key
// (created if missing) and publishes the result; a change that fails
// leaves the hash as it was, and its error is the reply. A change raises
// event after its reply, as HINCRBY and HINCRBYFLOAT.
func hashUpdate(c *Client, key []byte, event string, change func(h *store.Hash) error) {
	h, created, ok := hashForWrite(c, key)
	if !ok {
		return
	}
	if err := change(h); err != nil {
		c.w.Error(err.Error())
		return
	}
	hashStore(c, key, h, created)
	c.notify(notifyHash, event, key)
}

// cmdHRandField follows Redis's hrandfieldCommand: the count is checked
// (and WITHVALUES's tighter range) before the key is looked up.
func cmdHRandField(c *Client, args [][]byte) {
	if len(args) == 2 {
		h := valueOrReply[*store.Hash](c, args[1], replyNull)
		if h == nil {
			return
		}
		c.w.BulkString(h.Random(c.rng(), 1, true)[0].Name)
		return
	}
	count, ok := intArg(c, args[2])
	switch {
	case !ok:
		return
	case count == math.MinInt64:
		c.w.Error(errZRandCount)
		return
	case len(args) > 4 || len(args) == 4 && !eqFold(args[3], "withvalues"):
		c.w.Error(errSyntax)
		return
	case len(args) == 4 && (count < -math.MaxInt64/2 || count > math.MaxInt64/2):
		c.w.Error(errZRandRange)
		return
	}
	withValues := len(args) == 4
	h, ok := valueAs[*store.Hash](c, args[1])
	if !ok {
		return
	}
	if h == nil || count == 0 {
		c.w.Array(0)
		return
	}
	if count < 0 {
		randomRepeats(c, -count, withValues, func(p pairReply, k int) {
			writeHashPicks(c, p, h.Random(c.rng(), k, false), withValues)
		})
		return
	}
	writeHashFields(c, h.Random(c.rng(), int(min(count, int64(h.Len()))), true), withValues, false)
}

// writeHashFields answers fields, with their values or not: as pairs under
// RESP3 unless flat (HSCAN's reply stays flat).
func writeHashFields(c *Client, fields []store.HashField, withValues, flat bool) {
	writeHashPicks(c, newPairReply(c, len(fields), withValues, flat), fields, withValues)
}

// writeHashPicks writes fields as items of p.
func writeHashPicks(c *Client, p pairReply, fields []store.HashField, withValues bool) {
	for _, f := range fields {
		p.item()
		c.w.BulkString(f.Name)
		if withValues {
			c.w.BulkString(f.Value)
		}
	}
}

// cmdHScan answers a listpack whole with cursor 0, as Redis does; a
// hashtable is walked COUNT fields at a time (see store.Hash.Scan). A
// missing key is answered before the options are parsed, as in Redis.
func cmdHScan(c *Client, args [][]byte) {
	h, cursor, o, ok := scanTarget[*store.Hash](c, args)
	if !ok {
		return
	}
	var found []store.HashField
	next := h.Scan(cursor, int(min(o.count, math.MaxInt32)), func(f store.HashField) {
		if o.pattern == nil || store.Match(o.pattern, []byte(f.Name), false) {
			found = append(found, f)
		}
	})
	c.w.Array(2)
	c.w.BulkString(strconv.FormatUint(next, 10))
	writeHashFields(c, found, true, true)
}

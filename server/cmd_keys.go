package server

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/floodgate/floodgate/internal/resp"
	"github.com/floodgate/floodgate/store"
)

var keyHandlers = map[string]Handler{
	"del":         cmdDel,
	"unlink":      cmdDel,
	"exists":      cmdExists,
	"touch":       cmdTouch,
	"type":        cmdType,
	"keys":        cmdKeys,
	"scan":        cmdScan,
	"randomkey":   cmdRandomKey,
	"rename":      cmdRename,
	"renamenx":    cmdRenameNX,
	"copy":        cmdCopy,
	"expire":      cmdExpire,
	"pexpire":     cmdPExpire,
	"expireat":    cmdExpireAt,
	"pexpireat":   cmdPExpireAt,
	"ttl":         cmdTTL,
	"pttl":        cmdPTTL,
	"expiretime":  cmdExpireTime,
	"pexpiretime": cmdPExpireTime,
	"move":        cmdMove,
	"persist":     cmdPersist,
}

const (
	errIntRange         = "ERR value is out of range, value must between -2147483648 and 2147483647"
	errSameObject       = "ERR source and destination objects are the same"
	errExpireNXCompat   = "ERR NX and XX, GT or LT options at the same time are not compatible"
	errExpireGTLTCompat = "ERR GT and LT options at the same time are not compatible"
)

// cmdDel serves DEL and UNLINK: values are freed by Go's collector either
// way, so UNLINK has nothing to do in the background.
func cmdDel(c *Client, args [][]byte) { del(c, len(args)-1, argsFrom(args)) }

// cmdDelLong is DEL (and UNLINK) of a long request, from its LongArgs.
func cmdDelLong(c *Client, args *resp.LongArgs) { del(c, args.Len()-1, longArgsFrom(args)) }

// del deletes the keys keys returns, as many as count.
func del(c *Client, count int, keys func() []byte) {
	var n int64
	for range count {
		if k := keys(); c.db.Delete(k) {
			c.notify(notifyGeneric, "del", k)
			n++
		}
	}
	c.w.Int(n)
}

// cmdExists counts live keys, a key named twice counting twice. Like
// Redis's, it does not count as an access for eviction; TOUCH does.
func cmdExists(c *Client, args [][]byte) { countKeys(c, len(args)-1, argsFrom(args), c.db.Peek) }

func cmdTouch(c *Client, args [][]byte) { countKeys(c, len(args)-1, argsFrom(args), c.db.Get) }

// cmdExistsLong and cmdTouchLong are EXISTS and TOUCH of a long request,
// from its LongArgs.
func cmdExistsLong(c *Client, args *resp.LongArgs) {
	countKeys(c, args.Len()-1, longArgsFrom(args), c.db.Peek)
}

func cmdTouchLong(c *Client, args *resp.LongArgs) {
	countKeys(c, args.Len()-1, longArgsFrom(args), c.db.Get)
}

// countKeys counts the keys of the count that keys returns which lookup
// finds.
func countKeys(c *Client, count int, keys func() []byte, lookup func([]byte) *store.Entry) {
	var n int64
	for range count {
		if lookup(keys()) != nil {
			n++
		}
	}
	c.w.Int(n)
}

// argsFrom returns the arguments past the name one call at a time, and
// longArgsFrom those of a long request.
func argsFrom(args [][]byte) func() []byte {
	i := 0
	return func() []byte { i++; return args[i] }
}

func longArgsFrom(args *resp.LongArgs) func() []byte {
	cur := args.Cursor()
	cur.Next() // the name
	return cur.Next
}

func cmdType(c *Client, args [][]byte) {
	e := c.db.Peek(args[1])
	if e == nil {
		c.w.Status("none")
		return
	}
	c.w.Status(e.Kind().String())
}

func cmdKeys(c *Client, args [][]byte) {
	pattern := args[1]
	all := len(pattern) == 1 && pattern[0] == '*' // matches "" too, unlike the glob
	match := func(e *store.Entry) bool { return all || store.Match(pattern, []byte(e.Key()), false) }
	// Two passes, counting then writing, so the reply streams into the
	// connection's blocks instead of collecting millions of keys first
	// (the keyspace cannot change in between: the lock is held).
	n := 0
	c.db.Each(func(e *store.Entry) {
		if match(e) {
			n++
		}
	})
	c.w.Array(n)
	c.db.Each(func(e *store.Entry) {
		if match(e) {
			c.w.BulkString(e.Key())
		}
	})
}

func cmdScan(c *Client, args [][]byte) {
	cursor, ok := parseCursor(args[1])
	if !ok {
		c.w.Error(errInvalidCursor)
		return
	}
	o, ok := parseScanOptions(c, args[2:], true)
	if !ok {
		return
	}
	var keys []string
	next := c.db.Scan(cursor, int(min(o.count, math.MaxInt32)), func(e *store.Entry) {
		if o.pattern != nil && !store.Match(o.pattern, []byte(e.Key()), false) {
			return
		}
		// An unknown type name is no error: it matches nothing.
		if o.typeName != nil && !strings.EqualFold(string(o.typeName), e.Kind().String()) {
			return
		}
		keys = append(keys, e.Key())
	})
	c.w.Array(2)
	c.w.BulkString(strconv.FormatUint(next, 10))
	c.w.Array(len(keys))
	for _, k := range keys {
		c.w.BulkString(k)
	}
}

func cmdRandomKey(c *Client, args [][]byte) {
	k, ok := c.db.RandomKey()
	if !ok {
		c.w.Null()
		return
	}
	c.w.BulkString(k)
}

func cmdRename(c *Client, args [][]byte)   { rename(c, args[1], args[2], false) }
func cmdRenameNX(c *Client, args [][]byte) { rename(c, args[1], args[2], true) }

// rename moves a key's value and TTL to another name (Redis's
// renameGenericCommand): a missing source is an error even when both names
// are the same.
func rename(c *Client, from, to []byte, nx bool) {
	e := c.db.Get(from)
	if e == nil {
		c.w.Error(errNoSuchKey)
		return
	}
	reply := func(done bool) {
		switch {
		case !nx:
			c.w.Status("OK")
		case done:
			c.w.Int(1)
		default:
			c.w.Int(0)
		}
	}
	if bytes.Equal(from, to) {
		reply(false)
		return
	}
	if c.db.Get(to) != nil {
		if nx {
			reply(false)
			return
		}
		// Redis deletes the old key and adds the new one (dbAdd): "new"
		// even though the name was taken. The store overwrites, and tells
		// OnNew only of a name that was free.
		c.notify(notifyNew, "new", to)
	}
	v, at := e.Value(), c.db.ExpireAt(e)
	c.db.Delete(from)
	c.db.SetMoved(to, v, at, e)
	c.notify(notifyGeneric, "rename_from", from)
	c.notify(notifyGeneric, "rename_to", to)
	reply(true)
}

func cmdCopy(c *Client, args [][]byte) {
	dst := c.db
	replace := false
	for i := 3; i < len(args); i++ {
		switch {
		case eqFold(args[i], "replace"):
			replace = true
		case eqFold(args[i], "db") && i+1 < len(args):
			var ok bool
			if dst, ok = dbArg(c, args[i+1]); !ok {
				return
			}
			i++
		default:
			c.w.Error(errSyntax)
			return
		}
	}
	if dst == c.db && bytes.Equal(args[1], args[2]) {
		c.w.Error(errSameObject)
		return
	}
	e := c.db.Get(args[1])
	if e == nil {
		c.w.Int(0)
		return
	}
	if dst.GetWrite(args[2]) != nil { // lookupKeyWrite: no hit, no miss
		if !replace {
			c.w.Int(0)
			return
		}
		// Redis deletes the old value and adds a new object: it does not
		// inherit the old one's LFU counter, as an overwrite would.
		dst.Delete(args[2])
	}
	dst.Set(args[2], e.Value().Clone(), c.db.ExpireAt(e))
	c.notifyIn(dst.Index(), notifyGeneric, "copy_to", args[2])
	c.w.Int(1)
}

// cmdMove follows Redis's moveCommand: the database index is checked
// first, then the key; an existing key in the target stops the move. The
// key keeps its TTL.
func cmdMove(c *Client, args [][]byte) {
	dst, ok := dbArg(c, args[2])
	if !ok {
		return
	}
	if dst == c.db {
		c.w.Error(errSameObject)
		return
	}
	e := c.db.Get(args[1])
	if e == nil || dst.Get(args[1]) != nil {
		c.w.Int(0)
		return
	}
	v, at := e.Value(), c.db.ExpireAt(e)
	c.db.Delete(args[1])
	dst.SetMoved(args[1], v, at, e)
	c.notify(notifyGeneric, "move_from", args[1])
	c.notifyIn(dst.Index(), notifyGeneric, "move_to", args[1])
	c.w.Int(1)
}

// Conditions of EXPIRE and friends.
type expireFlags uint8

const (
	expireNX expireFlags = 1 << iota
	expireXX
	expireGT
	expireLT
)

func cmdExpire(c *Client, args [][]byte)    { expireGeneric(c, args, c.srv.store.Now(), 1000) }
func cmdPExpire(c *Client, args [][]byte)   { expireGeneric(c, args, c.srv.store.Now(), 1) }
func cmdExpireAt(c *Client, args [][]byte)  { expireGeneric(c, args, 0, 1000) }
func cmdPExpireAt(c *Client, args [][]byte) { expireGeneric(c, args, 0, 1) }

// parseExpireFlags parses the NX/XX/GT/LT options of EXPIRE and friends.
func parseExpireFlags(c *Client, opts [][]byte) (expireFlags, bool) {
	var f expireFlags
	for _, opt := range opts {
		switch {
		case eqFold(opt, "nx"):
			f |= expireNX
		case eqFold(opt, "xx"):
			f |= expireXX
		case eqFold(opt, "gt"):
			f |= expireGT
		case eqFold(opt, "lt"):
			f |= expireLT
		default:
			c.w.Error(errorEndingWith("ERR Unsupported option ", opt))
			return 0, false
		}
	}
	if f&expireNX != 0 && f&(expireXX|expireGT|expireLT) != 0 {
		c.w.Error(errExpireNXCompat)
		return 0, false
	}
	if f&expireGT != 0 && f&expireLT != 0 {
		c.w.Error(errExpireGTLTCompat)
		return 0, false
	}
	return f, true
}

// expireGeneric is Redis's expireGenericCommand: the deadline is
// basetime + amount*unit ms, checked for overflow before the key is looked
// up; a deadline not in the future deletes the key.
func expireGeneric(c *Client, args [][]byte, basetime, unit int64) {
	flags, ok := parseExpireFlags(c, args[3:])
	if !ok {
		return
	}
	when, ok := intArg(c, args[2])
	if !ok {
		return
	}
	if unit == 1000 && (when > math.MaxInt64/1000 || when < math.MinInt64/1000) {
		c.errorf(errInvalidExpire, c.cmd.FullName())
		return
	}
	when *= unit
	if when > math.MaxInt64-basetime {
		c.errorf(errInvalidExpire, c.cmd.FullName())
		return
	}
	when += basetime
	e := c.db.Get(args[1])
	if e == nil {
		c.w.Int(0)
		return
	}
	current := c.db.ExpireAt(e) // 0: no TTL, an infinite one for GT and LT
	if (flags&expireNX != 0 && current != 0) ||
		(flags&expireXX != 0 && current == 0) ||
		(flags&expireGT != 0 && (current == 0 || when <= current)) ||
		(flags&expireLT != 0 && current != 0 && when >= current) {
		c.w.Int(0)
		return
	}
	if when <= c.srv.store.Now() {
		c.db.Expire(e, when) // deleted at once
		c.notify(notifyGeneric, "del", args[1])
		c.w.Int(1)
		return
	}
	c.db.Expire(e, when)
	c.w.Int(1)
	c.notify(notifyGeneric, "expire", args[1]) // after the reply, as Redis

}

func cmdTTL(c *Client, args [][]byte)         { ttlGeneric(c, args[1], false, false) }
func cmdPTTL(c *Client, args [][]byte)        { ttlGeneric(c, args[1], true, false) }
func cmdExpireTime(c *Client, args [][]byte)  { ttlGeneric(c, args[1], false, true) }
func cmdPExpireTime(c *Client, args [][]byte) { ttlGeneric(c, args[1], true, true) }

// ttlGeneric answers -2 for a missing key, -1 for one without a TTL, and
// otherwise the time left (or the deadline, if absolute) in ms or in
// seconds rounded to the nearest, as Redis does.
func ttlGeneric(c *Client, key []byte, ms, absolute bool) {
	e := c.db.Peek(key)
	if e == nil {
		c.w.Int(-2)
		return
	}
	at := c.db.ExpireAt(e)
	if at == 0 {
		c.w.Int(-1)
		return
	}
	ttl := at
	if !absolute {
		ttl = max(at-c.srv.store.Now(), 0)
	}
	if !ms {
		// Unsigned, as Redis's compiled code computes it (ttl >= 0): a
		// deadline near the int64 limit rounds up instead of wrapping.
		ttl = int64((uint64(ttl) + 500) / 1000)
	}
	c.w.Int(ttl)
}

func cmdPersist(c *Client, args [][]byte) {
	e := c.db.Get(args[1])
	if e == nil || c.db.ExpireAt(e) == 0 {
		c.w.Int(0)
		return
	}
	c.db.SetExpire(e, 0)
	c.notify(notifyGeneric, "persist", args[1])
	c.w.Int(1)
}

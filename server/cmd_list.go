package server

import (
	"math"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

var listHandlers = map[string]Handler{
	"lpush":      cmdLPush,
	"rpush":      cmdRPush,
	"lpushx":     cmdLPushX,
	"rpushx":     cmdRPushX,
	"lpop":       cmdLPop,
	"rpop":       cmdRPop,
	"llen":       cmdLLen,
	"lindex":     cmdLIndex,
	"lset":       cmdLSet,
	"lrange":     cmdLRange,
	"ltrim":      cmdLTrim,
	"lrem":       cmdLRem,
	"linsert":    cmdLInsert,
	"lpos":       cmdLPos,
	"lmove":      cmdLMove,
	"rpoplpush":  cmdRPopLPush,
	"lmpop":      cmdLMPop,
	"blpop":      cmdBLPop,
	"brpop":      cmdBRPop,
	"blmove":     cmdBLMove,
	"brpoplpush": cmdBRPopLPush,
	"blmpop":     cmdBLMPop,
}

// Errors of the list family, with Redis 7.0's text.
const (
	errListIndex     = "ERR index out of range"
	errLPosRank      = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
	errLPosCount     = "ERR COUNT can't be negative"
	errLPosMaxLen    = "ERR MAXLEN can't be negative"
	errCountPositive = "ERR count should be greater than 0"
)

func cmdLPush(c *Client, args [][]byte) {
	n, err := c.db.LPush(args[1], args[2:]...)
	pushed(c, args[1], true, n, err)
}

func cmdRPush(c *Client, args [][]byte) {
	n, err := c.db.RPush(args[1], args[2:]...)
	pushed(c, args[1], false, n, err)
}

func cmdLPushX(c *Client, args [][]byte) {
	n, err := c.db.LPushX(args[1], args[2:]...)
	pushed(c, args[1], true, n, err)
}

func cmdRPushX(c *Client, args [][]byte) {
	n, err := c.db.RPushX(args[1], args[2:]...)
	pushed(c, args[1], false, n, err)
}

// pushed answers a push: the list's new length, or WRONGTYPE; then its
// event, as pushGenericCommand.
func pushed(c *Client, key []byte, front bool, n int, err error) {
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	c.w.Int(int64(n))
	if n > 0 {
		c.notify(notifyList, pushEvent(front), key)
	}
}

// pushEvent and popEvent are the events of a push onto and a pop from
// one end of a list.
func pushEvent(front bool) string {
	if front {
		return "lpush"
	}
	return "rpush"
}

func popEvent(front bool) string {
	if front {
		return "lpop"
	}
	return "rpop"
}

// listShrunk raises event for the list l at key, and "del" if that left
// it empty (and so deleted), as listElementsRemoved, LTRIM and LREM.
func listShrunk(c *Client, event string, key []byte, l *store.List) {
	if c.srv.notifyFlags == 0 {
		return
	}
	c.notify(notifyList, event, key)
	if l.Len() == 0 {
		c.notify(notifyGeneric, "del", key)
	}
}

func cmdLPop(c *Client, args [][]byte) { pop(c, args, true) }
func cmdRPop(c *Client, args [][]byte) { pop(c, args, false) }

// pop is Redis's popGenericCommand: without a count it answers one
// element, with one an array (null for a missing key).
func pop(c *Client, args [][]byte, front bool) {
	if len(args) > 3 {
		c.wrongArity(c.cmd)
		return
	}
	hasCount := len(args) == 3
	var count int64
	if hasCount {
		n, ok := number.ParseInt(args[2])
		if !ok || n < 0 {
			c.w.Error(errOutOfRange)
			return
		}
		count = n
	}
	missing := replyNull
	if hasCount {
		missing = replyNullArray
	}
	l := valueOrReply[*store.List](c, args[1], missing)
	switch {
	case l == nil:
		return
	case hasCount && count == 0:
		c.w.Array(0)
		return
	case !hasCount:
		c.w.Bulk(c.db.PopList(args[1], l, front, 1)[0])
		listShrunk(c, popEvent(front), args[1], l)
	default:
		popRange(c, args[1], l, front, count)
	}
}

// popRange answers an array of up to count elements popped from one end
// of l, the list at key.
func popRange(c *Client, key []byte, l *store.List, front bool, count int64) {
	elems := c.db.PopListRange(key, l, front, int(min(count, int64(l.Len()))))
	c.w.Array(len(elems))
	for _, v := range elems {
		c.w.Bulk(v)
	}
	listShrunk(c, popEvent(front), key, l)
}

// popRangeWithKey answers [key, [elements...]] (LMPOP, BLMPOP).
func popRangeWithKey(c *Client, key []byte, l *store.List, front bool, count int64) {
	c.logAsPop(popName(front), key, min(count, int64(l.Len())))
	c.w.Array(2)
	c.w.Bulk(key)
	popRange(c, key, l, front, count)
}

func cmdLLen(c *Client, args [][]byte) {
	if l := valueOrReply[*store.List](c, args[1], replyZero); l != nil {
		c.w.Int(int64(l.Len()))
	}
}

// cmdLIndex looks the key up before parsing the index, as Redis does.
func cmdLIndex(c *Client, args [][]byte) {
	l := valueOrReply[*store.List](c, args[1], replyNull)
	if l == nil {
		return
	}
	i, ok := intArg(c, args[2])
	if !ok {
		return
	}
	if v, found := l.Index(clampIndex(i)); found {
		c.w.Bulk(v)
		return
	}
	c.w.Null()
}

// clampIndex keeps an index beyond any list's length out of range on
// 32-bit platforms too.
func clampIndex(i int64) int {
	return int(max(min(i, math.MaxInt32), math.MinInt32))
}

func cmdLSet(c *Client, args [][]byte) {
	l := valueOrReply[*store.List](c, args[1], replyNoKey)
	if l == nil {
		return
	}
	i, ok := intArg(c, args[2])
	if !ok {
		return
	}
	if !l.Set(clampIndex(i), args[3]) {
		c.w.Error(errListIndex)
		return
	}
	c.db.Modified(args[1])
	c.w.Status("OK")
	c.notify(notifyList, "lset", args[1])
}

// listRange normalizes start..end as Redis's addListRangeReply and LTRIM
// do; ok is false when the range is empty.
func listRange(start, end int64, n int) (lo, hi int, ok bool) {
	llen := int64(n)
	if start < 0 {
		start += llen
	}
	if end < 0 {
		end += llen
	}
	start = max(start, 0)
	if start > end || start >= llen {
		return 0, 0, false
	}
	end = min(end, llen-1)
	return int(start), int(end), true
}

// rangeArgs parses LRANGE's and LTRIM's start and stop.
func rangeArgs(c *Client, args [][]byte) (start, end int64, ok bool) {
	if start, ok = intArg(c, args[2]); !ok {
		return 0, 0, false
	}
	end, ok = intArg(c, args[3])
	return start, end, ok
}

func cmdLRange(c *Client, args [][]byte) {
	start, end, ok := rangeArgs(c, args)
	if !ok {
		return
	}
	l := valueOrReply[*store.List](c, args[1], replyEmptyArray)
	if l == nil {
		return
	}
	lo, hi, ok := listRange(start, end, l.Len())
	if !ok {
		c.w.Array(0)
		return
	}
	c.w.Array(hi - lo + 1)
	l.Range(lo, hi, func(v []byte) bool {
		c.w.Bulk(v)
		return true
	})
}

func cmdLTrim(c *Client, args [][]byte) {
	start, end, ok := rangeArgs(c, args)
	if !ok {
		return
	}
	l := valueOrReply[*store.List](c, args[1], replyOK)
	if l == nil {
		return
	}
	if lo, hi, ok := listRange(start, end, l.Len()); ok {
		l.Trim(lo, hi)
	} else {
		l.Trim(1, 0)
	}
	c.db.ListChanged(args[1], l)
	listShrunk(c, "ltrim", args[1], l)
	c.w.Status("OK")
}

func cmdLRem(c *Client, args [][]byte) {
	count, ok := intArg(c, args[2])
	if !ok {
		return
	}
	l := valueOrReply[*store.List](c, args[1], replyZero)
	if l == nil {
		return
	}
	removed := l.Remove(args[3], int(max(min(count, math.MaxInt32), math.MinInt32+1)))
	if removed > 0 {
		c.db.ListChanged(args[1], l)
		listShrunk(c, "lrem", args[1], l)
	}
	c.w.Int(int64(removed))
}

func cmdLInsert(c *Client, args [][]byte) {
	var after bool
	switch {
	case eqFold(args[2], "after"):
		after = true
	case eqFold(args[2], "before"):
	default:
		c.w.Error(errSyntax)
		return
	}
	l := valueOrReply[*store.List](c, args[1], replyZero)
	if l == nil {
		return
	}
	n := l.Insert(args[3], args[4], after)
	if n > 0 {
		c.db.Modified(args[1])
		c.notify(notifyList, "linsert", args[1])
	}
	c.w.Int(int64(n))
}

func cmdLPos(c *Client, args [][]byte) {
	rank, count, maxLen := int64(1), int64(-1), int64(0) // count -1: no COUNT
	for i := 3; i < len(args); i++ {
		more := i+1 < len(args)
		switch {
		case eqFold(args[i], "rank") && more:
			i++
			n, ok := intArg(c, args[i])
			if !ok {
				return
			}
			if n == 0 {
				c.w.Error(errLPosRank)
				return
			}
			rank = n
		case eqFold(args[i], "count") && more:
			i++
			n, ok := number.ParseInt(args[i])
			if !ok || n < 0 {
				c.w.Error(errLPosCount)
				return
			}
			count = n
		case eqFold(args[i], "maxlen") && more:
			i++
			n, ok := number.ParseInt(args[i])
			if !ok || n < 0 {
				c.w.Error(errLPosMaxLen)
				return
			}
			maxLen = n
		default:
			c.w.Error(errSyntax)
			return
		}
	}
	l, ok := valueAs[*store.List](c, args[1])
	if !ok {
		return
	}
	if l == nil {
		if count != -1 {
			c.w.Array(0)
		} else {
			c.w.Null()
		}
		return
	}
	want := count
	if count == -1 {
		want = 1
	}
	if rank == math.MinInt64 {
		// Redis negates the rank, which stays LLONG_MIN: every match from
		// the tail is past the rank, and COUNT's test, matches-rank+1 >=
		// count, overflows to a negative number and never stops the search.
		rank = -1
		if count != -1 {
			want = 0
		}
	}
	// Ranks and counts past the list's length mean the same as its length.
	clamp := func(n int64) int { return int(max(min(n, math.MaxInt32), math.MinInt32)) }
	found := l.Pos(args[2], clamp(rank), clamp(want), clamp(maxLen))
	if count != -1 {
		c.w.Array(len(found))
		for _, i := range found {
			c.w.Int(int64(i))
		}
		return
	}
	if len(found) == 0 {
		c.w.Null()
		return
	}
	c.w.Int(int64(found[0]))
}

// whereArg parses LEFT or RIGHT (true for LEFT, the head).
func whereArg(c *Client, b []byte) (front, ok bool) {
	switch {
	case eqFold(b, "left"):
		return true, true
	case eqFold(b, "right"):
		return false, true
	}
	c.w.Error(errSyntax)
	return false, false
}

func cmdLMove(c *Client, args [][]byte) {
	if from, to, ok := moveWheres(c, args); ok {
		lmove(c, args[1], args[2], from, to)
	}
}

// popName is the pop from one end of a list, as blocking and multi-key
// pops are logged.
func popName(front bool) []byte {
	if front {
		return cmdLPOP
	}
	return cmdRPOP
}

// moveWheres parses LMOVE's and BLMOVE's wherefrom and whereto.
func moveWheres(c *Client, args [][]byte) (from, to, ok bool) {
	if from, ok = whereArg(c, args[3]); !ok {
		return false, false, false
	}
	to, ok = whereArg(c, args[4])
	return from, to, ok
}

func cmdRPopLPush(c *Client, args [][]byte) { lmove(c, args[1], args[2], false, true) }

// lmove is Redis's lmoveGenericCommand: pop from src, push onto dst (which
// may be src), answer the element; it reports whether it moved one.
func lmove(c *Client, src, dst []byte, from, to bool) bool {
	v, err := c.db.LMove(src, dst, from, to)
	switch {
	case err != nil:
		c.w.Error(err.Error())
	case v == nil:
		c.w.Null()
	default:
		if c.srv.notifyFlags != 0 {
			// lmoveHandlePush's push (before its reply), then the pop,
			// and "del" for a source left empty.
			c.notify(notifyList, pushEvent(to), dst)
			c.w.Bulk(v)
			c.notify(notifyList, popEvent(from), src)
			if c.db.Entry(src) == nil {
				c.notify(notifyGeneric, "del", src)
			}
			return true
		}
		c.w.Bulk(v)
		return true
	}
	return false
}

func cmdLMPop(c *Client, args [][]byte) {
	keys, front, count, ok := mpopArgs(c, args, 1, whereArg)
	if !ok {
		return
	}
	if !mpopFirst(c, keys, front, count) {
		c.w.NullArray()
	}
}

// mpopFirst pops from the first non-empty list of keys and answers
// [key, elements]; false (nothing written) if every key is missing. A key
// of another type answers WRONGTYPE (true).
func mpopFirst(c *Client, keys [][]byte, front bool, count int64) bool {
	for _, key := range keys {
		l, ok := valueAs[*store.List](c, key)
		if !ok {
			return true
		}
		if l != nil {
			popRangeWithKey(c, key, l, front, count)
			return true
		}
	}
	return false
}

func cmdBLPop(c *Client, args [][]byte)  { listPops.pop(c, args, true) }
func cmdBRPop(c *Client, args [][]byte)  { listPops.pop(c, args, false) }
func cmdBLMPop(c *Client, args [][]byte) { listPops.mpop(c, args) }

var listPops = blockingPops[*store.List]{kind: store.KindList, end: whereArg, one: popWithKey, many: popRangeWithKey}

// popWithKey pops one element from one end of l, the list at key, and
// answers [key, element], as BLPOP and BRPOP do.
func popWithKey(c *Client, key []byte, l *store.List, front bool) {
	c.w.Array(2)
	c.w.Bulk(key)
	c.w.Bulk(c.db.PopList(key, l, front, 1)[0])
	listShrunk(c, popEvent(front), key, l)
	c.logAsPop(popName(front), key, -1)
}

func cmdBLMove(c *Client, args [][]byte) {
	if from, to, ok := moveWheres(c, args); ok {
		blmove(c, args[1], args[2], from, to, args[5], args[3:5])
	}
}

func cmdBRPopLPush(c *Client, args [][]byte) {
	blmove(c, args[1], args[2], false, true, args[3], nil)
}

// blmove is Redis's blmoveGenericCommand: LMOVE, or wait for src. Served
// later, it answers WRONGTYPE if dst has become another type meanwhile.
// It is logged as the LMOVE it did with BLMOVE's wheres (the words as
// given, or as Redis spells them when served later), or as RPOPLPUSH for
// BRPOPLPUSH (wheres nil).
func blmove(c *Client, src, dst []byte, from, to bool, timeoutArgument []byte, wheres [][]byte) {
	timeout, ok := timeoutArg(c, timeoutArgument)
	if !ok {
		return
	}
	logged := func(c *Client, src, dst []byte, wheres [][]byte) {
		if wheres == nil {
			c.logAs(cmdRPOPLPUSH, src, dst)
		} else {
			c.logAs(cmdLMOVE, src, dst, wheres[0], wheres[1])
		}
	}
	sl, ok := valueAs[*store.List](c, src)
	switch {
	case !ok:
	case sl != nil:
		if lmove(c, src, dst, from, to) {
			logged(c, src, dst, wheres)
		}
	case !c.mayBlock():
		c.w.Null()
	default:
		dst := append(make([]byte, 0, len(dst)), dst...) // args do not outlive the command; never nil
		if wheres != nil {
			wheres = [][]byte{listEnd(from), listEnd(to)}
		}
		c.srv.block(c, [][]byte{src}, store.KindList, timeout, func(c *Client, key []byte) {
			if lmove(c, key, dst, from, to) {
				logged(c, key, dst, wheres)
			}
		})
	}
}

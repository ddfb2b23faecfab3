package server

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

var setHandlers = map[string]Handler{
	"sadd":        cmdSAdd,
	"srem":        cmdSRem,
	"scard":       cmdSCard,
	"smembers":    cmdSMembers,
	"sismember":   cmdSIsMember,
	"smismember":  cmdSMIsMember,
	"spop":        cmdSPop,
	"srandmember": cmdSRandMember,
	"smove":       cmdSMove,
	"sdiff":       cmdSDiff,
	"sinter":      cmdSInter,
	"sunion":      cmdSUnion,
	"sdiffstore":  cmdSDiffStore,
	"sinterstore": cmdSInterStore,
	"sunionstore": cmdSUnionStore,
	"sintercard":  cmdSInterCard,
	"sscan":       cmdSScan,
}

// Errors of the numkeys commands (SINTERCARD, ZUNION, ZMPOP, ...), with
// Redis 7.0's text.
const (
	errNumKeysZero   = "ERR numkeys should be greater than 0"
	errNumKeysArgs   = "ERR Number of keys can't be greater than number of args"
	errLimitNegative = "ERR LIMIT can't be negative"
)

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
	n, err := c.db.SAdd(args[1], args[2:])
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	if n > 0 {
		c.notify(notifySet, "sadd", args[1])
	}
	c.w.Int(n)
}

func cmdSRem(c *Client, args [][]byte) {
	n, err := c.db.SRem(args[1], args[2:])
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	if n > 0 {
		c.notify(notifySet, "srem", args[1])
		if c.srv.notifyFlags&notifyGeneric != 0 && c.db.Entry(args[1]) == nil {
			c.notify(notifyGeneric, "del", args[1])
		}
	}
	c.w.Int(n)
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

// writeMembers answers members as a set reply (an array under RESP2).
func writeMembers(c *Client, members []string) {
	c.w.Set(len(members))
	for _, m := range members {
		c.w.BulkString(m)
	}
}

// cmdSPop follows Redis's spopCommand: the count is checked before the key
// is looked up; popping the whole set answers it in its own order (numeric
// for an intset) and deletes the key.
func cmdSPop(c *Client, args [][]byte) {
	if len(args) > 3 {
		c.w.Error(errSyntax)
		return
	}
	count := int64(-1) // no count: a single bulk reply
	if len(args) == 3 {
		n, ok := number.ParseInt(args[2])
		if !ok || n < 0 { // Redis's getPositiveLongFromObjectOrReply: one text for both
			c.w.Error(errOutOfRange)
			return
		}
		count = n
	}
	s, ok := valueAs[*store.Set](c, args[1])
	switch {
	case !ok:
		return
	case s == nil && count < 0:
		c.w.Null()
		return
	case s == nil || count == 0:
		c.w.Set(0)
		return
	case count < 0:
		m := s.Pop(c.rng())
		c.notify(notifySet, "spop", args[1])
		c.w.BulkString(m)
		c.logAs(cmdSREM, args[1], []byte(m))
		if s.Len() == 0 {
			c.notify(notifyGeneric, "del", args[1])
		}
	case count >= int64(s.Len()):
		// Redis answers through SUNION of the one set: an intset's order,
		// also for a hashtable whose members would now fit one.
		c.notify(notifySet, "spop", args[1])
		writeMembers(c, setAlgebra(opUnion, []*store.Set{s}, 0, c.db.Encodings()).Members())
		c.db.Delete(args[1])
		c.notify(notifyGeneric, "del", args[1])
		c.logAs(cmdDEL, args[1])
		return
	default:
		c.notify(notifySet, "spop", args[1])
		remaining := int64(s.Len()) - count
		// Logged as one SREM a member, as Redis 7.0's spopWithCountCommand
		// (in MULTI/EXEC, as any command logged as several).
		c.w.Set(int(count))
		for range count {
			m := s.Pop(c.rng())
			c.w.BulkString(m)
			c.alsoLog(cmdSREM, args[1], []byte(m))
		}
		// Popping most of a set, Redis builds what remains as a new set
		// (SPOP_MOVE_STRATEGY_MUL): an intset again if its members allow.
		if remaining*5 <= count {
			s.Rebuild(c.db.Encodings())
		}
	}
	setChanged(c, args[1], s)
}

// setChanged signals a change made in place and deletes the key once the
// set is empty, as Redis never keeps an empty collection.
func setChanged(c *Client, key []byte, s *store.Set) {
	if s.Len() == 0 {
		c.db.Delete(key)
		return
	}
	c.db.Modified(key)
}

// cmdSRandMember follows Redis's srandmemberCommand: a negative count
// allows repeats; the reply is an array, not a set, even under RESP3.
func cmdSRandMember(c *Client, args [][]byte) {
	if len(args) > 3 {
		c.w.Error(errSyntax)
		return
	}
	if len(args) == 2 {
		s, ok := valueAs[*store.Set](c, args[1])
		switch {
		case !ok:
		case s == nil:
			c.w.Null()
		default:
			c.w.BulkString(s.Member(c.rng().IntN(s.Len())))
		}
		return
	}
	count, ok := intArg(c, args[2])
	if !ok {
		return
	}
	if count == math.MinInt64 {
		c.w.Error(errZRandCount)
		return
	}
	s, ok := valueAs[*store.Set](c, args[1])
	if !ok {
		return
	}
	if s == nil || count == 0 {
		c.w.Array(0)
		return
	}
	if count < 0 { // repeats allowed: written as picked, never held in memory
		randomRepeats(c, -count, false, func(_ pairReply, k int) {
			for range k {
				c.w.BulkString(s.Member(c.rng().IntN(s.Len())))
			}
		})
		return
	}
	picked := s.Random(c.rng(), int(min(count, int64(s.Len()))), true)
	c.w.Array(len(picked))
	for _, m := range picked {
		c.w.BulkString(m)
	}
}

// cmdSMove follows Redis's smoveCommand: a missing source answers 0 before
// any type check; moving within one set only reports membership.
func cmdSMove(c *Client, args [][]byte) {
	src, dst, member := args[1], args[2], args[3]
	// Redis looks both keys up before any check: an access of each.
	srcEntry, dstEntry := c.db.Get(src), c.db.Get(dst)
	if srcEntry == nil {
		c.w.Int(0)
		return
	}
	from, ok := srcEntry.Value().(*store.Set)
	var to *store.Set
	if dstEntry != nil {
		to, ok = dstEntry.Value().(*store.Set)
		ok = ok && from != nil
	}
	if from == nil || !ok {
		c.w.Error(errWrongType)
		return
	}
	if from == to {
		c.w.Int(isMember(from, member))
		return
	}
	if !from.Remove(member) {
		c.w.Int(0)
		return
	}
	setChanged(c, src, from)
	c.notify(notifySet, "srem", src)
	if from.Len() == 0 {
		c.notify(notifyGeneric, "del", src)
	}
	if to == nil {
		to = store.NewSet()
		to.Add(member, c.db.Encodings())
		c.db.Set(dst, to, 0)
		c.notify(notifySet, "sadd", dst)
	} else if to.Add(member, c.db.Encodings()) {
		c.db.Modified(dst)
		c.notify(notifySet, "sadd", dst)
	}
	c.w.Int(1)
}

// inputSets looks up the sets at keys in order, a missing key as nil;
// false after answering WRONGTYPE for the first key of another type.
func inputSets(c *Client, keys [][]byte) ([]*store.Set, bool) {
	sets := make([]*store.Set, len(keys))
	for i, k := range keys {
		s, ok := valueAs[*store.Set](c, k)
		if !ok {
			return nil, false
		}
		sets[i] = s
	}
	return sets, true
}

// setOp is one of the set algebra operations.
type setOp int

const (
	opUnion setOp = iota
	opInter
	opDiff
)

// setAlgebra computes op over sets (nil: empty) as Redis's
// sinterGenericCommand and sunionDiffGenericCommand do, into a new set
// whose encoding follows from its members (an intset when they allow),
// stopping an intersection once it has limit members (0: no limit), by
// enc's set-max-intset-entries. An
// intersection adds the members of the smallest set in that set's order,
// which is the order Redis replies in.
func setAlgebra(op setOp, sets []*store.Set, limit int, enc *store.Encodings) *store.Set {
	out := store.NewSet()
	switch op {
	case opUnion:
		// A set given twice adds nothing the second time. The map is
		// made for the sets there are, not the keys named: sized for
		// SUNION's 1M missing keys it took 16 MB.
		var seen map[*store.Set]bool
		for _, s := range sets {
			if s == nil || seen[s] {
				continue
			}
			if seen == nil {
				seen = make(map[*store.Set]bool)
			}
			seen[s] = true
			out.AddSet(s, enc)
		}
	case opDiff:
		first := sets[0]
		if first == nil {
			return out
		}
		for _, s := range sets[1:] {
			if s == first { // the same key twice: nothing is left
				return out
			}
		}
		if !diffByRemoval(sets) {
			for i := range first.Len() {
				m := []byte(first.Member(i))
				if !inAny(sets[1:], m) {
					out.Add(m, enc)
				}
			}
			return out
		}
		// Adding the whole first set converts the result to a hashtable
		// if any of its members would: removals never convert it back.
		out.AddSet(first, enc)
		for _, s := range sets[1:] {
			if s == nil {
				continue
			}
			for i := 0; i < s.Len() && out.Len() > 0; i++ {
				out.Remove([]byte(s.Member(i)))
			}
		}
	case opInter:
		smallest := 0
		for i, s := range sets {
			if s == nil {
				return out
			}
			if s.Len() < sets[smallest].Len() {
				smallest = i
			}
		}
		for i := range sets[smallest].Len() {
			m := []byte(sets[smallest].Member(i))
			if inAll(sets, m) {
				out.Add(m, enc)
				if limit > 0 && out.Len() >= limit {
					break
				}
			}
		}
	}
	return out
}

// diffByRemoval reports whether Redis's sunionDiffGenericCommand picks its
// second diff algorithm for sets (the first one not nil, none the same set
// as the first): copy the first set, then remove the others' members. The
// choice shows in the result's encoding.
func diffByRemoval(sets []*store.Set) bool {
	byLookup, byRemoval := 0, 0
	for _, s := range sets {
		if s != nil {
			byLookup += sets[0].Len()
			byRemoval += s.Len()
		}
	}
	return byLookup/2 > byRemoval
}

func inAny(sets []*store.Set, m []byte) bool {
	for _, s := range sets {
		if s != nil && s.Has(m) {
			return true
		}
	}
	return false
}

func inAll(sets []*store.Set, m []byte) bool {
	for _, s := range sets {
		if !s.Has(m) {
			return false
		}
	}
	return true
}

func cmdSUnion(c *Client, args [][]byte)      { setOpCommand(c, opUnion, args[1:], nil) }
func cmdSInter(c *Client, args [][]byte)      { setOpCommand(c, opInter, args[1:], nil) }
func cmdSDiff(c *Client, args [][]byte)       { setOpCommand(c, opDiff, args[1:], nil) }
func cmdSUnionStore(c *Client, args [][]byte) { setOpCommand(c, opUnion, args[2:], args[1]) }
func cmdSInterStore(c *Client, args [][]byte) { setOpCommand(c, opInter, args[2:], args[1]) }
func cmdSDiffStore(c *Client, args [][]byte)  { setOpCommand(c, opDiff, args[2:], args[1]) }

// setOpCommand answers the result of op over the sets at keys, or stores
// it at dst (deleting dst when it is empty) and answers its size.
func setOpCommand(c *Client, op setOp, keys [][]byte, dst []byte) {
	sets, ok := inputSets(c, keys)
	if !ok {
		return
	}
	out := setAlgebra(op, sets, 0, c.db.Encodings())
	if dst == nil {
		writeMembers(c, out.Members())
		return
	}
	if out.Len() == 0 {
		// Redis's intersection with a missing key deletes dst before it
		// replies; every other empty result after.
		if op == opInter && slices.Contains(sets, nil) {
			if c.db.Delete(dst) {
				c.notify(notifyGeneric, "del", dst)
			}
			c.w.Int(0)
			return
		}
		c.w.Int(0)
		if c.db.Delete(dst) {
			c.notify(notifyGeneric, "del", dst)
		}
		return
	}
	setKey(c, dst, out)
	c.w.Int(int64(out.Len()))
	c.notify(notifySet, setStoreEvents[op], dst)
}

// setStoreEvents are the events of SUNIONSTORE, SINTERSTORE, SDIFFSTORE.
var setStoreEvents = [...]string{opUnion: "sunionstore", opInter: "sinterstore", opDiff: "sdiffstore"}

// numKeysArg parses the numkeys argument at args[i] of SINTERCARD, ZUNION
// and the like, and checks that that many keys follow; it answers the error
// and returns false otherwise.
func numKeysArg(c *Client, args [][]byte, i int) (int, bool) {
	n, ok := number.ParseInt(args[i])
	if !ok || n < 1 {
		c.w.Error(errNumKeysZero)
		return 0, false
	}
	if n > int64(len(args)-i-1) {
		c.w.Error(errNumKeysArgs)
		return 0, false
	}
	return int(n), true
}

func cmdSInterCard(c *Client, args [][]byte) {
	n, ok := numKeysArg(c, args, 1)
	if !ok {
		return
	}
	limit, ok := cardLimit(c, args[2+n:])
	if !ok {
		return
	}
	sets, ok := inputSets(c, args[2:2+n])
	if !ok {
		return
	}
	c.w.Int(int64(setAlgebra(opInter, sets, limit, c.db.Encodings()).Len()))
}

// cardLimit parses the [LIMIT limit] option of SINTERCARD and ZINTERCARD.
func cardLimit(c *Client, opts [][]byte) (int, bool) {
	limit := int64(0)
	for i := 0; i < len(opts); i++ {
		if !eqFold(opts[i], "limit") || i+1 >= len(opts) {
			c.w.Error(errSyntax)
			return 0, false
		}
		i++
		n, ok := number.ParseInt(opts[i])
		if !ok || n < 0 {
			c.w.Error(errLimitNegative)
			return 0, false
		}
		limit = n
	}
	return int(min(limit, math.MaxInt32)), true
}

// cmdSScan answers an intset whole with cursor 0, as Redis does; a
// hashtable is walked COUNT members at a time (see store.Set.Scan). A
// missing key is answered before the options are parsed, as in Redis.
func cmdSScan(c *Client, args [][]byte) {
	s, cursor, o, ok := scanTarget[*store.Set](c, args)
	if !ok {
		return
	}
	var found []string
	next := s.Scan(cursor, int(min(o.count, math.MaxInt32)), func(m string) {
		if o.pattern == nil || store.Match(o.pattern, []byte(m), false) {
			found = append(found, m)
		}
	})
	c.w.Array(2)
	c.w.BulkString(strconv.FormatUint(next, 10))
	c.w.Array(len(found))
	for _, m := range found {
		c.w.BulkString(m)
	}
}

// rng is the generator every random pick of a command draws from: the
// store's own, so a seeded server (servertest's Seed) answers alike, and
// drawn only under the execution lock, so it needs no mutex.
func (c *Client) rng() *rand.Rand { return c.db.Store().Rand() }

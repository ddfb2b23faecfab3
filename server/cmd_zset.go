package server

import (
	"bytes"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/internal/resp"
	"github.com/floodgate/floodgate/store"
)

var zsetHandlers = map[string]Handler{
	"zadd":             cmdZAdd,
	"zincrby":          cmdZIncrBy,
	"zrem":             cmdZRem,
	"zremrangebyscore": cmdZRemRangeByScore,
	"zremrangebyrank":  cmdZRemRangeByRank,
	"zremrangebylex":   cmdZRemRangeByLex,
	"zpopmin":          cmdZPopMin,
	"zpopmax":          cmdZPopMax,
	"zcard":            cmdZCard,
	"zscore":           cmdZScore,
	"zmscore":          cmdZMScore,
	"zcount":           cmdZCount,
	"zlexcount":        cmdZLexCount,
	"zrank":            cmdZRank,
	"zrevrank":         cmdZRevRank,
	"zrange":           cmdZRange,
	"zrangebyscore":    cmdZRangeByScore,
	"zrevrangebyscore": cmdZRevRangeByScore,
	"zrangebylex":      cmdZRangeByLex,
	"zrevrangebylex":   cmdZRevRangeByLex,
	"zrevrange":        cmdZRevRange,
	"zrandmember":      cmdZRandMember,
	"zscan":            cmdZScan,
}

// Errors of the sorted-set family, with Redis 7.0's text.
const (
	errZAddXXNX       = "ERR XX and NX options at the same time are not compatible"
	errZAddGTLTNX     = "ERR GT, LT, and/or NX options at the same time are not compatible"
	errZAddIncrPair   = "ERR INCR option supports a single increment-element pair"
	errZMinMaxFloat   = "ERR min or max is not a float"
	errZMinMaxLex     = "ERR min or max not valid string range item"
	errZLimitRank     = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	errZWithScoresLex = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
	errZRandCount     = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	errZRandRange     = "ERR value is out of range"
	errInvalidCursor  = "ERR invalid cursor"
)

// zsetShrunk raises event for the sorted set z at key, and "del" if that
// left it empty (and so deleted).
func zsetShrunk(c *Client, event string, key []byte, z *store.ZSet) {
	if c.srv.notifyFlags == 0 {
		return
	}
	c.notify(notifyZSet, event, key)
	if z.Len() == 0 {
		c.notify(notifyGeneric, "del", key)
	}
}

// zpopRaise raises a pop's event where Redis's genericZpopCommand raises
// it: in the middle of the reply, after its headers (and BZPOP*'s and
// ZMPOP's key) and before the first member, since Redis notifies as it
// removes the first member and writes each member as it goes. Only a RESP3
// client subscribed to its own events can tell: its push frame sits inside
// the reply's array.
func zpopRaise(c *Client, fromTop bool, key []byte) {
	c.notify(notifyZSet, zpopEvent(fromTop), key)
}

// zpopEmptied raises "del" once a pop has emptied (and so deleted) z, at
// the end of the reply, as genericZpopCommand does after its loop.
func zpopEmptied(c *Client, key []byte, z *store.ZSet) {
	if z.Len() == 0 {
		c.notify(notifyGeneric, "del", key)
	}
}

// zpopEvent is the event of a pop from one end of a sorted set.
func zpopEvent(fromTop bool) string {
	if fromTop {
		return "zpopmax"
	}
	return "zpopmin"
}

// zsetChanged signals a change made in place and deletes the key once the
// set is empty, as Redis never keeps an empty collection.
func zsetChanged(c *Client, key []byte, z *store.ZSet) {
	if z.Len() == 0 {
		c.db.Delete(key)
		return
	}
	c.db.Modified(key)
}

// ZADD flags, as zaddGenericCommand parses them.
// zaddFlags are ZADD's options: the keyspace's, and CH, which changes only
// the reply.
type zaddFlags struct {
	store.ZAddFlags
	ch bool
}

func cmdZAdd(c *Client, args [][]byte) {
	var f zaddFlags
	i := 2
parse:
	for ; i < len(args); i++ {
		switch strings.ToLower(string(args[i])) {
		case "nx":
			f.NX = true
		case "xx":
			f.XX = true
		case "gt":
			f.GT = true
		case "lt":
			f.LT = true
		case "ch":
			f.ch = true
		case "incr":
			f.Incr = true
		default:
			break parse
		}
	}
	pairs := args[i:]
	switch {
	case len(pairs) == 0 || len(pairs)%2 != 0:
		c.w.Error(errSyntax)
		return
	case f.NX && f.XX:
		c.w.Error(errZAddXXNX)
		return
	case f.GT && f.NX || f.LT && f.NX || f.GT && f.LT:
		c.w.Error(errZAddGTLTNX)
		return
	case f.Incr && len(pairs) > 2:
		c.w.Error(errZAddIncrPair)
		return
	}
	members := make([]store.ScoredMember, len(pairs)/2)
	for j := range members {
		s, ok := c.string2d(pairs[2*j])
		if !ok {
			c.w.Error(errNotFloat)
			return
		}
		members[j] = store.ScoredMember{Score: s, Member: pairs[2*j+1]}
	}
	zadd(c, args[1], f, members)
}

func cmdZIncrBy(c *Client, args [][]byte) {
	s, ok := c.string2d(args[2])
	if !ok {
		c.w.Error(errNotFloat)
		return
	}
	zadd(c, args[1], zaddFlags{ZAddFlags: store.ZAddFlags{Incr: true}}, []store.ScoredMember{{Score: s, Member: args[3]}})
}

// zadd applies validated scored members (store's DB.ZAdd) and replies as
// ZADD does.
func zadd(c *Client, key []byte, f zaddFlags, members []store.ScoredMember) {
	res, err := c.db.ZAdd(key, f.ZAddFlags, members)
	switch {
	case err != nil:
		// An INCR that made a NaN keeps, and announces, what the members
		// before it did (zaddGenericCommand's cleanup).
		c.w.Error(err.Error())
	case !f.Incr:
		n := res.Added
		if f.ch {
			n += res.Updated
		}
		c.w.Int(int64(n))
	case res.Processed > 0:
		c.w.Double(res.Last)
	default:
		c.w.Null()
	}
	if res.Added+res.Updated > 0 {
		event := "zadd"
		if f.Incr {
			event = "zincr"
		}
		c.notify(notifyZSet, event, key)
	}
}

func cmdZRem(c *Client, args [][]byte) {
	z, ok := valueAs[*store.ZSet](c, args[1])
	if !ok {
		return
	}
	var n int64
	if z != nil {
		for _, m := range args[2:] {
			if z.Remove(m) {
				n++
			}
		}
		if n > 0 {
			zsetChanged(c, args[1], z)
			zsetShrunk(c, "zrem", args[1], z)
		}
	}
	c.w.Int(n)
}

func cmdZCard(c *Client, args [][]byte) {
	z := valueOrReply[*store.ZSet](c, args[1], replyZero)
	if z == nil {
		return
	}
	c.w.Int(int64(z.Len()))
}

func cmdZScore(c *Client, args [][]byte) {
	z := valueOrReply[*store.ZSet](c, args[1], replyNull)
	if z == nil {
		return
	}
	if s, found := z.Score(args[2]); found {
		c.w.Double(s)
		return
	}
	c.w.Null()
}

func cmdZMScore(c *Client, args [][]byte) {
	z, ok := valueAs[*store.ZSet](c, args[1])
	if !ok {
		return
	}
	c.w.Array(len(args) - 2)
	for _, m := range args[2:] {
		if z == nil {
			c.w.Null()
		} else if s, found := z.Score(m); found {
			c.w.Double(s)
		} else {
			c.w.Null()
		}
	}
}

func cmdZRank(c *Client, args [][]byte)    { zrank(c, args, false) }
func cmdZRevRank(c *Client, args [][]byte) { zrank(c, args, true) }

func zrank(c *Client, args [][]byte, rev bool) {
	z := valueOrReply[*store.ZSet](c, args[1], replyNull)
	if z == nil {
		return
	}
	r, found := z.Rank(args[2])
	if !found {
		c.w.Null()
		return
	}
	if rev {
		r = z.Len() - 1 - r
	}
	c.w.Int(int64(r))
}

// Ranges.

// scoreRange is a parsed score interval ("(1" is exclusive).
type scoreRange struct {
	min, max     float64
	minEx, maxEx bool
}

// parseScoreBound parses one end of a score range as zslParseRange does:
// strtod over a C string, so leading spaces, "" (zero) and anything after a
// NUL byte are accepted, but trailing junk and NaN are not.
func parseScoreBound(b []byte) (v float64, ex, ok bool) {
	if len(b) > 0 && b[0] == '(' {
		ex, b = true, b[1:]
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	v, n, _ := number.Strtod(b)
	if n != len(b) || math.IsNaN(v) {
		return 0, false, false
	}
	return v, ex, true
}

func parseScoreRange(min, max []byte) (r scoreRange, ok bool) {
	var okMin, okMax bool
	r.min, r.minEx, okMin = parseScoreBound(min)
	r.max, r.maxEx, okMax = parseScoreBound(max)
	return r, okMin && okMax
}

// ranks returns the ranks [lo, hi) the range covers in z.
func (r scoreRange) ranks(z *store.ZSet) (lo, hi int) {
	return z.ScoreBound(r.min, r.minEx), z.ScoreBound(r.max, !r.maxEx)
}

// lexBound is one end of a lex range: "-", "+", "[member" or "(member".
type lexBound struct {
	member   []byte
	ex       bool
	inf, sup bool // "-" and "+"
}

func parseLexBound(b []byte) (lexBound, bool) {
	if len(b) == 0 {
		return lexBound{}, false
	}
	single := len(b) == 1 || b[1] == 0 // Redis compares C strings here
	switch b[0] {
	case '-':
		return lexBound{inf: true}, single
	case '+':
		return lexBound{sup: true}, single
	case '(':
		return lexBound{member: b[1:], ex: true}, true
	case '[':
		return lexBound{member: b[1:]}, true
	}
	return lexBound{}, false
}

type lexRange struct{ min, max lexBound }

func parseLexRange(min, max []byte) (r lexRange, ok bool) {
	var okMin, okMax bool
	r.min, okMin = parseLexBound(min)
	r.max, okMax = parseLexBound(max)
	return r, okMin && okMax
}

func (r lexRange) ranks(z *store.ZSet) (lo, hi int) {
	if z.Encoding() == "listpack" {
		return r.walk(z, false, 0, -1)
	}
	bound := func(b lexBound, inclusive bool) int {
		switch {
		case b.inf:
			return 0
		case b.sup:
			return z.Len()
		}
		return z.LexBound(b.member, inclusive)
	}
	return bound(r.min, r.min.ex), bound(r.max, !r.max.ex)
}

// gteMin and lteMax are zslLexValueGteMin and zslLexValueLteMax.
func (r lexRange) gteMin(m []byte) bool {
	switch {
	case r.min.inf:
		return true
	case r.min.sup:
		return false
	case r.min.ex:
		return bytes.Compare(m, r.min.member) > 0
	}
	return bytes.Compare(m, r.min.member) >= 0
}

func (r lexRange) lteMax(m []byte) bool {
	switch {
	case r.max.sup:
		return true
	case r.max.inf:
		return false
	case r.max.ex:
		return bytes.Compare(m, r.max.member) < 0
	}
	return bytes.Compare(m, r.max.member) <= 0
}

// empty is zzlIsInLexRange's test for a range that can hold nothing.
func (r lexRange) empty() bool {
	rank := func(b lexBound) int {
		switch {
		case b.inf:
			return -1
		case b.sup:
			return 1
		}
		return 0
	}
	cmp := rank(r.min) - rank(r.max)
	if cmp == 0 && rank(r.min) == 0 {
		cmp = bytes.Compare(r.min.member, r.max.member)
	}
	return cmp > 0 || cmp == 0 && (r.min.ex || r.max.ex)
}

// walk returns the ranks [lo, hi) a lex range selects in a listpack-encoded
// set as Redis finds them: it walks the listpack in (score, member) order
// from the head (from the tail if rev) to the first member past the near
// bound, skips offset members unchecked, and takes members up to limit
// (-1: all) while they are within the far bound. With equal scores this is
// the plain lex range; with mixed scores it is what Redis answers for a
// listpack (a skiplist's answer depends on its random levels, see
// docs/differential.md).
func (r lexRange) walk(z *store.ZSet, rev bool, offset, limit int64) (lo, hi int) {
	n := z.Len()
	if n == 0 || r.empty() || offset < 0 {
		return 0, 0
	}
	member := func(i int) []byte { m, _ := z.At(i); return m }
	if !r.gteMin(member(n-1)) || !r.lteMax(member(0)) {
		return 0, 0
	}
	if !rev {
		i := 0
		for i < n && !r.gteMin(member(i)) {
			i++
		}
		if i == n || !r.lteMax(member(i)) || int64(n-i) <= offset {
			return 0, 0
		}
		lo = i + int(offset)
		hi = lo
		for hi < n && limit != 0 && r.lteMax(member(hi)) {
			hi++
			limit--
		}
		return lo, hi
	}
	i := n - 1
	for i >= 0 && !r.lteMax(member(i)) {
		i--
	}
	if i < 0 || !r.gteMin(member(i)) || int64(i) < offset {
		return 0, 0
	}
	hi = i - int(offset) + 1
	lo = hi
	for lo > 0 && limit != 0 && r.gteMin(member(lo-1)) {
		lo--
		limit--
	}
	return lo, hi
}

// rankRange clamps Redis start/stop indexes (negative from the end) to
// ranks [lo, hi) of a set of n members.
func rankRange(start, stop int64, n int) (lo, hi int) {
	if start < 0 {
		start += int64(n)
	}
	if stop < 0 {
		stop += int64(n)
	}
	start = max(start, 0)
	if start > stop || start >= int64(n) {
		return 0, 0
	}
	return int(start), int(min(stop, int64(n)-1)) + 1
}

// ZREMRANGEBY*.

func cmdZRemRangeByScore(c *Client, args [][]byte) { zremRange(c, args, byScore) }
func cmdZRemRangeByLex(c *Client, args [][]byte)   { zremRange(c, args, byLex) }
func cmdZRemRangeByRank(c *Client, args [][]byte)  { zremRange(c, args, byRank) }

// rangeOf parses a range of kind from min and max into a function giving
// the ranks [lo, hi) it covers in a set, or answers the parse error. A rank
// range with rev counts its indexes from the top.
func rangeOf(c *Client, kind rangeKind, min, max []byte, rev bool) (func(*store.ZSet) (int, int), bool) {
	switch kind {
	case byScore:
		r, ok := parseScoreRange(min, max)
		if !ok {
			c.w.Error(errZMinMaxFloat)
		}
		return r.ranks, ok
	case byLex:
		r, ok := parseLexRange(min, max)
		if !ok {
			c.w.Error(errZMinMaxLex)
		}
		return r.ranks, ok
	}
	start, ok1 := number.ParseInt(min)
	stop, ok2 := number.ParseInt(max)
	if !ok1 || !ok2 {
		c.w.Error(errNotInteger)
		return nil, false
	}
	return func(z *store.ZSet) (int, int) {
		lo, hi := rankRange(start, stop, z.Len())
		if rev {
			lo, hi = z.Len()-hi, z.Len()-lo
		}
		return lo, hi
	}, true
}

// zremRangeEvents are the events of ZREMRANGEBYRANK, BYSCORE and BYLEX.
var zremRangeEvents = [...]string{byRank: "zremrangebyrank", byScore: "zremrangebyscore", byLex: "zremrangebylex"}

func zremRange(c *Client, args [][]byte, kind rangeKind) {
	ranks, ok := rangeOf(c, kind, args[2], args[3], false)
	if !ok {
		return
	}
	key := args[1]
	z := valueOrReply[*store.ZSet](c, key, replyZero)
	if z == nil {
		return
	}
	n := z.RemoveRange(ranks(z))
	if n > 0 {
		zsetChanged(c, key, z)
		zsetShrunk(c, zremRangeEvents[kind], key, z)
	}
	c.w.Int(int64(n))
}

func cmdZCount(c *Client, args [][]byte)    { zcount(c, args, byScore) }
func cmdZLexCount(c *Client, args [][]byte) { zcount(c, args, byLex) }

func zcount(c *Client, args [][]byte, kind rangeKind) {
	ranks, ok := rangeOf(c, kind, args[2], args[3], false)
	if !ok {
		return
	}
	z := valueOrReply[*store.ZSet](c, args[1], replyZero)
	if z == nil {
		return
	}
	lo, hi := ranks(z)
	c.w.Int(int64(max(hi-lo, 0)))
}

// ZRANGE and its older forms.

type rangeKind int

const (
	byAuto rangeKind = iota
	byRank
	byScore
	byLex
)

// zrangeQuery is a parsed ZRANGE: the older commands preset kind and rev.
type zrangeQuery struct {
	kind          rangeKind
	rev, revSet   bool
	withScores    bool
	offset, limit int64  // limit -1: none
	dst           []byte // ZRANGESTORE's destination: store instead of replying
}

func cmdZRange(c *Client, args [][]byte) { zrange(c, args, zrangeQuery{}) }
func cmdZRevRange(c *Client, args [][]byte) {
	zrange(c, args, zrangeQuery{kind: byRank, rev: true, revSet: true})
}
func cmdZRangeByScore(c *Client, args [][]byte) {
	zrange(c, args, zrangeQuery{kind: byScore, revSet: true})
}
func cmdZRevRangeByScore(c *Client, args [][]byte) {
	zrange(c, args, zrangeQuery{kind: byScore, rev: true, revSet: true})
}
func cmdZRangeByLex(c *Client, args [][]byte) {
	zrange(c, args, zrangeQuery{kind: byLex, revSet: true})
}
func cmdZRevRangeByLex(c *Client, args [][]byte) {
	zrange(c, args, zrangeQuery{kind: byLex, rev: true, revSet: true})
}

// zrange follows zrangeGenericCommand: options, then conflicts, then the
// range, then the key.
func zrange(c *Client, args [][]byte, q zrangeQuery) {
	q.limit = -1
	for j := 4; j < len(args); j++ {
		opt := strings.ToLower(string(args[j]))
		switch {
		case opt == "withscores" && q.dst == nil:
			q.withScores = true
		case opt == "limit" && len(args)-j-1 >= 2:
			off, ok1 := number.ParseInt(args[j+1])
			lim, ok2 := number.ParseInt(args[j+2])
			if !ok1 || !ok2 {
				c.w.Error(errNotInteger)
				return
			}
			q.offset, q.limit = off, lim
			j += 2
		case opt == "rev" && !q.revSet:
			q.rev, q.revSet = true, true
		case opt == "bylex" && q.kind == byAuto:
			q.kind = byLex
		case opt == "byscore" && q.kind == byAuto:
			q.kind = byScore
		default:
			c.w.Error(errSyntax)
			return
		}
	}
	if q.kind == byAuto {
		q.kind = byRank
	}
	switch {
	case q.limit != -1 && q.kind == byRank:
		c.w.Error(errZLimitRank)
		return
	case q.withScores && q.kind == byLex:
		c.w.Error(errZWithScoresLex)
		return
	}
	minArg, maxArg := args[2], args[3]
	if q.rev && q.kind != byRank {
		minArg, maxArg = maxArg, minArg // given as max, min
	}
	ranks, ok := rangeOf(c, q.kind, minArg, maxArg, q.rev)
	if !ok {
		return
	}
	z, ok := valueAs[*store.ZSet](c, args[1])
	switch {
	case !ok:
	case q.dst != nil && z == nil:
		storeZRange(c, q.dst, nil, 0, 0, false)
	case z == nil:
		c.w.Array(0)
	default:
		lo, hi := ranks(z)
		switch {
		case q.kind == byRank:
			// Redis refuses a rank range's LIMIT only when its count is not
			// -1, and then ignores it: LIMIT 1 -1 is the whole range.
		case q.kind == byLex && z.Encoding() == "listpack":
			r, _ := parseLexRange(minArg, maxArg)
			lo, hi = r.walk(z, q.rev, q.offset, q.limit)
		default:
			lo, hi = q.window(lo, hi)
		}
		if q.dst != nil {
			storeZRange(c, q.dst, z, lo, hi, q.kind == byRank)
			return
		}
		zreply(c, z, lo, hi, q.rev, q.withScores, false)
	}
}

// window applies LIMIT (offset 0 and limit -1 without one) to ranks
// [lo, hi), counting from the end the reply starts at.
func (q zrangeQuery) window(lo, hi int) (int, int) {
	switch {
	case q.offset < 0 || q.offset >= int64(max(hi-lo, 0)):
		return 0, 0
	case q.rev:
		hi -= int(q.offset)
		if q.limit >= 0 && q.limit < int64(hi-lo) {
			lo = hi - int(q.limit)
		}
	default:
		lo += int(q.offset)
		if q.limit >= 0 && q.limit < int64(hi-lo) {
			hi = lo + int(q.limit)
		}
	}
	return lo, hi
}

// zreply answers the members at ranks [lo, hi), from the top if rev; flat
// keeps member/score pairs flat under RESP3.
func zreply(c *Client, z *store.ZSet, lo, hi int, rev, withScores, flat bool) {
	p := newPairReply(c, max(hi-lo, 0), withScores, flat)
	zwrite(c, z, lo, hi, rev, withScores, p)
}

// zwrite writes the members at ranks [lo, hi) after p's header, from the
// top if rev.
func zwrite(c *Client, z *store.ZSet, lo, hi int, rev, withScores bool, p pairReply) {
	if hi <= lo {
		return
	}
	left := hi - lo
	emit := func(m []byte, s float64) bool {
		p.item()
		c.w.Bulk(m)
		if withScores {
			c.w.Double(s)
		}
		left--
		return left > 0
	}
	if rev {
		z.Descend(hi-1, emit)
	} else {
		z.Ascend(lo, emit)
	}
}

// ZPOPMIN, ZPOPMAX.

func cmdZPopMin(c *Client, args [][]byte) { zpop(c, args, false) }
func cmdZPopMax(c *Client, args [][]byte) { zpop(c, args, true) }

func zpop(c *Client, args [][]byte, fromTop bool) {
	if len(args) > 3 {
		c.w.Error(errSyntax)
		return
	}
	count := int64(1)
	if len(args) == 3 {
		n, ok := number.ParseInt(args[2])
		if !ok || n < 0 {
			c.w.Error(errOutOfRange)
			return
		}
		count = n
	}
	z, ok := valueAs[*store.ZSet](c, args[1])
	if !ok {
		return
	}
	if z == nil || count == 0 {
		c.w.Array(0)
		return
	}
	n := int(min(count, int64(z.Len())))
	lo, hi := 0, n
	if fromTop {
		lo, hi = z.Len()-n, z.Len()
	}
	p := newPairReply(c, hi-lo, true, len(args) == 2)
	zpopRaise(c, fromTop, args[1])
	zwrite(c, z, lo, hi, fromTop, true, p)
	z.RemoveRange(lo, hi)
	zsetChanged(c, args[1], z)
	zpopEmptied(c, args[1], z)
}

// ZRANDMEMBER.

func cmdZRandMember(c *Client, args [][]byte) {
	if len(args) == 2 {
		z := valueOrReply[*store.ZSet](c, args[1], replyNull)
		if z == nil {
			return
		}
		m, _ := z.At(c.rng().IntN(z.Len()))
		c.w.Bulk(m)
		return
	}
	count, ok := number.ParseInt(args[2])
	switch {
	case !ok:
		c.w.Error(errNotInteger)
		return
	case count == math.MinInt64:
		c.w.Error(errZRandCount)
		return
	case len(args) > 4 || len(args) == 4 && !strings.EqualFold(string(args[3]), "withscores"):
		c.w.Error(errSyntax)
		return
	case len(args) == 4 && (count < -math.MaxInt64/2 || count > math.MaxInt64/2):
		c.w.Error(errZRandRange)
		return
	}
	withScores := len(args) == 4
	z, ok := valueAs[*store.ZSet](c, args[1])
	if !ok {
		return
	}
	if z == nil || count == 0 {
		c.w.Array(0)
		return
	}
	var p pairReply
	emit := func(rank int) {
		m, s := z.At(rank)
		p.item()
		c.w.Bulk(m)
		if withScores {
			c.w.Double(s)
		}
	}
	size, rng := z.Len(), c.rng()
	switch {
	case count < 0: // repeats allowed
		randomRepeats(c, -count, withScores, func(items pairReply, k int) {
			p = items
			for range k {
				emit(rng.IntN(size))
			}
		})
	case count >= int64(size): // the whole set, from the top, as Redis does
		zreply(c, z, 0, size, true, withScores, false)
	default: // count distinct members, in random order
		p = newPairReply(c, int(count), withScores, false)
		for _, rank := range store.Sample(rng, size, int(count)) {
			emit(rank)
		}
	}
}

// ZSCAN.

// appendListpackScore is a score as a listpack holds it and ZSCAN returns
// it: d2string's text, an integer for an integral score within ±2^62
// (double2ll's range), else "%.17g".
func appendListpackScore(b []byte, s float64) []byte {
	if s == math.Trunc(s) && s >= -4611686018427387904 && s <= 4611686018427387904 {
		return strconv.AppendInt(b, int64(s), 10)
	}
	return resp.AppendDouble(b, s)
}

// cmdZScan answers a packed (small) set whole with cursor 0, as Redis does
// for a listpack. A large set is walked by rank from the top: the cursor is
// the rank to continue below, so members trimmed from the low end while a
// scan runs never make it skip one that lives through the scan.
func cmdZScan(c *Client, args [][]byte) {
	cursor, ok := parseCursor(args[2])
	if !ok {
		c.w.Error(errInvalidCursor)
		return
	}
	z, ok := valueAs[*store.ZSet](c, args[1])
	if !ok {
		return
	}
	if z == nil { // Redis answers before it looks at the options
		c.w.Array(2)
		c.w.BulkString("0")
		c.w.Array(0)
		return
	}
	count := int64(10)
	var pattern []byte
	for i := 3; i < len(args); i += 2 {
		opt := strings.ToLower(string(args[i]))
		switch {
		case opt == "count" && i+1 < len(args):
			n, ok := number.ParseInt(args[i+1])
			if !ok {
				c.w.Error(errNotInteger)
				return
			}
			if n < 1 {
				c.w.Error(errSyntax)
				return
			}
			count = n
		case opt == "match" && i+1 < len(args):
			pattern = args[i+1]
			if len(pattern) == 1 && pattern[0] == '*' {
				pattern = nil
			}
		default:
			c.w.Error(errSyntax)
			return
		}
	}
	from, n := z.Len()-1, z.Len()
	next := uint64(0)
	if z.Encoding() != "listpack" {
		if cursor > 0 && cursor <= uint64(z.Len()) {
			from = int(cursor) - 1
		}
		n = int(min(count, int64(from+1)))
		if from+1 > n {
			next = uint64(from + 1 - n)
		}
	}
	var found [][]byte
	var buf []byte
	// A listpack answers its entries' text: a score's as a loaded one
	// spelled it, if the set kept that.
	packed := z.Encoding() == "listpack"
	visit := func(m []byte, s float64, text store.ScoreText, kept bool) bool {
		if pattern == nil || store.Match(pattern, m, false) {
			switch {
			case kept:
				buf = append(buf[:0], text.Text...)
			case packed:
				buf = appendListpackScore(buf[:0], s)
			default:
				buf = resp.AppendDouble(buf[:0], s)
			}
			found = append(found, append([]byte(nil), m...), append([]byte(nil), buf...))
		}
		n--
		return n > 0
	}
	if packed {
		z.AscendText(visit)
	} else {
		z.Descend(from, func(m []byte, s float64) bool { return visit(m, s, store.ScoreText{}, false) })
	}
	c.w.Array(2)
	c.w.BulkString(strconv.FormatUint(next, 10))
	c.w.Array(len(found))
	for _, b := range found {
		c.w.Bulk(b)
	}
}

// Multi-key commands.

// Multi-key commands of the family: the algebra (ZUNION, ZINTER, ZDIFF,
// their STORE forms, ZINTERCARD), ZRANGESTORE and ZMPOP. A block of their
// own, listed beside zsetHandlers, since their inputs may be sets too.
var zsetOpHandlers = map[string]Handler{
	"zunion":      cmdZUnion,
	"zinter":      cmdZInter,
	"zdiff":       cmdZDiff,
	"zunionstore": cmdZUnionStore,
	"zinterstore": cmdZInterStore,
	"zdiffstore":  cmdZDiffStore,
	"zintercard":  cmdZInterCard,
	"zrangestore": cmdZRangeStore,
	"zmpop":       cmdZMPop,
}

const (
	errZNoInputKey  = "ERR at least 1 input key is needed for '%s' command"
	errZWeightFloat = "ERR weight value is not a float"
)

// zsource is one input of the algebra: a sorted set, a set (every member
// scoring 1, as Redis's zuiFind answers), or nothing (a missing key).
type zsource struct {
	z      *store.ZSet
	s      *store.Set
	weight float64
}

func (src *zsource) len() int {
	switch {
	case src.z != nil:
		return src.z.Len()
	case src.s != nil:
		return src.s.Len()
	}
	return 0
}

// same reports whether two inputs are the same key's value.
func (src *zsource) same(o *zsource) bool {
	return src.z != nil && src.z == o.z || src.s != nil && src.s == o.s
}

func (src *zsource) score(m []byte) (float64, bool) {
	switch {
	case src.z != nil:
		return src.z.Score(m)
	case src.s != nil && src.s.Has(m):
		return 1, true
	}
	return 0, false
}

func (src *zsource) each(fn func(m []byte, score float64)) {
	switch {
	case src.z != nil:
		src.z.Ascend(0, func(m []byte, s float64) bool { fn(m, s); return true })
	case src.s != nil:
		for i := range src.s.Len() {
			fn([]byte(src.s.Member(i)), 1)
		}
	}
}

// zaggregate is AGGREGATE SUM|MIN|MAX.
type zaggregate int

const (
	aggrSum zaggregate = iota
	aggrMin
	aggrMax
)

// apply folds val into target as Redis's zunionInterAggregate: a sum of
// +inf and -inf is 0, not NaN.
func (a zaggregate) apply(target, val float64) float64 {
	switch a {
	case aggrMin:
		if val < target {
			return val
		}
		return target
	case aggrMax:
		if val > target {
			return val
		}
		return target
	}
	if s := target + val; !math.IsNaN(s) {
		return s
	}
	return 0
}

// zpair is a member of a computed result.
type zpair struct {
	member string
	score  float64
}

func cmdZUnion(c *Client, args [][]byte)      { zsetOpCommand(c, args, opUnion, 1, nil) }
func cmdZInter(c *Client, args [][]byte)      { zsetOpCommand(c, args, opInter, 1, nil) }
func cmdZDiff(c *Client, args [][]byte)       { zsetOpCommand(c, args, opDiff, 1, nil) }
func cmdZUnionStore(c *Client, args [][]byte) { zsetOpCommand(c, args, opUnion, 2, args[1]) }
func cmdZInterStore(c *Client, args [][]byte) { zsetOpCommand(c, args, opInter, 2, args[1]) }
func cmdZDiffStore(c *Client, args [][]byte)  { zsetOpCommand(c, args, opDiff, 2, args[1]) }
func cmdZInterCard(c *Client, args [][]byte)  { zsetOpCommand(c, args, opInter, 1, nil) }

// zsetOpCommand follows Redis's zunionInterDiffGenericCommand: numkeys,
// then the keys' types, then the options (WEIGHTS and AGGREGATE but for a
// diff, WITHSCORES without a destination, LIMIT for ZINTERCARD only).
func zsetOpCommand(c *Client, args [][]byte, op setOp, numkeysAt int, dst []byte) {
	cardOnly := c.cmd.Name == "zintercard"
	n, ok := intArg(c, args[numkeysAt])
	if !ok {
		return
	}
	if n < 1 {
		c.errorf(errZNoInputKey, c.cmd.FullName())
		return
	}
	if n > int64(len(args)-numkeysAt-1) {
		c.w.Error(errSyntax)
		return
	}
	keys := args[numkeysAt+1 : numkeysAt+1+int(n)]
	srcs := make([]zsource, len(keys))
	for i, k := range keys {
		srcs[i].weight = 1
		e := c.db.Get(k)
		if e == nil {
			continue
		}
		switch v := e.Value().(type) {
		case *store.ZSet:
			srcs[i].z = v
		case *store.Set:
			srcs[i].s = v
		default:
			c.w.Error(errWrongType)
			return
		}
	}
	aggr, withScores, limit := aggrSum, false, 0
	opts := args[numkeysAt+1+int(n):]
	for j := 0; j < len(opts); j++ {
		left := len(opts) - j
		switch opt := opts[j]; {
		case op != opDiff && !cardOnly && left >= len(srcs)+1 && eqFold(opt, "weights"):
			for i := range srcs {
				j++
				w, ok := c.string2d(opts[j])
				if !ok {
					c.w.Error(errZWeightFloat)
					return
				}
				srcs[i].weight = w
			}
		case op != opDiff && !cardOnly && left >= 2 && eqFold(opt, "aggregate"):
			j++
			switch {
			case eqFold(opts[j], "sum"):
				aggr = aggrSum
			case eqFold(opts[j], "min"):
				aggr = aggrMin
			case eqFold(opts[j], "max"):
				aggr = aggrMax
			default:
				c.w.Error(errSyntax)
				return
			}
		case dst == nil && !cardOnly && eqFold(opt, "withscores"):
			withScores = true
		case cardOnly && left >= 2 && eqFold(opt, "limit"):
			j++
			l, ok := number.ParseInt(opts[j])
			if !ok || l < 0 {
				c.w.Error(errLimitNegative)
				return
			}
			limit = int(min(l, math.MaxInt32))
		default:
			c.w.Error(errSyntax)
			return
		}
	}
	result := zsetAlgebra(op, srcs, aggr, limit)
	switch {
	case cardOnly:
		c.w.Int(int64(len(result)))
	case dst != nil:
		storeZPairs(c, dst, result, zsetStoreEvents[op])
	default:
		p := newPairReply(c, len(result), withScores, false)
		for _, r := range result {
			p.item()
			c.w.BulkString(r.member)
			if withScores {
				c.w.Double(r.score)
			}
		}
	}
}

// zsetAlgebra computes op over srcs, sorted by score then member. Union
// and intersection visit the inputs from the smallest, as Redis does (its
// qsort is stable here), so floating-point sums add in Redis's order; an
// intersection stops at limit members (0: no limit).
func zsetAlgebra(op setOp, srcs []zsource, aggr zaggregate, limit int) []zpair {
	var out []zpair
	switch op {
	case opUnion:
		sort.SliceStable(srcs, func(i, j int) bool { return srcs[i].len() < srcs[j].len() })
		at := map[string]int{}
		for i := range srcs {
			srcs[i].each(func(m []byte, s float64) {
				score := weighted(srcs[i].weight, s)
				if k, ok := at[string(m)]; ok {
					out[k].score = aggr.apply(out[k].score, score)
					return
				}
				at[string(m)] = len(out)
				out = append(out, zpair{string(m), score})
			})
		}
	case opInter:
		sort.SliceStable(srcs, func(i, j int) bool { return srcs[i].len() < srcs[j].len() })
		first := &srcs[0]
		first.each(func(m []byte, s float64) {
			if limit > 0 && len(out) >= limit {
				return
			}
			score := weighted(first.weight, s)
			for j := 1; j < len(srcs); j++ {
				v, ok := s, srcs[j].same(first)
				if !ok {
					v, ok = srcs[j].score(m)
				}
				if !ok {
					return
				}
				score = aggr.apply(score, v*srcs[j].weight)
			}
			out = append(out, zpair{string(m), score})
		})
	case opDiff:
		first := &srcs[0]
		for j := 1; j < len(srcs); j++ {
			if srcs[j].same(first) {
				return nil
			}
		}
		first.each(func(m []byte, s float64) {
			for j := 1; j < len(srcs); j++ {
				if _, ok := srcs[j].score(m); ok {
					return
				}
			}
			out = append(out, zpair{string(m), s})
		})
	}
	slices.SortFunc(out, func(a, b zpair) int {
		switch {
		case a.score < b.score:
			return -1
		case a.score > b.score:
			return 1
		}
		return strings.Compare(a.member, b.member)
	})
	return out
}

// weighted is an input's first contribution: 0 rather than NaN (a weight
// of 0 times an infinite score), as Redis does.
func weighted(weight, score float64) float64 {
	if v := weight * score; !math.IsNaN(v) {
		return v
	}
	return 0
}

// storeZPairs stores the result of a set operation at dst as a new sorted
// set (deleting dst when there is none) and answers its size. As Redis, it
// builds a skiplist and packs it afterwards if it fits
// (zsetConvertToListpackIfNeeded): the way there matters beyond the final
// encoding, since a listpack keeps -0 as the integer 0 and a skiplist
// keeps the double.
func storeZPairs(c *Client, dst []byte, pairs []zpair, event string) {
	enc := c.db.Encodings()
	z := store.NewZSet()
	z.Unpack()
	for _, p := range pairs {
		z.Add([]byte(p.member), p.score, enc)
	}
	z.PackIfFits(enc)
	storeZSet(c, dst, z, event)
}

// storeZSet stores z at dst, or deletes dst if z is empty, and answers
// z's size; then the store's event (or "del").
func storeZSet(c *Client, dst []byte, z *store.ZSet, event string) {
	if z.Len() == 0 {
		deleted := c.db.Delete(dst)
		c.w.Int(0)
		if deleted {
			c.notify(notifyGeneric, "del", dst)
		}
		return
	}
	setKey(c, dst, z)
	c.w.Int(int64(z.Len()))
	c.notify(notifyZSet, event, dst)
}

// zsetStoreEvents are the events of ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE.
var zsetStoreEvents = [...]string{opUnion: "zunionstore", opInter: "zinterstore", opDiff: "zdiffstore"}

// cmdZRangeStore is ZRANGE with a destination: the arguments after the
// destination are ZRANGE's, WITHSCORES excepted.
func cmdZRangeStore(c *Client, args [][]byte) {
	zrange(c, args[1:], zrangeQuery{dst: args[1]})
}

// storeZRange stores the members at ranks [lo, hi) of z (nil: none) at
// dst, as ZRANGESTORE does: adding them to a listpack, which converts as
// ZADD's would, unless the range is by rank and longer than a listpack may
// be (zrangeResultBeginStore; Redis knows the length only of a rank range).
func storeZRange(c *Client, dst []byte, z *store.ZSet, lo, hi int, byRank bool) {
	enc := c.db.Encodings()
	out := store.NewZSet()
	if byRank && int64(hi-lo) > enc.ZSetMaxListpackEntries {
		out.Unpack()
	}
	if z != nil && hi > lo {
		n := 0
		z.Ascend(lo, func(m []byte, s float64) bool {
			out.Add(m, s, enc)
			n++
			return n < hi-lo
		})
	}
	storeZSet(c, dst, out, "zrangestore")
}

// cmdZMPop follows Redis's zmpopGenericCommand: numkeys, MIN|MAX, COUNT,
// then the first non-empty key (a key of another type answers WRONGTYPE
// even after missing ones).
func cmdZMPop(c *Client, args [][]byte) {
	keys, fromTop, count, ok := mpopArgs(c, args, 1, zminMaxArg)
	if !ok {
		return
	}
	for _, k := range keys {
		z, ok := valueAs[*store.ZSet](c, k)
		if !ok {
			return
		}
		if z != nil {
			zmpopReply(c, k, z, fromTop, count)
			return
		}
	}
	c.w.NullArray()
}

// zpopName is the pop from one end of a sorted set, as ZMPOP and the
// blocking pops are logged.
func zpopName(fromTop bool) []byte {
	if fromTop {
		return cmdZPOPMAX
	}
	return cmdZPOPMIN
}

// zminMaxArg parses ZMPOP's and BZMPOP's MIN or MAX (true for MAX, the
// high end).
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

// zmpopReply pops up to count members of the non-empty z at key from the
// low (or, fromTop, the high) end and answers [key, [[member, score], ...]]
// on both protocols, as ZMPOP and BZMPOP do.
func zmpopReply(c *Client, key []byte, z *store.ZSet, fromTop bool, count int64) {
	n := int(min(count, int64(z.Len())))
	c.logAsPop(zpopName(fromTop), key, int64(n))
	lo, hi := 0, n
	if fromTop {
		lo, hi = z.Len()-n, z.Len()
	}
	c.w.Array(2)
	c.w.Bulk(key)
	c.w.Array(n)
	zpopRaise(c, fromTop, key)
	zwrite(c, z, lo, hi, fromTop, true, pairReply{w: c.w, nested: true})
	z.RemoveRange(lo, hi)
	zsetChanged(c, key, z)
	zpopEmptied(c, key, z)
}

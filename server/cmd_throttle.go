package server

import (
	"math"
	"math/bits"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

// CL.THROTTLE is redis-cell's command, answered natively. Its metadata is
// floodgate's own, in commands/cl.throttle.json: redis-cell registers it
// as a module command flagged "write"; here it is also denyoom (it may
// create a key, as SETNX does) and fast (O(1), one key). Its arity is 5 or
// 6: the table says "at least 5" and the handler refuses a seventh with
// the same arity error. See docs/cl-throttle.md for every deliberate
// difference from redis-cell.
var throttleHandlers = map[string]Handler{
	"cl.throttle": cmdThrottle,
	"gcra":        cmdGCRA,
}

// redis-cell's error texts: its module reply is "Cell error: " followed by
// its error's text, "Store error: " and the message.
const (
	errThrottleArity = "ERR wrong number of arguments for 'cl.throttle' command"
	errCellParse     = "Cell error: Store error: Couldn't parse as integer: "
	errCellZeroRate  = "Cell error: Store error: Zero rates are not supported"
	// redis-cell accepts negative arguments and answers nonsense (or, for a
	// negative quantity, stores a TAT in the past and fails to set its
	// expiry, leaving the key forever); floodgate refuses them, worded in
	// the same style.
	errCellNegative = "Cell error: Store error: Negative %s is not supported"
)

var throttleArgNames = [4]string{"max_burst", "count per period", "period", "quantity"}

// cmdThrottle answers CL.THROTTLE <key> <max_burst> <count per period>
// <period> [<quantity>] with redis-cell's five integers: limited (0/1),
// limit (max_burst+1), remaining, retry after and reset after in seconds.
func cmdThrottle(c *Client, args [][]byte) {
	if len(args) > 6 {
		c.w.Error(errThrottleArity)
		return
	}
	// max_burst, count, period, quantity: parsed in order, as redis-cell
	// does, so the first bad one is named.
	params := [4]int64{0, 0, 0, 1}
	for i := range len(args) - 2 {
		n, ok := parseRustInt(args[2+i])
		if !ok {
			c.w.Error(sanitizeError(errCellParse + string(args[2+i])))
			return
		}
		params[i] = n
	}
	for i, n := range params {
		if n < 0 {
			c.errorf(errCellNegative, throttleArgNames[i])
			return
		}
	}
	maxBurst, count, period, quantity := params[0], params[1], params[2], params[3]
	emission := emissionInterval(count, period)
	if emission == 0 {
		c.w.Error(errCellZeroRate)
		return
	}
	g := store.GCRA{
		Emission:  emission,
		Tolerance: satMul(emission, satInc(maxBurst)),
		Increment: satMul(emission, quantity),
	}
	throttleDecide(c, limiterThrottle, "cl.throttle", args[1], g, maxBurst)
}

// throttleDecide runs one GCRA decision for CL.THROTTLE or GCRA: counted in
// INFO limiter, announced as event when allowed, answered with redis-cell's
// five integers.
func throttleDecide(c *Client, cmd limiterCommand, event string, key []byte, g store.GCRA, maxBurst int64) {
	r, err := c.db.Throttle(key, g)
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	c.srv.limiter.count(cmd, key, r.Limited)
	limited := int64(0)
	if r.Limited {
		limited = 1
	} else {
		notifyThrottle(c, event, key)
	}
	c.w.Array(5)
	c.w.Int(limited)
	c.w.Int(satInc(maxBurst))
	c.w.Int(r.Remaining)
	c.w.Int(cellSeconds(r.RetryAfter))
	c.w.Int(cellSeconds(r.ResetAfter))
}

// emissionInterval is period seconds / count in whole nanoseconds, exact in
// 128 bits (redis-cell divides in float64 and truncates: the same for every
// period under 104 days), saturating at the int64 maximum. 0 means a rate
// redis-cell refuses as zero: no count, no period, or more than 1e9 a second.
func emissionInterval(count, period int64) int64 {
	if count == 0 || period == 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(period), 1e9)
	if hi >= uint64(count) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(count))
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// cellSeconds converts a duration to redis-cell's reply: whole seconds,
// plus one when the remainder holds at least a whole millisecond ("so a
// fast caller does not retry too early"; a sub-millisecond remainder is
// dropped, as redis-cell drops it). -1 stays -1.
func cellSeconds(ns int64) int64 {
	if ns < 0 {
		return -1
	}
	s := ns / 1e9
	if ns%1e9 >= 1e6 {
		s++
	}
	return s
}

// satMul multiplies non-negative a and b, saturating at the int64 maximum.
func satMul(a, b int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo)
}

// satInc is n+1 for non-negative n, saturating.
func satInc(n int64) int64 {
	if n == math.MaxInt64 {
		return n
	}
	return n + 1
}

// parseRustInt parses b as Rust's str::parse::<i64>, which redis-cell uses:
// an optional '+' or '-', then at least one digit, nothing else, in range.
// Unlike Redis's string2ll it takes "+5" and "007".
func parseRustInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var u uint64
	for _, ch := range b {
		if ch < '0' || ch > '9' || u > (1<<63)/10 {
			return 0, false
		}
		u = u*10 + uint64(ch-'0')
		if u > 1<<63 {
			return 0, false
		}
	}
	if neg {
		return -int64(u), true // -(1<<63) wraps to itself: MinInt64
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// GCRA's error texts. errGCRAOverflow is the text of Redis's gcra.c as its
// pull request shows it (with the argument names of the final syntax); the
// range errors are floodgate's, in Redis's style (docs/increx.md#gcra).
const (
	errGCRAOverflow = "ERR GCRA limiting uses microsecond accuracy. Combination of period, tokens_per_period and tokens would cause an overflow"
	errGCRABurst    = "ERR max_burst must be greater than or equal to 0"
	errGCRARate     = "ERR tokens_per_period must be greater than or equal to 1"
	errGCRAPeriod   = "ERR period must be greater than or equal to 1.0"
	errGCRATokens   = "ERR TOKENS must be greater than or equal to 0"
)

// cmdGCRA answers GCRA key max_burst tokens_per_period period [TOKENS n],
// the command Redis documented for 8.8 (modelled on redis-cell, then held
// out of the release), on the same GCRA core as CL.THROTTLE: the reply is
// CL.THROTTLE's five integers. period is a float of at least 1.0 seconds;
// the emission interval is period / tokens_per_period in whole
// microseconds, as Redis's, kept as nanoseconds so that the stored TAT is
// CL.THROTTLE's and either command reads the other's key.
// notifyThrottle raises an allowed CL.THROTTLE's or GCRA's keyspace events.
// redis-cell raises none; floodgate announces an allowed request, which
// rewrote the key's TAT and its expiry, as SET ... PXAT is announced: the
// command's own event of the string class, then "expire" of the generic
// one. A limited request changes nothing and raises nothing.
func notifyThrottle(c *Client, event string, key []byte) {
	c.notify(notifyString, event, key)
	c.notify(notifyGeneric, "expire", key)
}

func cmdGCRA(c *Client, args [][]byte) {
	if len(args) != 5 && (len(args) != 7 || !eqFold(args[5], "tokens")) {
		if len(args) > 5 {
			c.w.Error(errSyntax)
		} else {
			c.wrongArity(c.cmd)
		}
		return
	}
	maxBurst, ok := intArg(c, args[2])
	if !ok {
		return
	}
	rate, ok := intArg(c, args[3])
	if !ok {
		return
	}
	period, ok := number.ParseDouble(args[4])
	if !ok {
		c.w.Error(errNotFloat)
		return
	}
	tokens := int64(1)
	if len(args) == 7 {
		if tokens, ok = intArg(c, args[6]); !ok {
			return
		}
	}
	switch {
	case maxBurst < 0:
		c.w.Error(errGCRABurst)
		return
	case rate < 1:
		c.w.Error(errGCRARate)
		return
	case !(period >= 1.0):
		c.w.Error(errGCRAPeriod)
		return
	case tokens < 0:
		c.w.Error(errGCRATokens)
		return
	}
	emissionUS := math.Floor(period * 1e6 / float64(rate))
	if emissionUS < 1 || emissionUS > math.MaxInt64/1e3 {
		c.w.Error(errGCRAOverflow)
		return
	}
	emission := int64(emissionUS) * 1e3
	tolerance, increment := satMul(emission, satInc(maxBurst)), satMul(emission, tokens)
	if tolerance == math.MaxInt64 || increment == math.MaxInt64 {
		c.w.Error(errGCRAOverflow)
		return
	}
	throttleDecide(c, limiterGCRA, "gcra", args[1], store.GCRA{Emission: emission, Tolerance: tolerance, Increment: increment}, maxBurst)
}

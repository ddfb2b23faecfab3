package store

import (
	"errors"
	"math"
)

// GCRA is one CL.THROTTLE request, in integer nanoseconds. redis-cell keeps
// the same three quantities (its emission interval, delay variation
// tolerance and increment); computing them as int64 nanoseconds instead of
// its mix of nanoseconds, microseconds and float64 is what keeps fast
// rates (thousands per second) exact.
type GCRA struct {
	Emission  int64 // time between requests at the sustained rate; > 0
	Tolerance int64 // how far the TAT may run ahead of now: Emission × (max_burst+1)
	Increment int64 // what this request adds to the TAT: Emission × quantity
}

// GCRAResult is a CL.THROTTLE decision; durations are nanoseconds.
type GCRAResult struct {
	Limited    bool
	Remaining  int64
	RetryAfter int64 // -1 when allowed, or when the request can never fit
	ResetAfter int64
}

// Errors for a key whose string is not a stored TAT. redis-cell reads the
// value with Rust's u64 parser and panics (taking Redis down with it); we
// answer with that parser's words instead.
var (
	ErrTATEmpty    = errors.New("Cell error: cannot parse integer from empty string")
	ErrTATInvalid  = errors.New("Cell error: invalid digit found in string")
	ErrTATTooLarge = errors.New("Cell error: number too large to fit in target type")
)

// Throttle runs the generic cell rate algorithm on key, which holds the
// theoretical arrival time (TAT) as a decimal count of unix nanoseconds, as
// redis-cell stores it. An allowed request stores the new TAT and expires
// the key when that TAT has passed, so an idle limiter costs no memory; a
// limited one changes nothing. Time is the command's snapshot (Refresh), so
// every CL.THROTTLE in one script or transaction sees the same instant.
//
// The decision is worked out in offsets from now rather than absolute
// times, with saturating arithmetic, so no parameter can overflow it.
func (db *DB) Throttle(key []byte, g GCRA) (GCRAResult, error) {
	db.PreWrite(key) // rewrites the TAT in place
	now := db.store.nanos
	var s *String
	var backlog int64 // how far the stored TAT is ahead of now; 0 if behind
	e := db.Get(key)
	if e != nil {
		var ok bool
		if s, ok = e.str(); !ok {
			return GCRAResult{}, ErrWrongType
		}
		tat, err := s.tat()
		if err != nil {
			return GCRAResult{}, err
		}
		if tat > now {
			backlog = satSub(tat, now)
		}
	}
	ahead := backlog + g.Increment // both >= 0: overflow shows as negative
	if ahead < 0 || ahead > g.Tolerance {
		r := GCRAResult{Limited: true, RetryAfter: -1, ResetAfter: backlog}
		// A request bigger than the whole burst could never pass: redis-cell
		// then gives no retry time.
		if g.Increment <= g.Tolerance {
			r.RetryAfter = satAdd(backlog-g.Tolerance, g.Increment)
		}
		r.Remaining = remaining(g, backlog)
		return r, nil
	}
	tat := satAdd(now, ahead)
	// Expire on the millisecond the TAT passes, rounding up: redis-cell
	// truncates the TTL to whole milliseconds, so at fast rates (a TAT less
	// than 1ms ahead) its key expired before it was read again and the
	// limiter forgot every request.
	expireAt := tat / 1e6
	if tat%1e6 != 0 {
		expireAt++
	}
	if s != nil {
		if s.isShared() {
			e.setStr(intString(tat))
		} else {
			s.SetInt(tat)
		}
		db.setExpire(e, expireAt) // accounts for the new value too
		db.notifyWatchers(key)
	} else {
		db.Set(key, NewInt(tat), expireAt)
	}
	return GCRAResult{Remaining: remaining(g, ahead), RetryAfter: -1, ResetAfter: ahead}, nil
}

// remaining is how many more requests of quantity 1 fit once the TAT is
// ahead of now: redis-cell's (tolerance - ttl) / emission, truncated, and
// never negative.
func remaining(g GCRA, ahead int64) int64 {
	return max(0, (g.Tolerance-ahead)/g.Emission)
}

// tat reads a stored TAT as Rust's str::parse::<u64> would (an optional
// '+', then digits), within int64: nanoseconds since 1970 fit until 2262.
func (s *String) tat() (int64, error) {
	if s.isInt() {
		if s.n < 0 {
			return 0, ErrTATInvalid
		}
		return s.n, nil
	}
	b := s.b
	if len(b) > 0 && b[0] == '+' {
		b = b[1:]
	}
	if len(b) == 0 {
		if len(s.b) == 0 {
			return 0, ErrTATEmpty
		}
		return 0, ErrTATInvalid
	}
	var n int64
	tooLarge := false
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, ErrTATInvalid
		}
		d := int64(c - '0')
		if n > (math.MaxInt64-d)/10 {
			tooLarge = true
			continue
		}
		n = n*10 + d
	}
	if tooLarge {
		return 0, ErrTATTooLarge
	}
	return n, nil
}

// satAdd and satSub clamp to the int64 range instead of wrapping.
func satAdd(a, b int64) int64 {
	c := a + b
	if (b > 0 && c < a) || (b < 0 && c > a) {
		if b > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return c
}

func satSub(a, b int64) int64 {
	if b == math.MinInt64 {
		return satAdd(satAdd(a, math.MaxInt64), 1)
	}
	return satAdd(a, -b)
}

package store

import (
	"math"
	"math/big"

	"github.com/floodgate/floodgate/internal/number"
)

// IncrEx is one INCREX request (Redis 8.8, with Valkey's NX|XX): the
// increment, the bounds the result must stay within, and what to do with
// the key's expiry when the increment is applied.
type IncrEx struct {
	Delta        int64      // integer mode
	Float        *big.Float // float mode (BYFLOAT) when not nil
	Lower, Upper int64      // integer bounds; math.MinInt64/MaxInt64 when not given
	FLower       *big.Float // float bounds; nil when not given
	FUpper       *big.Float
	Saturate     bool

	Expiry   IncrExExpiry
	ExpireAt int64 // unix ms, for ExpirySet
	ENX      bool  // set the expiry only on a key without one
	NX, XX   bool  // only on a missing / an existing key
}

// IncrExExpiry says what an applied INCREX does with the key's TTL.
type IncrExExpiry uint8

const (
	ExpiryKeep    IncrExExpiry = iota // no option: a live key keeps its TTL
	ExpirySet                         // EX, PX, EXAT or PXAT
	ExpiryPersist                     // PERSIST
)

// IncrExResult is INCREX's answer. Refused is set when NX or XX did not
// hold; Changed when the key was written (its value or TTL), which is
// also when an expiry in the past deleted it.
type IncrExResult struct {
	Refused bool
	Changed bool
	Value   int64 // integer mode: the value after (or, skipped, as it is)
	Applied int64
	// Float mode: both formatted as INCRBYFLOAT formats its result.
	FValue, FApplied string
	// TTL is what an applied INCREX did to the key's expiry, for the
	// keyspace events the command raises.
	TTL IncrExTTL
}

// IncrExTTL is what an applied INCREX did to the key's time to live.
type IncrExTTL uint8

const (
	TTLUnchanged IncrExTTL = iota
	TTLSet                 // a deadline was set (EX, PX, EXAT, PXAT)
	TTLRemoved             // PERSIST removed a deadline
	TTLDeleted             // a deadline not in the future deleted the key
)

// IncrEx runs INCREX on key. Out of bounds (past Lower/Upper, or past the
// type's range) it changes nothing and answers the current value with an
// applied increment of 0, unless Saturate clamps the result to the bound
// it crossed; a value already beyond that bound, on the side the
// increment goes, stays as it is (saturating would move it the wrong way).
// A missing key counts as 0 and is only created by an applied increment.
// The answer goes to r, which must be zero: an INCREX is on the hot path of
// a limiter, and returning the result by value copied it twice.
func (db *DB) IncrEx(key []byte, x *IncrEx, r *IncrExResult) error {
	db.PreWrite(key) // rewrites the value in place
	e := db.Get(key)
	var s *String
	if e != nil {
		var ok bool
		if s, ok = e.str(); !ok {
			return ErrWrongType
		}
	}
	if (x.NX && e != nil) || (x.XX && e == nil) {
		r.Refused = true
		return nil
	}
	if x.Float != nil {
		var err error
		*r, err = db.incrExFloat(key, e, s, x)
		return err
	}
	var old int64
	if s != nil {
		var ok bool
		if old, ok = s.n, s.isInt(); !ok {
			if old, ok = number.ParseInt(s.b); !ok {
				return ErrNotInteger
			}
		}
	}
	n, above, below := old+x.Delta, false, false
	switch {
	case x.Delta > 0 && old > math.MaxInt64-x.Delta:
		above = true
	case x.Delta < 0 && old < math.MinInt64-x.Delta:
		below = true
	default:
		above, below = n > x.Upper, n < x.Lower
	}
	switch {
	case !above && !below:
	case !x.Saturate, above && old > x.Upper, below && old < x.Lower:
		r.Value = old
		return nil
	case above:
		n = x.Upper
	default:
		n = x.Lower
	}
	r.Changed, r.Value, r.Applied = true, n, n-old
	if s == nil {
		// A new key gets its deadline as it is made: setting it after
		// accounted the entry a second time.
		if x.Expiry == ExpirySet && x.ExpireAt > db.store.now {
			db.Set(key, NewInt(n), x.ExpireAt)
			r.TTL = TTLSet
			return nil
		}
		e = db.Set(key, NewInt(n), 0)
	} else {
		db.storeInt(e, s, n)
	}
	r.TTL = db.incrExWritten(key, e, x, s != nil)
	return nil
}

// incrExWritten finishes an applied INCREX on the entry it wrote: the
// expiry option, then one change counted (a created key was counted by
// Set), as Redis counts one per INCREX; a deadline in the past deletes the
// key, as SET EXAT does.
func (db *DB) incrExWritten(key []byte, e *Entry, x *IncrEx, existed bool) IncrExTTL {
	old := db.ExpireAt(e) // the one read of the key's expiry slot
	at, set := old, false // set: a deadline the option gives, not the one the key kept
	switch {
	case x.Expiry == ExpirySet && !(x.ENX && old != 0):
		at, set = x.ExpireAt, true
	case x.Expiry == ExpiryPersist:
		at = 0
	}
	// A kept deadline equal to now is still live (a key expires once the
	// clock is past it); a given one that is not in the future deletes.
	if set && at <= db.store.now {
		db.remove(e)
		db.notifyWatchers(key)
		return TTLDeleted
	}
	ttl := TTLUnchanged
	switch {
	case set:
		ttl = TTLSet
	case at != old:
		ttl = TTLRemoved
	}
	if at != old {
		db.moveDeadline(e, old, at)
	}
	if existed {
		db.notifyWatchers(key)
	}
	return ttl
}

// incrExFloat is IncrEx in BYFLOAT mode: INCRBYFLOAT's long double
// arithmetic and formatting, with the bounds compared in long double.
func (db *DB) incrExFloat(key []byte, e *Entry, s *String, x *IncrEx) (IncrExResult, error) {
	old := new(big.Float).SetPrec(number.LongDoublePrec)
	if s != nil {
		if n, ok := s.Int(); ok {
			old.SetInt64(n)
		} else if v, ok := number.ParseLongDouble(s.b); ok {
			old = v
		} else {
			return IncrExResult{}, ErrNotFloat
		}
	}
	n, ok := number.AddLongDouble(old, x.Float)
	if !ok {
		return IncrExResult{}, ErrNaNOrInf
	}
	above := x.FUpper != nil && n.Cmp(x.FUpper) > 0
	below := x.FLower != nil && n.Cmp(x.FLower) < 0
	current := func() (IncrExResult, error) {
		v := "0"
		if s != nil {
			v = string(s.Bytes())
		}
		return IncrExResult{FValue: v, FApplied: "0"}, nil
	}
	switch {
	case !above && !below:
	case !x.Saturate, above && old.Cmp(x.FUpper) > 0, below && old.Cmp(x.FLower) < 0:
		return current()
	case above:
		n = x.FUpper
	default:
		n = x.FLower
	}
	applied := new(big.Float).SetPrec(number.LongDoublePrec).Sub(n, old)
	text := number.FormatLongDouble(n)
	r := IncrExResult{Changed: true, FValue: text, FApplied: number.FormatLongDouble(applied)}
	v := byteString([]byte(text), false) // never int-encoded, as INCRBYFLOAT
	if e == nil {
		e = db.Set(key, v, 0)
	} else {
		e = db.SetKeepTTL(key, v) // counted: the change is
	}
	r.TTL = db.incrExWritten(key, e, x, false)
	return r, nil
}

package store

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// cellReference is redis-cell's rate_limit as it reads (absolute times,
// arbitrary precision here), for parameters that overflow nothing: the
// offsets-from-now form in Throttle must decide and answer the same.
type cellReference struct {
	tat    int64 // 0: no key
	expire int64 // unix ms the key lives through
}

func (r *cellReference) decide(now int64, g GCRA) GCRAResult {
	tat := now
	if r.tat != 0 && now/1e6 <= r.expire && r.tat > now {
		tat = r.tat
	}
	newTat := max(tat, now) + g.Increment
	diff := now - (newTat - g.Tolerance)
	var res GCRAResult
	var ttl int64
	if diff < 0 {
		res.Limited, res.RetryAfter = true, -1
		if g.Increment <= g.Tolerance {
			res.RetryAfter = -diff
		}
		ttl = tat - now
	} else {
		res.RetryAfter = -1
		ttl = newTat - now
		r.tat, r.expire = newTat, (newTat+1e6-1)/1e6
	}
	if next := g.Tolerance - ttl; next > -g.Emission {
		res.Remaining = max(0, next/g.Emission)
	}
	res.ResetAfter = ttl
	return res
}

func TestThrottleMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		clock := NewManualClock(time.Unix(1_767_225_600, 0))
		s := New(1, clock)
		db := s.DB(0)
		emission := 1 + rng.Int64N([]int64{1e3, 1e6, 1e9, 1e12}[round%4])
		burst := rng.Int64N(50)
		var ref cellReference
		for step := range 300 {
			clock.Add(time.Duration(rng.Int64N(3 * emission)))
			s.Refresh()
			q := rng.Int64N(burst + 3)
			g := GCRA{Emission: emission, Tolerance: emission * (burst + 1), Increment: emission * q}
			got, err := db.Throttle([]byte("k"), g)
			if err != nil {
				t.Fatal(err)
			}
			if want := ref.decide(s.nanos, g); got != want {
				t.Fatalf("round %d step %d (T=%d burst=%d q=%d): got %+v, want %+v", round, step, emission, burst, q, got, want)
			}
		}
	}
}

func TestThrottleSaturates(t *testing.T) {
	s := New(1, NewManualClock(time.Unix(1_767_225_600, 0)))
	db := s.DB(0)
	huge := GCRA{Emission: math.MaxInt64, Tolerance: math.MaxInt64, Increment: math.MaxInt64}
	if r, _ := db.Throttle([]byte("k"), huge); r.Limited || r.ResetAfter != math.MaxInt64 {
		t.Fatalf("first: %+v", r)
	}
	if n, _ := db.Get([]byte("k")).Value().(*String).Int(); n != math.MaxInt64 {
		t.Fatalf("TAT %d, want the int64 maximum", n)
	}
	r, _ := db.Throttle([]byte("k"), huge)
	if !r.Limited || r.RetryAfter <= 0 || r.ResetAfter != math.MaxInt64-s.nanos {
		t.Fatalf("second: %+v", r)
	}
}

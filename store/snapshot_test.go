package store

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// render describes a value for comparison.
func render(v Value) string {
	switch v := v.(type) {
	case *String:
		return "s:" + string(v.Bytes())
	case *Set:
		return fmt.Sprint("set:", v.Members())
	}
	return fmt.Sprintf("%T", v)
}

// TestSnapshotIsPointInTime interleaves random writes with the saver's
// steps and checks that the saver sees exactly the store as it was when
// the snapshot began.
func TestSnapshotIsPointInTime(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		clock := NewManualClock(time.Unix(1000, 0))
		s := New(4, clock)
		key := func() []byte { return fmt.Appendf(nil, "k%d", rng.IntN(300)) }
		for range 500 {
			db := s.DB(rng.IntN(4))
			db.Set(key(), NewInt(rng.Int64N(100)), 0)
		}
		s.DB(1).Set([]byte("gone"), NewInt(1), 999_000) // expired at the start
		want := map[string]string{}
		for i := range 4 {
			s.DB(i).Each(func(e *Entry) { want[fmt.Sprint(i, "/", e.Key(), "/", e.ExpireAt())] = render(e.Value) })
		}
		sn := s.BeginSnapshot()
		got := map[string]string{}
		more := true
		for more {
			more = sn.Next(rng.IntN(20)+1, func(db int, k string, v Value, at int64) {
				id := fmt.Sprint(db, "/", k, "/", at)
				if _, dup := got[id]; dup {
					t.Fatalf("seed %d: %s visited twice", seed, id)
				}
				got[id] = render(v)
			})
			for range rng.IntN(30) {
				db := s.DB(rng.IntN(4))
				k := key()
				switch rng.IntN(10) {
				case 0:
					db.Delete(k)
				case 1:
					db.Set(k, NewString([]byte("new")), 0)
				case 2:
					if e := db.Get(k); e != nil {
						db.SetExpire(e, 5_000_000)
					}
				case 3:
					if rng.IntN(20) == 0 {
						db.Flush()
					}
				case 4:
					if rng.IntN(20) == 0 {
						s.SwapDB(rng.IntN(4), rng.IntN(4))
					}
				default: // in place, as INCR does
					db.PreWrite(k)
					if e := db.Get(k); e != nil {
						if str, ok := e.Value.(*String); ok && str.IsInt() {
							db.UnshareString(k, str).IncrBy(1)
							db.Modified(k)
						}
					}
				}
			}
		}
		sn.End()
		if len(got) != len(want) {
			t.Fatalf("seed %d: %d keys, want %d", seed, len(got), len(want))
		}
		for id, v := range want {
			if got[id] != v {
				t.Fatalf("seed %d: %s = %q, want %q", seed, id, got[id], v)
			}
		}
	}
}

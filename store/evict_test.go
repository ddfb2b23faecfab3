package store

import (
	"fmt"
	"testing"
	"time"
)

func fill(db *DB, n int, ttl bool) {
	for i := range n {
		var at int64
		if ttl {
			at = db.store.now + int64(1000+i)*1000
		}
		db.Set([]byte(fmt.Sprintf("k:%d", i)), NewInt(int64(i)), at)
	}
}

// TestUsedReturnsToZero: the accounting is exact bookkeeping, so every way
// a key goes away gives back exactly what adding and changing it charged.
func TestUsedReturnsToZero(t *testing.T) {
	clock := NewManualClock(time.Unix(1_700_000_000, 0))
	s := New(2, clock)
	db := s.DB(0)
	fill(db, 100, false)
	fill(s.DB(1), 50, true)
	if s.Used() <= 0 {
		t.Fatal("nothing accounted")
	}
	db.UnshareString([]byte("k:1"), db.Get([]byte("k:1")).Value().(*String)).SetBytes([]byte("a longer value than an integer, one that needs its own bytes"))
	db.Modified([]byte("k:1"))
	if _, err := db.SAdd([]byte("set"), [][]byte{[]byte("a"), []byte("b")}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.HSet([]byte("hash"), [][]byte{[]byte("f"), []byte("v")}); err != nil {
		t.Fatal(err)
	}
	db.Delete([]byte("k:2"))
	db.SetExpire(db.Get([]byte("k:3")), s.now+10)
	clock.Add(time.Second)
	s.ActiveExpire(0)
	s.SwapDB(0, 1)
	s.DB(1).Flush()
	if s.Used() == 0 {
		t.Fatal("flushing one database freed all")
	}
	s.FlushAll()
	if s.Used() != 0 {
		t.Fatalf("Used after FlushAll = %d, want 0", s.Used())
	}
}

func TestEvictPolicies(t *testing.T) {
	for _, p := range []Policy{AllKeysLRU, AllKeysLFU, AllKeysRandom, VolatileLRU, VolatileLFU, VolatileRandom, VolatileTTL} {
		t.Run(p.String(), func(t *testing.T) {
			s := New(2, NewManualClock(time.Unix(1_700_000_000, 0)))
			s.SetEviction(EvictionConfig{Policy: p, Samples: 5, LFULogFactor: 10, LFUDecayTime: 1})
			fill(s.DB(0), 1000, false)
			fill(s.DB(1), 1000, true)
			before, keysBefore := s.Used(), s.used
			var evicted []string
			res := s.Evict(before/4, time.Time{}, func(db int, key string) {
				if p.volatile() && db != 1 {
					t.Errorf("evicted %d/%s, a key without a TTL", db, key)
				}
				evicted = append(evicted, key)
			})
			// Freed is the keys' memory; the expiry heap's array may shrink too.
			if res.OutOfMemory || res.Freed < before/4 || keysBefore-s.used != res.Freed || len(evicted) != res.Evicted {
				t.Fatalf("%+v, used %d -> %d, %d callbacks", res, before, s.Used(), len(evicted))
			}
			// Evicting more than the volatile keys hold fails once they are gone.
			res = s.Evict(before, time.Time{}, nil)
			if p.volatile() && (!res.OutOfMemory || s.DB(1).Len() != 0 || s.DB(0).Len() != 1000) {
				t.Fatalf("volatile: %+v, db sizes %d and %d", res, s.DB(0).Len(), s.DB(1).Len())
			}
			// What is left is the indexes, until they shrink.
			if !p.volatile() && (!res.OutOfMemory || s.DB(0).Len()+s.DB(1).Len() != 0 || s.Used() != s.indexBytes()) {
				t.Fatalf("allkeys: %+v, used %d, indexes %d", res, s.Used(), s.indexBytes())
			}
		})
	}
}

// TestEvictLRUPrefersIdleKeys: with the pool, sampled LRU evicts mostly
// keys idle for long, though not strictly the oldest.
func TestEvictLRUPrefersIdleKeys(t *testing.T) {
	clock := NewManualClock(time.Unix(1_700_000_000, 0))
	s := New(1, clock)
	s.SetEviction(EvictionConfig{Policy: AllKeysLRU, Samples: 5})
	db := s.DB(0)
	fill(db, 2000, false)
	clock.Add(100 * time.Second)
	s.Refresh()
	for i := 1000; i < 2000; i++ { // the second half is recent
		db.Get([]byte(fmt.Sprintf("k:%d", i)))
	}
	old := 0
	res := s.Evict(s.Used()/4, time.Time{}, func(_ int, key string) {
		var n int
		fmt.Sscanf(key, "k:%d", &n)
		if n < 1000 {
			old++
		}
	})
	if old < res.Evicted*9/10 {
		t.Fatalf("%d of %d evicted keys were idle ones", old, res.Evicted)
	}
}

func TestEvictVolatileTTLPrefersSoonest(t *testing.T) {
	s := New(1, NewManualClock(time.Unix(1_700_000_000, 0)))
	s.SetEviction(EvictionConfig{Policy: VolatileTTL, Samples: 10})
	db := s.DB(0)
	fill(db, 2000, true) // k:i expires after 1000+i seconds
	soon := 0
	res := s.Evict(s.Used()/4, time.Time{}, func(_ int, key string) {
		var n int
		fmt.Sscanf(key, "k:%d", &n)
		if n < 1000 {
			soon++
		}
	})
	if soon < res.Evicted*9/10 {
		t.Fatalf("%d of %d evicted keys were among the soonest to expire", soon, res.Evicted)
	}
}

// TestLFUCounter follows evict.c: LFU_INIT_VAL 5, a first access certain
// to count, later ones less likely, and one point of decay per
// lfu-decay-time minutes.
func TestLFUCounter(t *testing.T) {
	clock := NewManualClock(time.Unix(1_700_000_000, 0))
	s := New(1, clock)
	s.SetEviction(EvictionConfig{Policy: AllKeysLFU, Samples: 5, LFULogFactor: 10, LFUDecayTime: 1})
	db := s.DB(0)
	db.Set([]byte("k"), NewInt(1), 0)
	e := db.Peek([]byte("k"))
	if got := s.Freq(e); got != 5 {
		t.Fatalf("new key: freq %d, want 5", got)
	}
	db.Get([]byte("k"))
	if got := s.Freq(e); got != 6 {
		t.Fatalf("after one access: freq %d, want 6", got)
	}
	for range 100000 {
		db.Get([]byte("k"))
	}
	// redis.conf's table for lfu-log-factor 10: 142 after 100K hits.
	if got := s.Freq(e); got < 110 || got > 190 {
		t.Fatalf("after 100k accesses: freq %d, want about 142", got)
	}
	before := s.Freq(e)
	clock.Add(3 * time.Minute)
	s.Refresh()
	if got := s.Freq(e); got != before-3 {
		t.Fatalf("3 minutes later: freq %d, want %d", got, before-3)
	}
	clock.Add(5 * time.Hour)
	s.Refresh()
	if got := s.Freq(e); got != 0 {
		t.Fatalf("5 hours later: freq %d, want 0", got)
	}
}

func TestIdleTime(t *testing.T) {
	clock := NewManualClock(time.Unix(1_700_000_000, 0))
	s := New(1, clock)
	db := s.DB(0)
	db.Set([]byte("k"), NewInt(1), 0)
	clock.Add(90 * time.Second)
	s.Refresh()
	e := db.Peek([]byte("k"))
	if got := s.IdleTime(e); got != 90*time.Second {
		t.Fatalf("idle %v, want 90s", got)
	}
	db.Get([]byte("k"))
	if got := s.IdleTime(e); got != 0 {
		t.Fatalf("after an access: idle %v, want 0", got)
	}
}

func TestEvictionTimeLimit(t *testing.T) {
	for _, c := range []struct {
		tenacity int
		want     time.Duration
		limited  bool
	}{{0, 0, true}, {10, 500 * time.Microsecond, true}, {11, 575 * time.Microsecond, true}, {100, 0, false}} {
		got, limited := EvictionTimeLimit(c.tenacity)
		if got != c.want || limited != c.limited {
			t.Errorf("tenacity %d: %v %v, want %v %v", c.tenacity, got, limited, c.want, c.limited)
		}
	}
}

// TestDeleteTimes: with OnDeleteTime set, every key deleted by expiry
// (active or lazy) and by eviction is timed and reported as which it was;
// a DEL is not.
func TestDeleteTimes(t *testing.T) {
	clock := NewManualClock(time.Unix(1_700_000_000, 0))
	s := New(1, clock)
	s.SetEviction(EvictionConfig{Policy: AllKeysRandom, Samples: 5})
	var expired, evicted int
	s.OnDeleteTime = func(ev bool, took time.Duration) {
		if took < 0 {
			t.Errorf("negative time %v", took)
		}
		if ev {
			evicted++
		} else {
			expired++
		}
	}
	db := s.DB(0)
	fill(db, 10, true) // k:i expires after 1000+i seconds
	db.Delete([]byte("k:9"))
	clock.Add(1005 * time.Second)
	s.ActiveExpire(0) // k:0 to k:4
	s.Refresh()
	clock.Add(time.Second)
	s.Refresh()
	db.Get([]byte("k:5")) // lazily
	if expired != 6 || evicted != 0 {
		t.Fatalf("after expiry: %d expired, %d evicted; want 6, 0", expired, evicted)
	}
	res := s.Evict(s.Used(), time.Time{}, nil)
	if evicted != res.Evicted || evicted == 0 {
		t.Errorf("%d eviction times for %d evicted", evicted, res.Evicted)
	}
}

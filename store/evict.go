package store

import (
	"math"
	"time"
)

// Policy is a maxmemory-policy: what Evict removes once used memory passes
// maxmemory.
type Policy uint8

// The eight policies of Redis's maxmemory-policy.
const (
	NoEviction Policy = iota
	AllKeysLRU
	AllKeysLFU
	AllKeysRandom
	VolatileLRU
	VolatileLFU
	VolatileRandom
	VolatileTTL
)

var policyNames = [...]string{"noeviction", "allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"}

// String returns the policy's maxmemory-policy name.
func (p Policy) String() string { return policyNames[p] }

// ParsePolicy returns the policy named name (lower case), if any.
func ParsePolicy(name string) (Policy, bool) {
	for i, n := range policyNames {
		if n == name {
			return Policy(i), true
		}
	}
	return 0, false
}

// LFU reports whether the policy ranks keys by access frequency, which
// changes what an entry's access field holds (OBJECT FREQ, OBJECT IDLETIME).
func (p Policy) LFU() bool { return p == AllKeysLFU || p == VolatileLFU }

func (p Policy) volatile() bool { return p >= VolatileLRU }

// EvictionConfig is the tunables of eviction, named as Redis's config.
type EvictionConfig struct {
	Policy       Policy
	Samples      int // maxmemory-samples
	LFULogFactor int // lfu-log-factor
	LFUDecayTime int // lfu-decay-time, minutes
}

// DefaultEviction is Redis's default configuration.
var DefaultEviction = EvictionConfig{Policy: NoEviction, Samples: 5, LFULogFactor: 10, LFUDecayTime: 1}

// SetEviction changes the eviction configuration. As in Redis, switching
// between LRU and LFU leaves the entries' access fields as they are; they
// take a while to mean something under the new policy.
func (s *Store) SetEviction(c EvictionConfig) { s.evict = c }

// SetBounded tells the store whether maxmemory is set: Redis then shares
// no integers under an LRU or LFU policy (MAXMEMORY_FLAG_NO_SHARED_INTEGERS),
// which OBJECT REFCOUNT shows.
func (s *Store) SetBounded(on bool) { s.bounded = on }

// sharing reports whether new small integers are shared values.
func (s *Store) sharing() bool {
	switch s.evict.Policy {
	case AllKeysLRU, VolatileLRU, AllKeysLFU, VolatileLFU:
		return !s.bounded
	}
	return true
}

// Eviction returns the eviction configuration.
func (s *Store) Eviction() EvictionConfig { return s.evict }

// An entry's access field is Redis's robj->lru: under LRU the 24-bit clock
// in seconds of the last access; under LFU 16 bits of minutes of the last
// decrement and an 8-bit logarithmic counter.
const (
	lruClockMax        = 1<<24 - 1
	lruClockResolution = 1000 // ms
	lfuInitVal         = 5
)

func (s *Store) lruClock() uint32 { return uint32(s.now/lruClockResolution) & lruClockMax }

func (s *Store) lfuMinutes() uint32 { return uint32(s.now/60000) & 0xffff }

// newAccess is the access field of a new key: now, or LFU_INIT_VAL.
func (s *Store) newAccess() uint32 {
	if s.evict.Policy.LFU() {
		return s.lfuMinutes()<<8 | lfuInitVal
	}
	return s.lruClock()
}

// touch records an access to e, as Redis's lookupKey does.
func (s *Store) touch(e *Entry) {
	if s.evict.Policy.LFU() {
		e.access = s.lfuMinutes()<<8 | s.lfuLogIncr(s.lfuDecr(e.access))
		return
	}
	e.access = s.lruClock()
}

// lfuLogIncr is evict.c's LFULogIncr: the counter grows with probability
// 1/((counter-LFU_INIT_VAL)*lfu-log-factor+1), saturating at 255.
func (s *Store) lfuLogIncr(counter uint32) uint32 {
	if counter == 255 {
		return 255
	}
	base := max(float64(counter)-lfuInitVal, 0)
	if s.rng.Float64() < 1/(base*float64(s.evict.LFULogFactor)+1) {
		counter++
	}
	return counter
}

// lfuDecr is evict.c's LFUDecrAndReturn: the counter loses one for every
// lfu-decay-time minutes since it was last decremented.
func (s *Store) lfuDecr(access uint32) uint32 {
	ldt, counter := access>>8, access&255
	if s.evict.LFUDecayTime <= 0 {
		return counter
	}
	now := s.lfuMinutes()
	elapsed := now - ldt
	if now < ldt {
		elapsed = 0xffff - ldt + now
	}
	periods := elapsed / uint32(s.evict.LFUDecayTime)
	if periods > counter {
		return 0
	}
	return counter - periods
}

// Freq returns e's LFU counter after decay (OBJECT FREQ); meaningful under
// an LFU policy only.
func (s *Store) Freq(e *Entry) int { return int(s.lfuDecr(e.access)) }

// IdleTime returns how long ago e was last accessed (OBJECT IDLETIME), in
// the LRU clock's one-second resolution; meaningful under an LRU policy.
func (s *Store) IdleTime(e *Entry) time.Duration {
	return time.Duration(s.idleMillis(e)) * time.Millisecond
}

func (s *Store) idleMillis(e *Entry) uint64 {
	clock, lru := s.lruClock(), e.access&lruClockMax
	if clock >= lru {
		return uint64(clock-lru) * lruClockResolution
	}
	return uint64(clock+(lruClockMax-lru)) * lruClockResolution
}

// evictPoolSize is Redis's EVPOOL_SIZE.
const evictPoolSize = 16

// evictCandidate is one slot of the eviction pool: a sampled key and its
// score (higher: evicted sooner).
type evictCandidate struct {
	score uint64
	key   string
	db    int
}

// EvictResult is what Evict did.
type EvictResult struct {
	Evicted int   // keys removed
	Freed   int64 // bytes of accounted memory freed
	// OutOfMemory: nothing (more) could be evicted and still more than
	// the asked amount is in use; Redis's EVICT_FAIL.
	OutOfMemory bool
}

// Evict removes keys under the configured policy until need bytes of
// accounted memory are freed, as Redis's performEvictions does: for the LRU,
// LFU and TTL policies it samples maxmemory-samples keys of every database
// into a pool of the 16 best candidates and evicts the best; the random
// policies pick any key. It stops early, without failing, after deadline
// (maxmemory-eviction-tenacity's time limit; zero: none). onEvict is
// called for each key evicted, after its removal.
func (s *Store) Evict(need int64, deadline time.Time, onEvict func(db int, key string)) EvictResult {
	var res EvictResult
	p := s.evict.Policy
	if p == NoEviction {
		res.OutOfMemory = true
		return res
	}
	for res.Freed < need {
		var victim *Entry
		var vdb *DB
		switch p {
		case AllKeysRandom, VolatileRandom:
			for range s.dbs {
				s.nextDB = (s.nextDB + 1) % len(s.dbs)
				d := s.dbs[s.nextDB]
				if d == nil { // never used: empty
					continue
				}
				if p == AllKeysRandom && d.keys.len() > 0 {
					victim, vdb = d.keys.random(&s.rng), d
					break
				}
				if p == VolatileRandom && d.expiries.len() > 0 {
					victim, vdb = d.expiries.slot(s.rng.IntN(d.expiries.len())).e, d
					break
				}
			}
		default:
			victim, vdb = s.bestCandidate()
		}
		if victim == nil {
			res.OutOfMemory = true
			return res
		}
		key := victim.Key()
		res.Freed += int64(victim.size)
		vdb.timedRemove(victim, true)
		res.Evicted++
		if onEvict != nil {
			onEvict(vdb.index, key)
		}
		if s.OnInvalidate != nil { // evict.c's signalModifiedKey
			s.OnInvalidate([]byte(key), false)
		}
		if res.Evicted%16 == 0 && !deadline.IsZero() && time.Now().After(deadline) {
			return res
		}
	}
	return res
}

// bestCandidate fills the pool from samples of every database and pops the
// best candidate that still exists, as evict.c does: the pool survives
// between calls, so good candidates found earlier are not forgotten.
func (s *Store) bestCandidate() (*Entry, *DB) {
	volatile := s.evict.Policy.volatile()
	for {
		total := 0
		for d := range s.usedDBs() {
			n := d.keys.len()
			if volatile {
				n = d.expiries.len()
			}
			if n > 0 {
				s.populatePool(d, volatile)
				total += n
			}
		}
		if total == 0 {
			return nil, nil
		}
		for k := evictPoolSize - 1; k >= 0; k-- {
			c := &s.pool[k]
			if c.key == "" {
				continue
			}
			d := s.dbs[c.db]
			e := d.keys.find(c.key)
			*c = evictCandidate{}
			if e != nil && (!volatile || e.heapIdx >= 0) {
				return e, d
			}
		}
	}
}

// populatePool is evict.c's evictionPoolPopulate: it samples keys and
// inserts those scoring higher than the pool's worst, keeping the pool
// sorted by ascending score.
func (s *Store) populatePool(d *DB, volatile bool) {
	if s.pool == nil {
		s.pool = new([evictPoolSize]evictCandidate)
	}
	pool := s.pool
	samples := max(s.evict.Samples, 1)
	s.samples = s.samples[:0]
	if volatile {
		for range min(samples, d.expiries.len()) {
			s.samples = append(s.samples, d.expiries.slot(s.rng.IntN(d.expiries.len())).e)
		}
	} else {
		s.samples = d.keys.sample(&s.rng, samples, s.samples)
	}
	for _, e := range s.samples {
		var score uint64
		switch s.evict.Policy {
		case AllKeysLRU, VolatileLRU:
			score = s.idleMillis(e)
		case AllKeysLFU, VolatileLFU:
			score = 255 - uint64(s.lfuDecr(e.access))
		case VolatileTTL:
			score = math.MaxUint64 - uint64(d.ExpireAt(e))
		}
		k := 0
		for k < evictPoolSize && pool[k].key != "" && pool[k].score < score {
			k++
		}
		switch {
		case k == 0 && pool[evictPoolSize-1].key != "":
			continue // worse than every candidate of a full pool
		case k < evictPoolSize && pool[k].key == "":
			// an empty slot: insert here
		case pool[evictPoolSize-1].key == "":
			copy(pool[k+1:], pool[k:evictPoolSize-1]) // room on the right
		default:
			k-- // full: drop the worst candidate, on the left
			copy(pool[:k], pool[1:k+1])
		}
		pool[k] = evictCandidate{score: score, key: e.Key(), db: d.index}
	}
}

// EvictionTimeLimit is evict.c's evictionTimeLimitUs: how long one round
// of eviction may run for a maxmemory-eviction-tenacity (0-100); 100 means
// no limit (false returned).
func EvictionTimeLimit(tenacity int) (time.Duration, bool) {
	switch {
	case tenacity <= 10:
		return time.Duration(50*tenacity) * time.Microsecond, true
	case tenacity < 100:
		return time.Duration(500*math.Pow(1.15, float64(tenacity-10))) * time.Microsecond, true
	}
	return 0, false
}

// SetAccess sets e's access data as RESTORE's FREQ and IDLETIME do (Redis's
// objectSetLRUOrLFU): under an LFU policy the counter, when freq is given
// (>= 0); otherwise the last access idle seconds ago, when idle is given,
// clamped at the clock's zero as Redis clamps a wrapped value.
func (s *Store) SetAccess(e *Entry, freq, idle int64) {
	switch {
	case s.evict.Policy.LFU():
		if freq >= 0 {
			e.access = s.lfuMinutes()<<8 | uint32(freq)
		}
	case idle >= 0:
		e.access = uint32(max(int64(s.lruClock())-idle, 0))
	}
}

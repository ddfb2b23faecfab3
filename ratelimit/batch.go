package ratelimit

import (
	"context"
	"sync"
	"time"
)

// WithBatching makes a replica reserve quota for hot keys in batches of size
// (one AllowN with n = size) and spend it locally for at most maxAge, so that
// a key seeing thousands of requests a second costs the store a round trip
// per size requests instead of one per request.
//
// A key is hot on a replica once that replica sees size requests for it
// within maxAge; a batch that expires unspent marks the key cold again, so a
// quiet key never wastes quota. When the store cannot grant a whole batch,
// the request goes to the store alone with its own cost, so near the limit
// admission stays exact.
//
// The error this adds is bounded. Units are counted by the store when
// reserved but spent up to maxAge later, possibly after the store's window
// has moved on. Each replica holds at most one live batch per key, and the
// request that reserved it spent its own units at once, so at most size−1
// units per replica are spent later than the store believes. In any window
// (or, for GCRA and the token bucket, any interval) a limit of L therefore
// admits at most L + replicas×(size−1). In the other direction a batch that
// expires unspent was counted but never used: up to replicas×(size−1) units
// a client could have had are forfeited, once per hot spell. Keep maxAge
// short (≤ 100ms) and size small next to the limit.
//
// FixedWindowIncrFirst is never batched: a denied reservation would be
// counted against the client, burning size units. Requests with a cost
// above size are not batched either.
func WithBatching(size int, maxAge time.Duration) Option {
	return func(l *Limiter) {
		if size > 1 && maxAge > 0 {
			l.batch = &batcher{size: size, maxAge: maxAge, batches: make(map[batchKey]*batch)}
		}
	}
}

type batcher struct {
	size   int
	maxAge time.Duration

	mu      sync.Mutex
	batches map[batchKey]*batch
	ops     int
}

type batchKey struct {
	key   string
	limit Limit
}

// batch is one replica's reservation for one key.
type batch struct {
	// mu is held across a reservation, so concurrent requests of one key
	// on one replica make a single reservation and then spend from it.
	mu       sync.Mutex
	left     int       // reserved units not yet spent
	expires  time.Time // when left is forfeited
	reserved Result    // the store's answer to the reservation

	// A key turns hot once seen reaches size within maxAge of seenSince,
	// and cold again when a batch expires unspent.
	hot       bool
	seen      int
	seenSince time.Time
}

func (b *batcher) eligible(a Algorithm, n int) bool {
	return a != FixedWindowIncrFirst && n >= 1 && n <= b.size
}

func (b *batcher) get(key string, limit Limit, now time.Time) *batch {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ops++
	if b.ops%1024 == 0 {
		for k, e := range b.batches {
			if now.Sub(e.expires) > b.maxAge && now.Sub(e.seenSince) > b.maxAge {
				delete(b.batches, k)
			}
		}
	}
	k := batchKey{key, limit}
	e := b.batches[k]
	if e == nil {
		e = &batch{seenSince: now}
		b.batches[k] = e
	}
	return e
}

func (b *batcher) allow(ctx context.Context, l *Limiter, key string, limit Limit, n int) (Result, error) {
	now := l.now()
	e := b.get(key, limit, now)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.left >= n && now.Before(e.expires) {
		e.left -= n
		res := e.reserved
		res.Remaining += e.left
		return res, nil
	}
	if e.left > 0 {
		// The last batch expired unspent: the key has cooled down.
		e.left, e.hot, e.seen, e.seenSince = 0, false, 0, now
	}
	if !e.hot {
		if now.Sub(e.seenSince) >= b.maxAge {
			e.seen, e.seenSince = 0, now
		}
		e.seen += n
		e.hot = e.seen >= b.size
	}
	if !e.hot || l.State() == Degraded {
		return l.allow(ctx, key, limit, n)
	}
	res, err := l.allow(ctx, key, limit, b.size)
	if err != nil {
		return Result{}, err
	}
	if !res.Allowed {
		// Not a whole batch left: decide this request alone, exactly.
		return l.allow(ctx, key, limit, n)
	}
	e.left, e.expires, e.reserved = b.size-n, now.Add(b.maxAge), res
	res.Remaining += e.left
	return res, nil
}

// now is the Limiter's clock.
func (l *Limiter) now() time.Time {
	if l.clock != nil {
		return l.clock()
	}
	return time.Now()
}

package store

import (
	"sync"
	"time"
)

// Clock tells the store what time it is. Everything time-based in floodgate
// (TTLs, active expiry, TIME, the time scripts see) reads one Clock, so a test
// that moves it moves all of them together.
type Clock interface {
	Now() time.Time
}

// RealClock is the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// ManualClock is a Clock that moves only when told to. The zero value starts
// at the Unix epoch; it is safe for concurrent use.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewManualClock returns a ManualClock set to t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{now: t} }

// Now returns the clock's current time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now.IsZero() {
		return time.Unix(0, 0)
	}
	return c.now
}

// Set moves the clock to t (backwards too).
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Add moves the clock forward by d.
func (c *ManualClock) Add(d time.Duration) {
	c.mu.Lock()
	if c.now.IsZero() {
		c.now = time.Unix(0, 0)
	}
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

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
// the snapshot began, reading each step's values only after the writes
// that follow it, as the background saver encodes them outside the lock.
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
			db := s.DB(i)
			db.Each(func(e *Entry) { want[fmt.Sprint(i, "/", e.Key(), "/", db.ExpireAt(e))] = render(e.Value()) })
		}
		sn := s.BeginSnapshot()
		got := map[string]string{}
		more := true
		type handed struct {
			id string
			v  Value
		}
		var batch []handed
		for more {
			batch = batch[:0]
			more = sn.Next(rng.IntN(20)+1, func(db int, k string, v Value, at int64) {
				id := fmt.Sprint(db, "/", k, "/", at)
				if _, dup := got[id]; dup {
					t.Fatalf("seed %d: %s visited twice", seed, id)
				}
				got[id] = ""
				batch = append(batch, handed{id, v})
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
						if str, ok := e.Value().(*String); ok && str.IsInt() {
							db.UnshareString(k, str).IncrBy(1)
							db.Modified(k)
						}
					}
				}
			}
			// The saver reads a batch's values after the writes that follow
			// the step: they must still be as they were at the start.
			for _, h := range batch {
				got[h.id] = render(h.v)
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

// TestSnapshotHandedValueStays: a key whose value the saver holds (handed
// out by the last Next) moves to a copy when written, and the copy is the
// same kind of object to clients: an integer stays one of Redis's shared
// ones, as OBJECT REFCOUNT shows.
func TestSnapshotHandedValueStays(t *testing.T) {
	s := New(1, NewManualClock(time.Unix(1000, 0)))
	db := s.DB(0)
	db.Set([]byte("n"), NewInt(5), 0)
	db.Set([]byte("s"), NewString([]byte("abc")), 0)
	sn := s.BeginSnapshot()
	handed := map[string]Value{}
	sn.Next(10, func(_ int, k string, v Value, _ int64) { handed[k] = v })
	db.PreWrite([]byte("n")) // a write command that leaves the value as it is (EXPIRE)
	if live := db.Get([]byte("n")).Value().(*String); !live.Shared() {
		t.Fatal("n is no longer a shared integer after PreWrite")
	}
	if _, err := db.IncrBy([]byte("n"), 1); err != nil {
		t.Fatal(err)
	}
	db.PreWrite([]byte("s"))
	if e := db.Get([]byte("s")); e != nil {
		e.SetValue(NewString([]byte("changed")))
	}
	sn.End()
	if got := render(handed["n"]); got != "s:5" {
		t.Fatalf("the saver's n = %s, want s:5", got)
	}
	if got := render(handed["s"]); got != "s:abc" {
		t.Fatalf("the saver's s = %s, want s:abc", got)
	}
	live := db.Get([]byte("n")).Value().(*String)
	if n, _ := live.Int(); n != 6 || !live.Shared() || live.Encoding() != "int" {
		t.Fatalf("live n = %d shared %v %s, want 6, shared, int", n, live.Shared(), live.Encoding())
	}
}

// TestSnapshotKeptBytes: what a snapshot keeps of the values changed or
// deleted while it is open (INFO's copy-on-write figures) is their size as
// they were; keys the saver has not reached and that nobody writes cost
// nothing, and so does a key written twice after its first copy.
func TestSnapshotKeptBytes(t *testing.T) {
	s := New(1, NewManualClock(time.Unix(1000, 0)))
	db := s.DB(0)
	for _, k := range []string{"a", "b", "c"} {
		db.Set([]byte(k), NewString([]byte(k+" has a value of some length")), 0)
	}
	sizeOf := func(k string) int64 { return int64(db.Get([]byte(k)).size) }
	want := sizeOf("a") + sizeOf("b")
	if s.SnapshotKept() != 0 {
		t.Fatal("kept bytes with no snapshot")
	}
	sn := s.BeginSnapshot()
	db.PreWrite([]byte("a"))
	db.Get([]byte("a")).SetValue(NewString([]byte("changed")))
	db.PreWrite([]byte("a")) // kept once
	db.Delete([]byte("b"))
	if got := sn.KeptBytes(); got != want || s.SnapshotKept() != got {
		t.Errorf("kept %d (store says %d), want %d: a's and b's sizes", got, s.SnapshotKept(), want)
	}
	sn.End()
	if s.SnapshotKept() != 0 {
		t.Error("kept bytes after End")
	}
}

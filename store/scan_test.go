package store

import (
	"fmt"
	"testing"
	"time"
)

// TestScanReclaimsExpired checks that SCAN deletes the expired keys it
// walks over (DBSIZE drops, as in Redis) without breaking its guarantee:
// every key live throughout the scan is returned, and no expired one is.
func TestScanReclaimsExpired(t *testing.T) {
	s, clock := newTestStore(time.UnixMilli(1_000_000))
	db := s.DB(0)
	for i := 0; i < 1000; i++ {
		db.Set([]byte(fmt.Sprintf("stable%d", i)), NewInt(1), 0)
		// Expiring keys interleave with stable ones, at times spread over the scan.
		db.Set([]byte(fmt.Sprintf("short%d", i)), NewInt(1), s.Now()+int64(i%50)+1)
	}
	seen := map[string]bool{}
	var cursor uint64
	for {
		cursor = db.Scan(cursor, 20, func(e *Entry) {
			if at := db.ExpireAt(e); at != 0 && at < s.Now() {
				t.Fatalf("SCAN returned expired key %s", e.Key())
			}
			seen[e.Key()] = true
		})
		if cursor == 0 {
			break
		}
		clock.Add(time.Millisecond)
		s.Refresh()
	}
	for i := 0; i < 1000; i++ {
		if k := fmt.Sprintf("stable%d", i); !seen[k] {
			t.Fatalf("SCAN missed %s, present throughout", k)
		}
	}
	clock.Add(time.Second)
	s.Refresh()
	db.Scan(0, 1<<20, func(*Entry) {})
	if db.Len() != 1000 || db.Expires() != 0 {
		t.Fatalf("after a full scan: len %d expires %d, want 1000 and 0", db.Len(), db.Expires())
	}
}

func TestIncrByRawInteger(t *testing.T) {
	tests := []struct {
		in      string
		append  string
		delta   int64
		want    int64
		wantErr error
	}{
		{"1", "0", 5, 15, nil},          // "10" after APPEND is still a number
		{"-1", "2", -1, -13, nil},       // "-12"
		{"1", " ", 1, 0, ErrNotInteger}, // "1 "
		{"0", "1", 1, 0, ErrNotInteger}, // "01": not canonical
		{"922337203685477580", "7", 1, 0, ErrOverflow},
	}
	for _, tt := range tests {
		s := NewString([]byte(tt.in)).Clone().(*String) // its own, not a shared integer
		s.Append([]byte(tt.append))
		got, err := s.IncrBy(tt.delta)
		if err != tt.wantErr || (err == nil && got != tt.want) {
			t.Errorf("%q+%q IncrBy(%d) = %d, %v; want %d, %v", tt.in, tt.append, tt.delta, got, err, tt.want, tt.wantErr)
		}
		if err == nil && s.Encoding() != "int" {
			t.Errorf("%q+%q: encoding %s after INCRBY, want int", tt.in, tt.append, s.Encoding())
		}
	}
}

// TestScanAcrossResizes checks SCAN's guarantee while the key table doubles
// and then shrinks to a fraction between calls (rehashing as it goes).
func TestScanAcrossResizes(t *testing.T) {
	s, _ := newTestStore(time.UnixMilli(0))
	db := s.DB(0)
	for i := 0; i < 500; i++ {
		db.Set([]byte(fmt.Sprintf("stable%d", i)), NewInt(1), 0)
	}
	seen := map[string]bool{}
	var cursor uint64
	for call := 0; ; call++ {
		cursor = db.Scan(cursor, 5, func(e *Entry) { seen[e.Key()] = true })
		switch {
		case call < 20: // grow: 8,000 more keys
			for j := 0; j < 400; j++ {
				db.Set([]byte(fmt.Sprintf("grow%d-%d", call, j)), NewInt(1), 0)
			}
		case call < 40: // shrink: delete them again
			for j := 0; j < 400; j++ {
				db.Delete([]byte(fmt.Sprintf("grow%d-%d", call-20, j)))
			}
		}
		if cursor == 0 {
			break
		}
	}
	for i := 0; i < 500; i++ {
		if k := fmt.Sprintf("stable%d", i); !seen[k] {
			t.Fatalf("SCAN missed %s, present throughout", k)
		}
	}
}

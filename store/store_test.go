package store

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/floodgate/floodgate/internal/redistest"
)

func newTestStore(t0 time.Time) (*Store, *ManualClock) {
	clock := NewManualClock(t0)
	return New(2, clock), clock
}

func TestLazyExpiry(t *testing.T) {
	s, clock := newTestStore(time.UnixMilli(1_000_000))
	db := s.DB(0)
	db.Set([]byte("k"), NewString([]byte("v")), s.Now()+1000)
	tests := []struct {
		advance time.Duration
		live    bool
	}{
		{999 * time.Millisecond, true},
		{time.Millisecond, true}, // exactly at expireAt: Redis expires only once now > when
		{time.Millisecond, false},
	}
	for _, tt := range tests {
		clock.Add(tt.advance)
		s.Refresh()
		if got := db.Exists([]byte("k")); got != tt.live {
			t.Fatalf("after +%v: Exists = %v, want %v", tt.advance, got, tt.live)
		}
	}
	if db.Len() != 0 || db.Expires() != 0 {
		t.Fatalf("expired key not reclaimed on access: len %d expires %d", db.Len(), db.Expires())
	}
}

func TestSnapshotHoldsWithinCommand(t *testing.T) {
	s, clock := newTestStore(time.UnixMilli(5000))
	db := s.DB(0)
	db.Set([]byte("k"), NewInt(1), s.Now()+10)
	clock.Add(time.Second) // the clock moves, but no Refresh: same command/script
	if !db.Exists([]byte("k")) {
		t.Fatal("key expired inside one time snapshot")
	}
	s.Refresh()
	if db.Exists([]byte("k")) {
		t.Fatal("key still visible after the snapshot moved past its TTL")
	}
}

// TestExpiryHeapMatchesModel drives the indexed heap with random TTL
// changes and deletions and checks ActiveExpire against a plain map: within
// the first page of the heap, and over several pages.
func TestExpiryHeapMatchesModel(t *testing.T) {
	t.Parallel() // its own values and generator only
	redistest.SkipUnderRace(t)
	t.Run("one page", func(t *testing.T) { testExpiryHeapMatchesModel(t, 500, 2000, 0) })
	// TTLs long enough that more than a page's worth of keys have one.
	t.Run("pages", func(t *testing.T) { testExpiryHeapMatchesModel(t, 3*expiryPage, 100000, expiryPage) })
}

func testExpiryHeapMatchesModel(t *testing.T, keys, ttlSpan, wantMost int) {
	rng := rand.New(rand.NewPCG(1, 2))
	s, clock := newTestStore(time.UnixMilli(1_000_000))
	db := s.DB(0)
	model := map[string]int64{} // key -> expireAt (0 = persistent)
	most := 0
	for step := 0; step < 20000; step++ {
		key := fmt.Sprintf("k%d", rng.IntN(keys))
		switch op := rng.IntN(10); {
		case op < 4:
			at := int64(0)
			if rng.IntN(3) > 0 {
				at = s.Now() + int64(rng.IntN(ttlSpan)) + 1
			}
			db.Set([]byte(key), NewInt(1), at)
			model[key] = at
		case op < 6:
			if e := db.Get([]byte(key)); e != nil {
				at := s.Now() + int64(rng.IntN(ttlSpan)) + 1
				if rng.IntN(4) == 0 {
					at = 0
				}
				db.SetExpire(e, at)
				model[key] = at
			}
		case op < 7:
			db.Delete([]byte(key))
			delete(model, key)
		default:
			clock.Add(time.Duration(rng.IntN(50)) * time.Millisecond)
			s.ActiveExpire(0)
			for k, at := range model {
				if at != 0 && at < s.Now() {
					delete(model, k)
				}
			}
		}
		if step%1000 == 0 {
			checkModel(t, db, model)
		}
		most = max(most, db.Expires())
	}
	checkModel(t, db, model)
	if most <= wantMost {
		t.Fatalf("at most %d keys had a TTL, want more than %d", most, wantMost)
	}
}

func checkModel(t *testing.T, db *DB, model map[string]int64) {
	t.Helper()
	if db.Len() != len(model) {
		t.Fatalf("store has %d keys, model %d", db.Len(), len(model))
	}
	withTTL := 0
	for k, at := range model {
		e := db.keys.find(k)
		if e == nil || db.ExpireAt(e) != at {
			t.Fatalf("key %s: store %+v, model expireAt %d", k, e, at)
		}
		if at != 0 {
			withTTL++
		}
	}
	if db.Expires() != withTTL {
		t.Fatalf("heap holds %d entries, %d keys have a TTL", db.Expires(), withTTL)
	}
	for i := range db.expiries.len() {
		slot := db.expiries.slot(i)
		if e := slot.e; int(e.heapIdx) != i {
			t.Fatalf("entry %s records heap index %d, is at %d", e.Key(), e.heapIdx, i)
		}
		if slot.due > slot.at {
			t.Fatalf("entry %s due at %d, after its expiry %d", slot.e.Key(), slot.due, slot.at)
		}
		if i > 0 && db.expiries.slot((i-1)/expiryArity).due > slot.due {
			t.Fatalf("heap order broken at %d", i)
		}
	}
	n := 0
	for i, tb := range db.keys.ht {
		for b, e := range tb {
			for ; e != nil; e = e.next {
				if db.keys.hash(e.Key())&uint64(len(tb)-1) != uint64(b) {
					t.Fatalf("entry %s in bucket %d of table %d, hashes elsewhere", e.Key(), b, i)
				}
				n++
			}
		}
	}
	if n != db.keys.len() {
		t.Fatalf("table holds %d entries, counts %d", n, db.keys.len())
	}
}

func TestActiveExpireReclaimsOnlyExpired(t *testing.T) {
	s, clock := newTestStore(time.UnixMilli(0))
	db := s.DB(1)
	for i := 0; i < 10000; i++ {
		at := int64(0)
		if i%100 == 0 {
			at = s.Now() + 500
		}
		db.Set([]byte(fmt.Sprint(i)), NewInt(int64(i)), at)
	}
	clock.Add(time.Second)
	if n, _ := s.ActiveExpire(0); n != 100 {
		t.Fatalf("ActiveExpire deleted %d keys, want 100", n)
	}
	if db.Len() != 9900 || db.Expires() != 0 {
		t.Fatalf("after expiry: %d keys, %d with TTL", db.Len(), db.Expires())
	}
}

func TestActiveExpireLimit(t *testing.T) {
	s, clock := newTestStore(time.UnixMilli(0))
	for i := 0; i < 50; i++ {
		s.DB(0).Set([]byte(fmt.Sprint(i)), NewInt(1), 10)
	}
	clock.Add(time.Second)
	if n, more := s.ActiveExpire(20); n != 20 || !more {
		t.Fatalf("limited ActiveExpire deleted %d (more %v), want 20 and more", n, more)
	}
	if n, more := s.ActiveExpire(0); n != 30 || more {
		t.Fatalf("second ActiveExpire deleted %d (more %v), want 30 and no more", n, more)
	}
}

// TestActiveExpireLaterTTL: a TTL moved later leaves the key where it was in
// the heap (expiryHeap sorts it lazily); when its old due time comes active
// expiry keeps it, counts the re-sort as a step of its limit, and deletes
// it at its real expiry, while TTLs that moved earlier go at theirs.
func TestActiveExpireLaterTTL(t *testing.T) {
	s, clock := newTestStore(time.UnixMilli(0))
	db := s.DB(0)
	for i := range 30 {
		db.Set([]byte(fmt.Sprint("later", i)), NewInt(1), 100)
	}
	db.Set([]byte("earlier"), NewInt(1), 5000)
	for i := range 30 {
		db.SetExpire(db.Get([]byte(fmt.Sprint("later", i))), 2000+int64(i))
	}
	db.SetExpire(db.Get([]byte("earlier")), 150)
	clock.Add(time.Second)
	if n, more := s.ActiveExpire(20); n != 0 || !more {
		t.Fatalf("ActiveExpire(20) at 1 s deleted %d (more %v), want 20 re-sorts and more", n, more)
	}
	if n, more := s.ActiveExpire(0); n != 1 || more || db.Exists([]byte("earlier")) {
		t.Fatalf("ActiveExpire at 1 s deleted %d (more %v), want earlier only", n, more)
	}
	checkModel(t, db, func() map[string]int64 {
		m := map[string]int64{}
		for i := range 30 {
			m[fmt.Sprint("later", i)] = 2000 + int64(i)
		}
		return m
	}())
	if top := db.expiries.slot(0); top.due != top.at {
		t.Fatalf("after the re-sort the top is due at %d, expires at %d", top.due, top.at)
	}
	clock.Add(1015 * time.Millisecond) // 2015 ms: later0..later14 have expired
	if n, _ := s.ActiveExpire(0); n != 15 || db.Len() != 15 {
		t.Fatalf("ActiveExpire at 2015 ms deleted %d, %d keys left; want 15 and 15", n, db.Len())
	}
}

func TestShrinkAfterMassExpiry(t *testing.T) {
	s, clock := newTestStore(time.UnixMilli(0))
	db := s.DB(0)
	for i := 0; i < 100000; i++ {
		db.Set([]byte(fmt.Sprint(i)), NewInt(1), 1000)
	}
	db.Set([]byte("survivor"), NewInt(7), 0)
	clock.Add(2 * time.Second)
	s.ActiveExpire(0)
	for range 100 { // the cron's share of the rehash, as the server calls it
		s.Shrink()
	}
	if db.Len() != 1 || len(db.keys.ht[0])+len(db.keys.ht[1]) > 8 || db.expiries.bytes() > 64<<10 {
		t.Fatalf("after mass expiry: len %d, buckets %d+%d, expiry heap %d bytes", db.Len(), len(db.keys.ht[0]), len(db.keys.ht[1]), db.expiries.bytes())
	}
	if e := db.Get([]byte("survivor")); e == nil {
		t.Fatal("survivor lost in shrink")
	}
}

// TestScanGuarantee checks SCAN's promise: a key present for the whole scan
// is returned, even while other keys are deleted and added between calls.
func TestScanGuarantee(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s, _ := newTestStore(time.UnixMilli(0))
	db := s.DB(0)
	for i := 0; i < 2000; i++ {
		db.Set([]byte(fmt.Sprintf("stable%d", i)), NewInt(1), 0)
		db.Set([]byte(fmt.Sprintf("churn%d", i)), NewInt(1), 0)
	}
	seen := map[string]bool{}
	var cursor uint64
	next := 0
	for {
		cursor = db.Scan(cursor, 10, func(e *Entry) { seen[e.Key()] = true })
		for j := 0; j < 5; j++ { // churn between calls
			db.Delete([]byte(fmt.Sprintf("churn%d", rng.IntN(2000))))
			db.Set([]byte(fmt.Sprintf("new%d", next)), NewInt(1), 0)
			next++
		}
		if cursor == 0 {
			break
		}
	}
	for i := 0; i < 2000; i++ {
		if k := fmt.Sprintf("stable%d", i); !seen[k] {
			t.Fatalf("SCAN missed %s, present throughout", k)
		}
	}
}

func TestSwapDBAndFlushTouchWatchers(t *testing.T) {
	s, _ := newTestStore(time.UnixMilli(0))
	var dirty0, dirty1 bool
	// Only keys that exist in either database count (Redis 7.0).
	s.DB(0).Set([]byte("a"), NewInt(1), 0)
	s.DB(1).Set([]byte("b"), NewInt(1), 0)
	s.DB(0).Watch("a", &dirty0)
	s.DB(1).Watch("b", &dirty1)
	s.SwapDB(0, 1)
	if !dirty0 || !dirty1 {
		t.Fatalf("SWAPDB: watchers dirty = %v, %v", dirty0, dirty1)
	}
	dirty0 = false
	s.DB(0).Set([]byte("other"), NewInt(1), 0)
	if dirty0 {
		t.Fatal("writing another key dirtied the watcher")
	}
	s.DB(0).Set([]byte("a"), NewInt(1), 0)
	if !dirty0 {
		t.Fatal("writing the watched key did not dirty the watcher")
	}
	s.DB(0).Unwatch("a", &dirty0)
	dirty0 = false
	s.DB(0).Flush()
	if dirty0 {
		t.Fatal("unwatched key still notified")
	}
}

func TestStringEncodings(t *testing.T) {
	tests := []struct {
		in   string
		mut  func(*String)
		want string
	}{
		{"12345", nil, "int"},
		{"0123", nil, "embstr"},
		{"hello", nil, "embstr"},
		{string(make([]byte, 45)), nil, "raw"},
		{"12", func(s *String) { s.Append([]byte("3")) }, "raw"},
		{"\x01", nil, "embstr"}, // held in n, where 1 is rawBytes
		{"hello", func(s *String) { s.Append([]byte("!")) }, "raw"},
		{"\x01", func(s *String) { s.SetRange(0, []byte("x")) }, "raw"},
		{"abc", func(s *String) { s.SetBytes([]byte("\x01")) }, "embstr"},
	}
	for _, tt := range tests {
		s := NewString([]byte(tt.in))
		if tt.mut != nil {
			own := *s // not the shared integer
			s = &own
			tt.mut(s)
		}
		if got := s.Encoding(); got != tt.want {
			t.Errorf("Encoding(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// A short byte string holds its bytes in the String itself: one
// allocation, 32 bytes, and every change or copy keeps its bytes its own.
func TestStringEmbedded(t *testing.T) {
	for _, in := range []string{"v", "\x01", "abcdefg", "abcdefgh", "abcdefghi", "0123", strings.Repeat("x", 100)} {
		short := len(in) <= embedMax
		b := []byte(in)
		if got := testing.AllocsPerRun(20, func() { NewString(b) }); short && got != 1 {
			t.Errorf("NewString(%q): %v allocations, want 1", in, got)
		}
		s := NewString([]byte(in))
		if s.embedded() != short || string(s.Bytes()) != in || s.Len() != len(in) {
			t.Fatalf("NewString(%q): embedded %v, bytes %q", in, s.embedded(), s.Bytes())
		}
		if want := 32 + allocSize(len(in)); short && s.MemSize() != 32 || !short && s.MemSize() != want {
			t.Errorf("NewString(%q).MemSize() = %d", in, s.MemSize())
		}
		c := s.Clone().(*String)
		s.SetBytes([]byte("zz"))
		if string(c.Bytes()) != in || c.Encoding() != NewString([]byte(in)).Encoding() {
			t.Errorf("the clone of %q changed with the original: %q, %s", in, c.Bytes(), c.Encoding())
		}
		if string(s.Bytes()) != "zz" || !s.embedded() {
			t.Errorf("SetBytes: %q, embedded %v", s.Bytes(), s.embedded())
		}
		if n := c.Append([]byte("+")); n != len(in)+1 || string(c.Bytes()) != in+"+" || c.embedded() || c.Encoding() != "raw" {
			t.Errorf("Append to %q: %q, embedded %v, %s", in, c.Bytes(), c.embedded(), c.Encoding())
		}
	}
}

func TestRandomKeySkipsExpired(t *testing.T) {
	s, clock := newTestStore(time.UnixMilli(0))
	db := s.DB(0)
	for i := 0; i < 100; i++ {
		db.Set([]byte(fmt.Sprint(i)), NewInt(1), 10)
	}
	db.Set([]byte("live"), NewInt(1), 0)
	clock.Add(time.Second)
	s.Refresh()
	k, ok := db.RandomKey()
	if !ok || k != "live" {
		t.Fatalf("RandomKey = %q, %v; want live", k, ok)
	}
	keys := []string{}
	db.Each(func(e *Entry) { keys = append(keys, e.Key()) })
	sort.Strings(keys)
	if len(keys) != 1 {
		t.Fatalf("Each visited %v", keys)
	}
}

// TestSharedIntegers checks that keys holding the same small integer share
// one value, that INCR on one of them leaves the others alone, and that the
// accounting charges nothing for a shared value.
func TestSharedIntegers(t *testing.T) {
	s, _ := newTestStore(time.UnixMilli(0))
	db := s.DB(0)
	for _, k := range []string{"a", "b", "c"} {
		if _, err := db.IncrBy([]byte(k), 1); err != nil {
			t.Fatal(err)
		}
	}
	if db.Get([]byte("a")).Value() != db.Get([]byte("b")).Value() {
		t.Fatal("two keys at 1 do not share their value")
	}
	for _, tc := range []struct {
		delta int64
		want  int64
	}{{1, 2}, {9997, 9999}, {1, 10000}, {1, 10001}, {-10001, 0}, {-1, -1}} {
		n, err := db.IncrBy([]byte("a"), tc.delta)
		if err != nil || n != tc.want {
			t.Fatalf("IncrBy(a, %d) = %d, %v; want %d", tc.delta, n, err, tc.want)
		}
		for _, k := range []string{"b", "c"} {
			if got, _ := db.Get([]byte(k)).Value().(*String).Int(); got != 1 {
				t.Fatalf("after IncrBy(a, %d): %s = %d, want 1", tc.delta, k, got)
			}
		}
	}
	before := s.Used()
	db.IncrBy([]byte("b"), 1) // 1 -> 2: both shared, no charge
	if s.Used() != before {
		t.Fatalf("used %d -> %d for a shared integer's change", before, s.Used())
	}
	db.IncrBy([]byte("b"), 20000)
	if s.Used() != before+32 {
		t.Fatalf("used %d -> %d, want +32 for a value of its own", before, s.Used())
	}
}

// heapPerEntry is what the allocator hands out for an entry of key (its
// size class), measured over many entries (the fewest bytes of a few
// tries: fewestOf).
func heapPerEntry(key []byte) uint64 {
	const n = 1000
	return fewestOf(func() uint64 {
		entries := make([]*Entry, n)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range entries {
			entries[i] = newEntry(key)
		}
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(entries)
		return (after.TotalAlloc - before.TotalAlloc) / n
	})
}

// TestInlineKeys checks keys of every length, inline in each entry class
// and in entryLong, and that each class fills a Go size class.
func TestInlineKeys(t *testing.T) {
	for _, c := range []struct {
		name      string
		size, fit uintptr
	}{
		{"Entry", unsafe.Sizeof(Entry{}), 48},
		{"entry64", unsafe.Sizeof(entry64{}), 64},
		{"entry80", unsafe.Sizeof(entry80{}), 80},
		{"entry96", unsafe.Sizeof(entry96{}), 96},
		{"entry112", unsafe.Sizeof(entry112{}), 112},
		{"entry128", unsafe.Sizeof(entry128{}), 128},
	} {
		if c.size != c.fit {
			t.Errorf("%s is %d bytes, want %d", c.name, c.size, c.fit)
		}
	}
	// The header packs to 34 bytes, so a key of up to 14 bytes ("k1234",
	// "rate:ip:123456", "setkey:9999") fits the 48-byte class and one of up
	// to 30 the 64-byte one; each key length gets the smallest class it fits.
	if entryHeader != 34 {
		t.Errorf("Entry's header is %d bytes, want 34", entryHeader)
	}
	for _, c := range []struct{ keyLen, alloc int }{
		{0, 48}, {5, 48}, {14, 48}, {15, 64}, {22, 64}, {30, 64}, {31, 80},
		{46, 80}, {47, 96}, {62, 96}, {63, 112}, {78, 112}, {79, 128}, {94, 128},
	} {
		e := newEntry(make([]byte, c.keyLen))
		if got := e.allocated(); got != c.alloc {
			t.Errorf("a %d-byte key: allocated() = %d, want %d", c.keyLen, got, c.alloc)
		}
		if e.klen == longKey {
			t.Errorf("a %d-byte key is not inline", c.keyLen)
		}
		if got := heapPerEntry(make([]byte, c.keyLen)); got != uint64(c.alloc) {
			t.Errorf("a %d-byte key: the heap grows by %d bytes an entry, want %d", c.keyLen, got, c.alloc)
		}
	}
	if e := newEntry(make([]byte, 95)); e.klen != longKey {
		t.Error("a 95-byte key is inline, past the largest class")
	}
	s, _ := newTestStore(time.UnixMilli(0))
	db := s.DB(0)
	key := func(n int) []byte { return []byte(strings.Repeat("k", n)) }
	for n := 0; n < 300; n++ {
		db.Set(key(n), NewInt(int64(n)), 0)
	}
	for n := 0; n < 300; n++ {
		e := db.Get(key(n))
		if e == nil || e.Key() != string(key(n)) {
			t.Fatalf("key of length %d lost", len(key(n)))
		}
		if got, _ := e.Value().(*String).Int(); got != int64(n) {
			t.Fatalf("key of length %d holds %d", len(key(n)), got)
		}
	}
	for n := 0; n < 300; n += 2 {
		db.Delete(key(n))
	}
	if db.Len() != 150 {
		t.Fatalf("%d keys left, want 150", db.Len())
	}
}

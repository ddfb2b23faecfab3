// Package store holds floodgate's keyspace: databases of typed values with
// millisecond expiry driven by an injectable Clock, and the keyspace
// operations commands perform (DB.IncrBy, DB.ZAdd, DB.HSet, ValueAt), which
// the server's handlers and the test double (servertest) share. It knows
// nothing of the network or the protocol: it returns Go values and errors
// whose text is Redis's reply. Callers serialize access (the server holds
// one lock while a command, script or transaction runs).
package store

import (
	"iter"
	"math/rand/v2"
	"runtime/debug"
	"time"
	"unsafe"
)

// Kind is the type of a value, as TYPE reports it.
type Kind uint8

// The kinds of value a key can hold.
const (
	KindNone Kind = iota
	KindString
	KindList
	KindSet
	KindZSet
	KindHash
	KindStream
)

var kindNames = [...]string{"none", "string", "list", "set", "zset", "hash", "stream"}

// String returns the name TYPE replies with.
func (k Kind) String() string { return kindNames[k] }

// Value is what a key holds.
type Value interface {
	Kind() Kind
	// Clone returns a deep copy (COPY).
	Clone() Value
	// Encoding returns the internal representation's name as OBJECT
	// ENCODING reports it ("int", "embstr", "raw", "listpack", "skiplist",
	// "hashtable", "intset").
	Encoding() string
}

// Entry is one key of a database. Callers may change its value in place
// (and must then call DB.Modified); expiry is changed only through the DB so
// that the expiry index stays right.
//
// The value is kept as a pointer and its Kind rather than as a Value
// interface: every value type is a pointer, so the kind byte says which,
// and the header is 8 bytes smaller (Value rebuilds the interface); the
// expiry lives in the expiry heap's slot (DB.ExpireAt), 8 bytes more. The
// key's bytes live in the same allocation, from kbuf on (newEntry
// allocates one of the entryN types, whose tail holds the rest of them):
// a key of up to 14 bytes makes a 48-byte entry, one of up to 30 bytes a
// 64-byte one, with no string header and no allocation of its own. Longer keys than the largest class go in
// entryLong's string.
type Entry struct {
	val     unsafe.Pointer // the value, of the type kind says
	next    *Entry         // in its keyTable bucket
	heapIdx int32          // its slot in DB.expiries, which holds its expiry; -1 when persistent
	access  uint32         // LRU clock or LFU counter of the last access, see touch
	size    uint32         // bytes charged to Store.Used, see account
	snap    uint32         // the epoch of the last Snapshot that saved or kept it
	kind    Kind           // val's type
	klen    uint8          // the key's length, or longKey
	kbuf    [14]byte
}

// Access returns the entry's access field, Redis's robj lru: the LRU
// clock of its last access, or its LFU data under an LFU policy.
func (e *Entry) Access() uint32 { return e.access }

// Value returns the key's value.
func (e *Entry) Value() Value {
	switch e.kind {
	case KindString:
		return (*String)(e.val)
	case KindList:
		return (*List)(e.val)
	case KindSet:
		return (*Set)(e.val)
	case KindZSet:
		return (*ZSet)(e.val)
	case KindHash:
		return (*Hash)(e.val)
	case KindStream:
		return (*Stream)(e.val)
	}
	return nil
}

// Kind returns the type of the key's value, as TYPE reports it.
func (e *Entry) Kind() Kind { return e.kind }

// SetValue replaces the key's value in place (the caller then calls
// DB.Modified, as for any change in place).
func (e *Entry) SetValue(v Value) {
	switch v := v.(type) {
	case *String:
		e.val, e.kind = unsafe.Pointer(v), KindString
	case *List:
		e.val, e.kind = unsafe.Pointer(v), KindList
	case *Set:
		e.val, e.kind = unsafe.Pointer(v), KindSet
	case *ZSet:
		e.val, e.kind = unsafe.Pointer(v), KindZSet
	case *Hash:
		e.val, e.kind = unsafe.Pointer(v), KindHash
	case *Stream:
		e.val, e.kind = unsafe.Pointer(v), KindStream
	default:
		panic("store: a value of an unknown type")
	}
}

// str returns the value if it is a string: the hot paths' test, with no
// interface to build.
func (e *Entry) str() (*String, bool) {
	if e.kind != KindString {
		return nil, false
	}
	return (*String)(e.val), true
}

// setStr is SetValue for a string, without the type switch.
func (e *Entry) setStr(s *String) { e.val, e.kind = unsafe.Pointer(s), KindString }

// The entry classes: an Entry with room for a longer key after it, each
// filling a Go size class.
type (
	entry64 struct {
		Entry
		_ [16]byte
	}
	entry80 struct {
		Entry
		_ [32]byte
	}
	entry96 struct {
		Entry
		_ [48]byte
	}
	entry112 struct {
		Entry
		_ [64]byte
	}
	entry128 struct {
		Entry
		_ [80]byte
	}
	entryLong struct {
		Entry
		key string
	}
)

const (
	entryHeader = unsafe.Offsetof(Entry{}.kbuf)
	longKey     = 1<<8 - 1
)

// newEntry returns an entry for key, its bytes copied in.
func newEntry(key []byte) *Entry {
	var e *Entry
	switch n := uintptr(len(key)); {
	case n <= unsafe.Sizeof(Entry{})-entryHeader:
		e = new(Entry)
	case n <= unsafe.Sizeof(entry64{})-entryHeader:
		e = &new(entry64).Entry
	case n <= unsafe.Sizeof(entry80{})-entryHeader:
		e = &new(entry80).Entry
	case n <= unsafe.Sizeof(entry96{})-entryHeader:
		e = &new(entry96).Entry
	case n <= unsafe.Sizeof(entry112{})-entryHeader:
		e = &new(entry112).Entry
	case n <= unsafe.Sizeof(entry128{})-entryHeader:
		e = &new(entry128).Entry
	default:
		l := &entryLong{key: string(key)}
		l.klen = longKey
		return &l.Entry
	}
	e.klen = uint8(len(key))
	copy(unsafe.Slice(&e.kbuf[0], len(key)), key)
	return e
}

// Key returns the key's name. The string shares the entry's memory.
func (e *Entry) Key() string {
	if e.klen == longKey {
		return (*entryLong)(unsafe.Pointer(e)).key
	}
	return unsafe.String(&e.kbuf[0], e.klen)
}

// allocated is the size of e's allocation, key included, for the
// accounting.
func (e *Entry) allocated() int {
	if e.klen == longKey {
		return allocSize(int(unsafe.Sizeof(entryLong{}))) + allocSize(len((*entryLong)(unsafe.Pointer(e)).key))
	}
	return allocSize(int(entryHeader) + int(e.klen))
}

// ExpireAt returns e's expiry in unix milliseconds, or 0 if it has none
// (or is no longer in the database): the expiry heap holds it.
func (db *DB) ExpireAt(e *Entry) int64 {
	if e.heapIdx < 0 {
		return 0
	}
	return db.expiries.slot(int(e.heapIdx)).at
}

// TouchedKey is a key Modified signalled (see Store.TrackTouched).
type TouchedKey struct {
	DB  int
	Key string
}

// Store is a set of numbered databases sharing one clock.
type Store struct {
	lookupStats // keyspace hits and misses, lookups.go
	clock       Clock
	dbs         []*DB
	now         int64 // unix ms snapshot, see Refresh
	nanos       int64 // the same snapshot in unix ns, for CL.THROTTLE's GCRA
	// rng and its source are the Store's own (rng reads &src): two
	// allocations fewer for every test double started.
	rng   rand.Rand
	src   rand.PCG  // rng's source, kept so Seed can reset it in place
	snap  *Snapshot // the open snapshot, if any (snapshot.go)
	epoch uint32    // of the last snapshot begun
	dirty int64     // changes so far, for save points (Dirty)

	// OnExpire, when set, is told of every key deleted because its time
	// had passed, lazily or by ActiveExpire, so the server can log a DEL
	// for it (Redis's deleteExpiredKeyAndPropagate).
	OnExpire func(db int, key string)
	// OnDeleteTime, when set (the server sets it while its latency monitor
	// is on), is told how long each deletion by expiry or eviction took:
	// Redis's expire-del and eviction-del latency events.
	OnDeleteTime func(evicted bool, took time.Duration)
	// HoldExpired, while set (the server sets it during CLIENT PAUSE), has
	// a key whose time has passed reported missing but neither deleted nor
	// counted, as Redis's expireIfNeeded keeps the dataset constant while
	// clients are paused: the key expires once the pause is over.
	HoldExpired bool
	// ExpiredLive, while set, has keys past their time read as live: a
	// replica runs its master's commands so, as Redis's expireIfNeeded
	// does for the master client, for the master decides when a key is
	// gone (its DEL must find the key to delete it).
	ExpiredLive bool
	// Touched, while TrackTouched is set, collects the keys Modified
	// signals: what the server logs the state of after serving a blocked
	// client, whose pop no command line describes.
	TrackTouched bool
	Touched      []TouchedKey
	// OnInvalidate, when set, is told of every key that changed or was
	// deleted (byCommand) and of every key that expired or was evicted
	// (!byCommand, where Redis's signalModifiedKey has no client): where
	// Redis calls trackingInvalidateKey, for client-side caching. The
	// server sets it once a client first turns tracking on (Redis creates
	// its tracking table then), so a store nobody tracks pays a nil check.
	OnInvalidate func(key []byte, byCommand bool)
	// OnReady, when set, is called whenever a list, a sorted set or a stream is
	// stored at a key (Redis's signalKeyAsReady from dbAdd): a client
	// blocked on that key may now be served. It is called too when a
	// stream is deleted or overwritten, for its XREADGROUP readers to fail.
	OnReady func(db *DB, key string)
	// OnMiss, when set, is told of every read lookup (one counted as a
	// keyspace hit or miss) that finds no live key: Redis's keymiss event.
	OnMiss func(db int, key []byte)
	// OnNew, when set, is told of every key added where none was (Redis's
	// dbAdd and its "new" event), before the value is written.
	OnNew func(db int, key string)
	used  int64 // accounted memory, see memsize.go
	// expiredBytes is the accounted memory active expiry has freed since
	// memory was last given back to the system.
	expiredBytes int64
	evict        EvictionConfig
	enc          Encodings                      // see encodings.go
	pool         *[evictPoolSize]evictCandidate // made by the first eviction: 512 B a store that never evicts need not zero
	samples      []*Entry                       // populatePool's, reused
	nextDB       int                            // the random policies' round-robin over databases
	bounded      bool                           // maxmemory is set, see SetBounded
}

// New returns a store with n databases reading time from clock (RealClock if nil).
func New(n int, clock Clock) *Store {
	if clock == nil {
		clock = RealClock{}
	}
	s := &Store{clock: clock, src: *rand.NewPCG(rand.Uint64(), rand.Uint64()), evict: DefaultEviction, enc: DefaultEncodings}
	s.rng = *rand.New(&s.src)
	// Database 0 now, the others with their first use (DB): a test
	// double starts 16 per test and most tests touch one (2.3 KB, a fifth
	// of a test double's start).
	s.dbs = make([]*DB, n)
	s.newDB(0)
	s.Refresh()
	return s
}

// newDB makes database i.
func (s *Store) newDB(i int) *DB {
	d := &DB{store: s, index: i, keys: newKeyTable()}
	s.dbs[i] = d
	return d
}

// Clock returns the store's clock.
func (s *Store) Clock() Clock { return s.clock }

// Refresh takes a new time snapshot. Like Redis, every key access within one
// command (or one whole script) judges expiry against the same instant, so a
// key cannot vanish half-way through a script.
func (s *Store) Refresh() {
	t := s.clock.Now()
	s.now, s.nanos = t.UnixMilli(), t.UnixNano()
}

// Now returns the current time snapshot in unix milliseconds.
func (s *Store) Now() int64 { return s.now }

// Dirty returns how many changes the store has seen (Redis's server.dirty,
// for save points and rdb_changes_since_last_save).
func (s *Store) Dirty() int64 { return s.dirty }

// MarkDirty counts a change outside the keyspace (FUNCTION LOAD), as
// Redis's server.dirty++.
func (s *Store) MarkDirty() { s.dirty++ }

// epochIfOpen is the mark of entries born during an open snapshot.
func (s *Store) epochIfOpen() uint32 {
	if s.snap != nil {
		return s.epoch
	}
	return 0
}

// Databases returns how many databases the store has.
func (s *Store) Databases() int { return len(s.dbs) }

// DB returns database i; it panics if i is out of range (see Databases).
// A database other than 0 is made with its first use, so call it with
// the execution lock held, as anything that touches the keyspace.
func (s *Store) DB(i int) *DB {
	if d := s.dbs[i]; d != nil {
		return d
	}
	return s.newDB(i)
}

// usedDBs yields the databases made so far, in order: one never used (DB
// makes it) is empty.
func (s *Store) usedDBs() iter.Seq[*DB] {
	return func(yield func(*DB) bool) {
		for _, d := range s.dbs {
			if d != nil && !yield(d) {
				return
			}
		}
	}
}

// SwapDB exchanges the contents of databases a and b.
func (s *Store) SwapDB(a, b int) {
	da, db := s.DB(a), s.DB(b)
	if a == b {
		return
	}
	s.dirty++
	s.snapshotSwap(a, b)
	da.touchExisting(db)
	db.touchExisting(da)
	da.keys, db.keys = db.keys, da.keys
	da.expiries, db.expiries = db.expiries, da.expiries
}

// FlushAll empties every database.
func (s *Store) FlushAll() {
	for d := range s.usedDBs() {
		d.Flush()
	}
}

// ActiveExpire deletes keys whose time has passed and returns how many it
// deleted, and whether it stopped at limit with more due (limit <= 0: no
// limit). limit bounds its steps: a deletion, or a key whose due time came
// with its TTL moved later since, sorted down to its new expiry (see
// expiryHeap). It costs O(log n) per step and nothing per live key, so a
// keyspace of millions of short-lived per-IP counters is reclaimed without
// anyone reading them.
func (s *Store) ActiveExpire(limit int) (deleted int, more bool) {
	s.Refresh()
	steps := 0
	for d := range s.usedDBs() {
		for d.expiries.len() > 0 && d.expiries.slot(0).due < s.now {
			if limit > 0 && steps >= limit {
				return deleted, true
			}
			steps++
			top := d.expiries.slot(0)
			if top.at >= s.now {
				d.expiries.resort()
				continue
			}
			e := top.e
			s.expiredBytes += int64(e.size)
			d.expire(e)
			deleted++
		}
		d.keys.rehashSome(cronRehash)
	}
	// The Go runtime returns freed pages to the system only slowly (its
	// scavenger keeps 10% over the heap goal): a limiter that just shed a
	// million expired counters gives their memory back now, once more
	// has expired than is left. In the background: it runs a GC.
	if s.expiredBytes >= 4<<20 && s.expiredBytes > s.used {
		s.expiredBytes = 0
		go debug.FreeOSMemory()
	}
	return deleted, false
}

// Shrink goes on shrinking the key tables of databases that deletions
// left mostly empty, so their old bucket arrays are freed (eviction calls
// it; active expiry does on its own).
func (s *Store) Shrink() {
	for d := range s.usedDBs() {
		d.keys.rehashSome(cronRehash)
	}
}

// cronRehash is how many buckets of a resize ActiveExpire and Shrink move
// per database per call: about a millisecond's work, as Redis's cron.
const cronRehash = 10000

// DB is one numbered database.
type DB struct {
	store    *Store
	index    int
	keys     keyTable
	expiries expiryHeap
	watched  map[string][]*watcher
}

// Index returns the database number.
func (db *DB) Index() int { return db.index }

// Store returns the store the database belongs to.
func (db *DB) Store() *Store { return db.store }

// Len returns the number of keys, expired ones not yet reclaimed included
// (as Redis's DBSIZE).
func (db *DB) Len() int { return db.keys.len() }

// Expires returns how many keys have a TTL.
func (db *DB) Expires() int { return db.expiries.len() }

// AvgTTL returns the mean remaining TTL of the keys that have one, in
// milliseconds (0 for none), exact where Redis's avg_ttl is sampled.
func (db *DB) AvgTTL() int64 { return db.expiries.avgTTL(db.store.now) }

func (db *DB) expired(e *Entry) bool {
	return e.heapIdx >= 0 && db.expiries.slot(int(e.heapIdx)).at < db.store.now && !db.store.ExpiredLive
}

// Get returns the live entry for key, or nil, and records the access for
// eviction (Redis's lookupKey). An expired key is deleted on the way (lazy
// expiry), so it is never visible.
func (db *DB) Get(key []byte) *Entry { return db.touched(db.Peek(key)) }

// touched records an access of e, if not nil, and returns it.
func (db *DB) touched(e *Entry) *Entry {
	if e != nil {
		db.store.touch(e)
	}
	return e
}

// Peek is Get without recording an access, for the commands Redis looks
// keys up for with LOOKUP_NOTOUCH (TYPE, TTL, EXISTS, OBJECT).
func (db *DB) Peek(key []byte) *Entry {
	e := db.live(key)
	if db.store.countLookups {
		db.store.countLookup(e != nil)
		if e == nil && db.store.OnMiss != nil {
			db.store.OnMiss(db.index, key)
		}
	}
	return e
}

// GetWrite is Get for a write path, Redis's lookupKeyWrite: an access,
// but no keyspace hit or miss and no keymiss event.
func (db *DB) GetWrite(key []byte) *Entry { return db.touched(db.live(key)) }

// PeekQuiet is Peek raising no keymiss (OnMiss) for a missing key, as
// OBJECT looks keys up (LOOKUP_NOTOUCH|LOOKUP_NONOTIFY): still a hit or
// miss.
func (db *DB) PeekQuiet(key []byte) *Entry {
	miss := db.store.OnMiss
	db.store.OnMiss = nil
	e := db.Peek(key)
	db.store.OnMiss = miss
	return e
}

// live is Peek for the store's own write paths, whose lookups are not
// keyspace hits or misses (Redis's lookupKeyWrite).
func (db *DB) live(key []byte) *Entry {
	e := db.keys.findBytes(key)
	if e != nil && db.expired(e) {
		db.lazyExpire(e)
		e = nil
	}
	return e
}

// lazyExpire deletes an entry a lookup found past its time, unless
// HoldExpired holds it.
func (db *DB) lazyExpire(e *Entry) {
	if !db.store.HoldExpired {
		db.expire(e)
	}
}

// GetString is Get for a string key.
func (db *DB) GetString(key string) *Entry {
	e := db.keys.find(key)
	if e != nil && db.expired(e) {
		db.lazyExpire(e)
		e = nil
	}
	if db.store.countLookups {
		db.store.countLookup(e != nil)
		if e == nil && db.store.OnMiss != nil {
			db.store.OnMiss(db.index, []byte(key))
		}
	}
	if e != nil {
		db.store.touch(e)
	}
	return e
}

// Reserve makes room for n keys in an empty database, as Redis's loader
// expands its dict on RESIZEDB: a million-key load then never resizes.
func (db *DB) Reserve(n int) { db.keys.reserve(n) }

// ExpectKeys says that up to n new keys may follow (MSET's), until
// ExpectKeys(0): the key table grows once for all of them if it must grow.
func (db *DB) ExpectKeys(n int) { db.keys.expect(n) }

// Exists reports whether key is live.
func (db *DB) Exists(key []byte) bool { return db.Peek(key) != nil }

// Set stores v at key, replacing any value, and sets its expiry (0: none).
// It returns the entry.
func (db *DB) Set(key []byte, v Value, expireAt int64) *Entry {
	if s, ok := v.(*String); ok && s.isShared() && !db.store.sharing() {
		v = ownInt(s.n)
	}
	return db.set(key, v, expireAt, true)
}

// Add stores v at key, which holds no live value, without counting a change
// or telling the key's watchers: Redis's dbAdd, for the commands that then
// write into the new value and count what they changed themselves
// (SETBIT, SETRANGE, BITFIELD call Modified or ModifiedBy). A BITFIELD whose
// every write overflows with FAIL leaves the key created but uncounted, as
// in Redis.
func (db *DB) Add(key []byte, v Value) *Entry {
	if s, ok := v.(*String); ok && s.isShared() && !db.store.sharing() {
		v = ownInt(s.n)
	}
	return db.set(key, v, 0, false)
}

// Put is Get then Set with one lookup of the key, as Redis's setKey
// looks the key up for writing and then adds or overwrites it: a
// 1M-key MSET spent a sixth of its time looking each key up again.
func (db *DB) Put(key []byte, v Value) *Entry {
	e := db.GetWrite(key)
	if e == nil && db.store.HoldExpired {
		e = db.keys.findBytes(key) // an expired entry Get left in place
	}
	if s, ok := v.(*String); ok && s.isShared() && !db.store.sharing() {
		v = ownInt(s.n)
	}
	return db.setFound(e, key, v, 0, true)
}

func (db *DB) set(key []byte, v Value, expireAt int64, counted bool) *Entry {
	return db.setFound(db.keys.findBytes(key), key, v, expireAt, counted)
}

// setFound is set with the lookup done: e is key's entry, or nil.
func (db *DB) setFound(e *Entry, key []byte, v Value, expireAt int64, counted bool) *Entry {
	wasStream := e != nil && e.Kind() == KindStream
	if e == nil {
		e = newEntry(key)
		e.heapIdx, e.access, e.snap = -1, db.store.newAccess(), db.store.epochIfOpen()
		db.keys.insert(e)
		if db.store.OnNew != nil {
			db.store.OnNew(db.index, e.Key())
		}
	} else {
		if sn := db.store.snap; sn != nil {
			sn.keep(e, db.index, false)
		}
		if !db.store.evict.Policy.LFU() {
			// Redis's new value carries the LRU clock of its creation, while
			// dbOverwrite hands the old LFU counter on (the lookup before the
			// write, Get here, counted the access).
			e.access = db.store.lruClock()
		}
	}
	e.SetValue(v)
	db.setExpire(e, expireAt)
	if counted {
		db.notifyWatchers(key)
	}
	if db.store.OnReady != nil {
		// A stream overwritten by another type wakes its XREADGROUP
		// readers too, to fail them (dbOverwrite's signalKeyAsReady).
		if k := v.Kind(); k == KindList || k == KindZSet || k == KindStream || wasStream {
			db.store.OnReady(db, e.Key())
		}
	}
	return e
}

// SetMoved is Set for a value moved from the entry from (RENAME, MOVE):
// Redis moves the object itself, so the key keeps from's access data
// (OBJECT FREQ, IDLETIME).
func (db *DB) SetMoved(key []byte, v Value, expireAt int64, from *Entry) *Entry {
	access := from.access
	e := db.set(key, v, expireAt, true) // the object itself: a shared one stays shared
	e.access = access
	return e
}

// SetKeepTTL stores v at key keeping the existing TTL of a live key.
func (db *DB) SetKeepTTL(key []byte, v Value) *Entry {
	var at int64
	if e := db.live(key); e != nil { // the caller's lookup was the access
		at = db.ExpireAt(e)
	}
	return db.Set(key, v, at)
}

// Delete removes key and reports whether it was live.
func (db *DB) Delete(key []byte) bool {
	e := db.live(key) // a deletion is no access, and no keyspace hit
	if e == nil {
		return false
	}
	db.remove(e)
	db.Modified(key)
	return true
}

// SetExpire sets the expiry of a live entry (0: persist). An expiry that is
// already in the past deletes the key at once, as Redis does.
func (db *DB) SetExpire(e *Entry, expireAt int64) {
	if expireAt != 0 && expireAt <= db.store.now {
		db.remove(e)
		db.notifyWatchers([]byte(e.Key()))
		return
	}
	db.setExpire(e, expireAt)
	db.notifyWatchers([]byte(e.Key()))
}

func (db *DB) setExpire(e *Entry, at int64) {
	db.moveDeadline(e, db.ExpireAt(e), at)
	db.account(e)
}

// moveDeadline is setExpire for an entry whose value is accounted already,
// old being its expiry: an entry's charge does not depend on its deadline
// (the heap's arrays are counted when Used is read, indexBytes), so a write
// that only moves it (INCREX EX on a live key, a limiter's every decision)
// skips recomputing the charge and reads the expiry slot once.
func (db *DB) moveDeadline(e *Entry, old, at int64) {
	if sn := db.store.snap; sn != nil && at != old {
		sn.keep(e, db.index, true) // the value stays: later in-place changes must not reach the copy
	}
	switch {
	case at == 0 && e.heapIdx >= 0:
		db.expiries.remove(int(e.heapIdx))
	case at != 0 && e.heapIdx < 0:
		db.expiries.push(e, at)
	case at != 0:
		db.expiries.update(int(e.heapIdx), at)
	}
}

// expire deletes an entry whose time has passed, and tells OnExpire.
func (db *DB) expire(e *Entry) {
	db.timedRemove(e, false)
	if db.store.OnExpire != nil {
		db.store.OnExpire(db.index, e.Key())
	}
	if db.store.OnInvalidate != nil {
		db.store.OnInvalidate([]byte(e.Key()), false)
	}
}

// Entry returns key's entry even if its time has passed, without deleting
// it or recording an access: what the server reads after a command to log
// its effect (the absolute expiry a relative EXPIRE set), where a lazy
// deletion would log a DEL of its own.
func (db *DB) Entry(key []byte) *Entry { return db.keys.findBytes(key) }

// timedRemove is remove, timed for OnDeleteTime when it is set.
func (db *DB) timedRemove(e *Entry, evicted bool) {
	t := db.store.OnDeleteTime
	if t == nil {
		db.remove(e)
		return
	}
	start := time.Now()
	db.remove(e)
	t(evicted, time.Since(start))
}

// remove unlinks e from every index.
func (db *DB) remove(e *Entry) {
	if sn := db.store.snap; sn != nil {
		sn.keep(e, db.index, false)
	}
	db.keys.remove(e)
	db.store.used -= int64(e.size)
	e.size = 0
	if e.heapIdx >= 0 {
		db.expiries.remove(int(e.heapIdx))
	}
	if len(db.watched) > 0 {
		db.touch(e.Key())
	}
	if db.store.OnReady != nil && e.Kind() == KindStream {
		db.store.OnReady(db, e.Key()) // its XREADGROUP readers fail (dbGenericDelete)
	}
}

// Flush deletes every key.
func (db *DB) Flush() {
	db.snapshotFlush()
	db.store.dirty += int64(db.keys.len())
	db.touchExisting(nil)
	db.keys.each(func(e *Entry) { db.store.used -= int64(e.size) })
	db.keys = newKeyTable()
	db.expiries = expiryHeap{}
}

// RandomKey returns a random live key, or "", false.
func (db *DB) RandomKey() (string, bool) {
	for tries := 0; ; tries++ {
		e := db.keys.random(&db.store.rng)
		if e == nil {
			return "", false
		}
		if !db.expired(e) {
			return e.Key(), true
		}
		if db.store.HoldExpired {
			// Expired keys stay: give up where Redis's replica does
			// (dbRandomKey's 100 tries) rather than spin on them.
			if tries >= 100 {
				return "", false
			}
			continue
		}
		db.expire(e)
	}
}

// Scan visits the entries of buckets from cursor on, until it has met
// count entries or walked ten times count buckets (Redis's SCAN), and
// returns the cursor to continue from (0 when done). A key present
// throughout a scan is returned at least once, however the table resizes
// in between (see keyTable.scan).
func (db *DB) Scan(cursor uint64, count int, visit func(e *Entry)) uint64 {
	count = max(count, 1)
	var batch []*Entry
	for steps := count * 10; ; {
		cursor = db.keys.scan(cursor, func(e *Entry) { batch = append(batch, e) })
		if steps--; cursor == 0 || steps <= 0 || len(batch) >= count {
			break
		}
	}
	// Like Redis's SCAN, delete the expired keys met on the way (DBSIZE
	// shows it), after the walk, which a deletion's rehash step would upset.
	var expired []*Entry
	for _, e := range batch {
		if db.expired(e) {
			expired = append(expired, e)
			continue
		}
		visit(e)
	}
	for _, e := range expired {
		db.lazyExpire(e)
	}
	return cursor
}

// Each calls visit for every live key; visit must not add or delete keys.
func (db *DB) Each(visit func(e *Entry)) {
	db.keys.each(func(e *Entry) {
		if !db.expired(e) {
			visit(e)
		}
	})
}

// TTL returns the remaining time to live of a live entry, or -1 if it has none.
func (db *DB) TTL(e *Entry) time.Duration {
	at := db.ExpireAt(e)
	if at == 0 {
		return -1
	}
	return time.Duration(at-db.store.now) * time.Millisecond
}

// watcher is one client's WATCH of one key.
type watcher struct {
	dirty *bool
	// expired: the key was already expired, though not yet deleted, when
	// watched. Redis 7.0 counts such a key as gone, so its deletion is no
	// change (and its expiry does not fail the EXEC).
	expired bool
}

// Watch asks that *dirty be set when key is modified, deleted, or replaced
// by a flush or a swap of the database (WATCH). See also WatchExpired.
func (db *DB) Watch(key string, dirty *bool) {
	if db.watched == nil {
		db.watched = make(map[string][]*watcher)
	}
	e := db.keys.find(key)
	db.watched[key] = append(db.watched[key], &watcher{dirty: dirty, expired: e != nil && db.expired(e)})
}

// WatchExpired reports whether key, watched with dirty, was live when it
// was watched and has expired since: Redis 7.0 then fails the EXEC as if
// the key had been modified, even though nothing has deleted it yet.
func (db *DB) WatchExpired(key string, dirty *bool) bool {
	e := db.keys.find(key)
	if e == nil || !db.expired(e) {
		return false
	}
	for _, w := range db.watched[key] {
		if w.dirty == dirty {
			return !w.expired
		}
	}
	return false
}

// Unwatch undoes Watch.
func (db *DB) Unwatch(key string, dirty *bool) {
	ws := db.watched[key]
	for i, w := range ws {
		if w.dirty == dirty {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(db.watched, key)
	} else {
		db.watched[key] = ws
	}
}

// Modified signals that key changed (Redis's signalModifiedKey). Mutations
// made in place on an Entry's Value must call it.
func (db *DB) Modified(key []byte) { db.ModifiedBy(key, 1) }

// ModifiedBy is Modified for a command that counts changes changes to
// the key's value (BITFIELD counts each write that changed a field, as
// Redis's server.dirty += changes).
func (db *DB) ModifiedBy(key []byte, changes int64) {
	if e := db.keys.findBytes(key); e != nil {
		db.account(e)
	}
	db.store.dirty += changes - 1
	db.notifyWatchers(key)
}

// Dirtied counts changes to key's value that Redis makes without
// signalModifiedKey (a consumer group's state: XREADGROUP, XACK, XCLAIM
// only add to server.dirty): the value's charge is recomputed and the
// changes counted, and the key's watchers are not told.
func (db *DB) Dirtied(key []byte, changes int64) {
	if e := db.keys.findBytes(key); e != nil {
		db.account(e)
	}
	db.store.dirty += changes
}

// notifyWatchers is Modified for a change that leaves the value's size as
// it was, or is accounted already (Set): it counts the change (Redis's
// server.dirty, which save points and the AOF read), records the key for
// the AOF while TrackTouched is set, and tells the key's watchers.
func (db *DB) notifyWatchers(key []byte) {
	db.store.dirty++
	if db.store.TrackTouched {
		db.store.Touched = append(db.store.Touched, TouchedKey{db.index, string(key)})
	}
	if db.store.OnInvalidate != nil {
		db.store.OnInvalidate(key, true)
	}
	if len(db.watched) == 0 {
		return
	}
	if ws := db.watched[string(key)]; len(ws) > 0 {
		notify(ws, db.keys.findBytes(key) != nil)
	}
}

func (db *DB) touch(key string) {
	if ws := db.watched[key]; len(ws) > 0 {
		notify(ws, db.keys.find(key) != nil)
	}
}

// notify dirties the watchers of a key that changed, except those that saw
// it already expired when it is now gone (Redis's touchWatchedKey).
func notify(ws []*watcher, present bool) {
	for _, w := range ws {
		if w.expired && !present {
			w.expired = false
			continue
		}
		*w.dirty = true
	}
}

// touchExisting dirties the watchers of the keys that db holds before it is
// flushed (other == nil) or swapped with other, and of the keys other
// holds, as Redis 7.0's touchAllWatchedKeysInDb: watching a key that exists
// in neither is no change, and an expired key counts as absent.
func (db *DB) touchExisting(other *DB) {
	for key, ws := range db.watched {
		e := db.keys.find(key)
		var o *Entry
		if other != nil {
			o = other.keys.find(key)
		}
		if e == nil && o == nil {
			continue
		}
		for _, w := range ws {
			switch {
			case w.expired && o == nil: // an expired key deleted: no change
				w.expired = false
				continue
			case w.expired && other.expired(o): // still an expired key
				continue
			case !w.expired && e == nil && other.expired(o): // replaced by an expired key
				w.expired = true
				continue
			}
			*w.dirty = true
		}
	}
}

// Rand is the store's generator, for every random pick a command makes
// (SRANDMEMBER, SPOP, HRANDFIELD, ZRANDMEMBER, RANDOMKEY, eviction). It is
// not safe for concurrent use: only the holder of the execution lock may
// draw from it, which is what spares it a mutex.
func (s *Store) Rand() *rand.Rand { return &s.rng }

// Seed resets the generator so the random picks that follow repeat for the
// same seed (a test double's reproducible answers). Hold the execution lock.
func (s *Store) Seed(seed uint64) { s.src.Seed(seed, seed) }

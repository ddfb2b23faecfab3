package store

// Snapshot is a point-in-time view of a store that a background saver
// reads in small steps while commands go on changing the store: the
// copy-on-write that Redis gets from fork, done per key. Starting one costs
// O(databases); each key changed before the saver reaches it is kept once,
// as it was, just before its first change:
//
//   - a value replaced or a key deleted: the old value pointer and expiry
//     are kept (nothing mutates a value that left its key; commands that
//     move a value to another key name it, so PreWrite copied it first);
//   - a TTL changed: a deep copy, since the value stays and may change;
//   - a value about to be changed in place: DB.PreWrite, which the server
//     calls with the keys of every write command, keeps a deep copy.
//
// The saver walks each database's key table with SCAN's cursor, which
// meets every entry present throughout the walk at least once, whatever
// resizes happen meanwhile (entries already handled are marked and
// skipped; the others were kept when deleted). Entries created after the
// start are born marked, so they are never saved or kept.
//
// The saver reads the values Next hands it outside the store's lock (it
// encodes them while commands run): until the next call of Next, those
// entries carry the batch's own mark, and PreWrite moves such a key to a
// copy of its value before the change, leaving the saver's copy untouched.
type Snapshot struct {
	s *Store
	// epoch marks the entries handled outside Next (born or kept during
	// the snapshot); batch, from epoch+1 on, the entries the last Next
	// handed out. Every mark in [epoch, batch] means "handled".
	epoch, batch uint32
	start        int64 // the store's time at the start: keys expired then are left out
	sizes        [][2]int
	// cursor[d]: the SCAN cursor of the walk of database d's key table,
	// done[d] once it is walked. Databases are numbered as at the start:
	// SWAPDB moves their contents, and perm[live] / inv[start] follow them.
	cursor    []uint64
	done      []bool
	perm, inv []int
	// detached[d]: key tables taken out of database d (FLUSHDB) before the
	// saver finished walking them, and where their walk stands.
	detached [][]detachedTable
	kept     map[*Entry]kept
	// keptOrder[d]: the entries kept for database d, in the order kept.
	keptOrder [][]*Entry
	db        int // the database being walked
	// keptBytes is the size of the values kept, as they were when kept:
	// the memory the snapshot holds that the live keyspace no longer
	// would, what copy-on-write is to a forked Redis.
	keptBytes int64
}

type detachedTable struct {
	keys     keyTable
	expiries expiryHeap // the table's keys' expiries (DB.ExpireAt's heap, as it was)
	cursor   uint64
}

type kept struct {
	value    Value
	expireAt int64
	db       int
}

// BeginSnapshot starts a snapshot of the store as it is now. Only one can
// be open at a time; the caller holds the store still while calling this,
// Next, PreWrite and End.
func (s *Store) BeginSnapshot() *Snapshot {
	if s.snap != nil {
		panic("store: snapshot already open")
	}
	s.epoch++
	sn := &Snapshot{s: s, epoch: s.epoch, batch: s.epoch, start: s.now, kept: make(map[*Entry]kept),
		sizes: make([][2]int, len(s.dbs)), cursor: make([]uint64, len(s.dbs)), done: make([]bool, len(s.dbs)),
		detached: make([][]detachedTable, len(s.dbs)), keptOrder: make([][]*Entry, len(s.dbs))}
	for i, d := range s.dbs {
		if d != nil {
			sn.sizes[i] = [2]int{d.keys.len(), d.expiries.len()}
		}
		sn.perm, sn.inv = append(sn.perm, i), append(sn.inv, i)
	}
	s.snap = sn
	return sn
}

// Snapshotting reports whether a snapshot is open.
func (s *Store) Snapshotting() bool { return s.snap != nil }

// KeptBytes is how much the snapshot has kept of values changed or
// deleted since it began (INFO's copy-on-write figures).
func (sn *Snapshot) KeptBytes() int64 { return sn.keptBytes }

// SnapshotKept is the open snapshot's KeptBytes, 0 with none open.
func (s *Store) SnapshotKept() int64 {
	if s.snap == nil {
		return 0
	}
	return s.snap.keptBytes
}

// Sizes returns how many keys, and keys with a TTL, database db held when
// the snapshot started (RESIZEDB's hints).
func (sn *Snapshot) Sizes(db int) (keys, expires int) { return sn.sizes[db][0], sn.sizes[db][1] }

// Next visits up to n more buckets of the snapshot in database order and
// reports whether any remain. visit gets the key as it was at the start;
// its value stays so, and may be read without the lock, until the next
// call of Next or End.
func (sn *Snapshot) Next(n int, visit func(db int, key string, v Value, expireAt int64)) bool {
	sn.batch++
	for ; n > 0 && sn.db < len(sn.s.dbs); n-- {
		if tables := sn.detached[sn.db]; len(tables) > 0 {
			t := &tables[len(tables)-1]
			step := func(e *Entry) {
				var at int64
				if e.heapIdx >= 0 {
					at = t.expiries.slot(int(e.heapIdx)).at
				}
				sn.visit(e, at, visit)
			}
			if t.cursor = t.keys.scan(t.cursor, step); t.cursor == 0 {
				sn.detached[sn.db] = tables[:len(tables)-1]
			}
			continue
		}
		if !sn.done[sn.db] {
			live := sn.s.dbs[sn.inv[sn.db]]
			if live == nil { // never used: empty
				sn.done[sn.db] = true
				continue
			}
			step := func(e *Entry) { sn.visit(e, live.ExpireAt(e), visit) }
			sn.cursor[sn.db] = live.keys.scan(sn.cursor[sn.db], step)
			sn.done[sn.db] = sn.cursor[sn.db] == 0
			continue
		}
		// The database is walked: what was kept of its deleted keys goes now,
		// before any other database's keys, in steps like the rest (a save
		// during active expiry may have kept many).
		if kept := sn.keptOrder[sn.db]; len(kept) > 0 {
			e := kept[len(kept)-1]
			sn.keptOrder[sn.db] = kept[:len(kept)-1]
			if k, ok := sn.kept[e]; ok { // not met by the walk
				delete(sn.kept, e)
				sn.emit(sn.db, e.Key(), k.value, k.expireAt, visit)
			}
			continue
		}
		sn.db++
	}
	return sn.db < len(sn.s.dbs)
}

// handled reports whether e was saved, kept, or born during the snapshot.
func (sn *Snapshot) handled(e *Entry) bool { return e.snap-sn.epoch <= sn.batch-sn.epoch }

func (sn *Snapshot) visit(e *Entry, expireAt int64, visit func(int, string, Value, int64)) {
	if !sn.handled(e) {
		e.snap = sn.batch
		sn.emit(sn.db, e.Key(), e.Value(), expireAt, visit)
	} else if k, ok := sn.kept[e]; ok {
		delete(sn.kept, e)
		sn.emit(sn.db, e.Key(), k.value, k.expireAt, visit)
	}
}

func (sn *Snapshot) emit(db int, key string, v Value, expireAt int64, visit func(int, string, Value, int64)) {
	if expireAt != 0 && expireAt < sn.start {
		return
	}
	visit(db, key, v, expireAt)
}

// Kept returns how many keys are kept aside for the snapshot right now
// (the copy-on-write's cost).
func (sn *Snapshot) Kept() int { return len(sn.kept) }

// End closes the snapshot; the store stops keeping old values.
func (sn *Snapshot) End() {
	if sn.s.snap == sn {
		sn.s.snap = nil
		sn.s.epoch = sn.batch // the next snapshot's marks start above this one's
	}
	sn.kept, sn.keptOrder = nil, nil
}

// keep saves e, now in live database db, as it is before its first change
// during the snapshot.
func (sn *Snapshot) keep(e *Entry, db int, deep bool) {
	if sn.handled(e) {
		return
	}
	expireAt := sn.s.dbs[db].ExpireAt(e) // from the live database, before renumbering
	db = sn.perm[db]
	e.snap = sn.epoch
	v := e.Value()
	if deep {
		v = v.Clone()
	}
	sn.kept[e] = kept{value: v, expireAt: expireAt, db: db}
	sn.keptBytes += int64(e.size)
	sn.keptOrder[db] = append(sn.keptOrder[db], e)
}

// detach hands the saver the key table of (start-time) database db, which
// it has not finished walking, as FLUSHDB drops it. Nothing changes the
// table afterwards.
func (sn *Snapshot) detach(db int, keys keyTable, expiries expiryHeap) {
	if !sn.done[db] {
		sn.detached[db] = append(sn.detached[db], detachedTable{keys: keys, expiries: expiries, cursor: sn.cursor[db]})
		sn.done[db] = true
	}
}

// PreWrite must be called before key's value is changed in place while a
// snapshot may be open: the snapshot then keeps a copy of the value as it
// was. The server calls it with the keys of every write command.
func (db *DB) PreWrite(key []byte) {
	if sn := db.store.snap; sn != nil {
		if e := db.keys.findBytes(key); e != nil {
			if e.snap == sn.batch && sn.batch != sn.epoch {
				// The saver may be encoding this value right now, outside
				// the lock: the key takes a copy and the saver keeps its own.
				e.SetValue(liveCopy(e.Value()))
				e.snap = sn.epoch
				return
			}
			sn.keep(e, db.index, true)
		}
	}
}

// snapshotFlush is Flush's part while a snapshot is open: the key table,
// if not walked yet, goes to the saver (Flush drops it, so it is theirs
// to read).
func (db *DB) snapshotFlush() {
	if sn := db.store.snap; sn != nil {
		sn.detach(sn.perm[db.index], db.keys, db.expiries)
	}
}

// snapshotSwap is SwapDB's part: the contents move, cursors and all, so
// only the numbering changes.
func (s *Store) snapshotSwap(a, b int) {
	if sn := s.snap; sn != nil {
		sn.perm[a], sn.perm[b] = sn.perm[b], sn.perm[a]
		sn.inv[sn.perm[a]], sn.inv[sn.perm[b]] = a, b
	}
}

// liveCopy is the copy a key takes while the saver reads its old value: a
// copy the key goes on with as if it were the same object, so an integer
// stays one of Redis's shared integers (OBJECT REFCOUNT) where Clone, which
// is COPY's, makes it an object of its own.
func liveCopy(v Value) Value {
	if s, ok := v.(*String); ok && s.isShared() {
		return v // never changed in place: writers replace it
	}
	if s, ok := v.(*String); ok && s.b == nil {
		c := *s
		return &c
	}
	return v.Clone()
}

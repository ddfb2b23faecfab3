package store

// MemoryUsage is MEMORY USAGE of a live entry with SAMPLES samples (0 for
// all): for a stream, what Redis 7.0 answers (RedisMemoryUsage); for the
// other types, what the accounting charges the entry: its key, value and
// share of the keyspace's indexes.
func (db *DB) MemoryUsage(e *Entry, samples int64) int64 {
	if s, ok := e.Value().(*Stream); ok {
		return s.RedisMemoryUsage(e.Key(), samples)
	}
	n := int64(entrySize(e)) + entryCost
	if e.heapIdx >= 0 {
		n += expiryCost
	}
	return n
}

// Overhead is the part of the database's accounted memory that its
// indexes cost rather than its keys and values (MEMORY STATS's
// overhead.hashtable.main and .expires): the key table's bucket arrays and
// the expiry heap's array, as allocated.
func (db *DB) Overhead() (main, expires int64) {
	for _, b := range db.keys.ht {
		main += int64(allocSizeScan(8 * len(b)))
	}
	return main, int64(db.expiries.bytes())
}

package store

// MemoryUsage is what the accounting charges a live entry: its key, value
// and share of the keyspace's indexes (MEMORY USAGE).
func (db *DB) MemoryUsage(e *Entry) int64 { return int64(entrySize(e)) }

// Overhead is the part of the database's accounted memory that its
// indexes cost rather than its keys and values (MEMORY STATS's
// overhead.hashtable.main and .expires).
func (db *DB) Overhead() (main, expires int64) {
	return int64(db.Len()) * entryCost, int64(db.Expires()) * expiryCost
}

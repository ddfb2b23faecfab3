package store

// Encodings are the thresholds at which a collection leaves its compact
// representation, Redis 7.0's hash-max-listpack-*, zset-max-listpack-*,
// set-max-intset-entries, list-max-listpack-size and list-compress-depth.
// The server keeps them in the Store (Store.Encodings) and changes them
// under its execution lock; every operation that may convert a value
// reads them there, as Redis reads its server.* fields, so a CONFIG SET
// takes effect from the next command on. Conversions go one way (compact
// to large) except where Redis builds a new value: RDB loading, RESTORE,
// the STORE forms of ZUNION and friends, SPOP's rebuilt remainder.
type Encodings struct {
	HashMaxListpackEntries int64
	HashMaxListpackValue   int64
	ZSetMaxListpackEntries int64
	ZSetMaxListpackValue   int64
	SetMaxIntsetEntries    int64
	// ListMaxListpackSize is a quicklist node's fill: positive, at most
	// that many elements (and 8 KB); -1 to -5, at most 4, 8, 16, 32 or
	// 64 KB. A list keeps the fill and compress depth it was created with.
	ListMaxListpackSize int64
	ListCompressDepth   int64
	// StreamNodeMaxBytes and StreamNodeMaxEntries bound a stream node
	// (stream-node-max-bytes, -entries; 0 for no bound), read at each XADD.
	StreamNodeMaxBytes   int64
	StreamNodeMaxEntries int64
}

// DefaultEncodings are Redis 7.0's defaults.
var DefaultEncodings = Encodings{
	HashMaxListpackEntries: 512,
	HashMaxListpackValue:   64,
	ZSetMaxListpackEntries: 128,
	ZSetMaxListpackValue:   64,
	SetMaxIntsetEntries:    512,
	ListMaxListpackSize:    -2,
	ListCompressDepth:      0,
	StreamNodeMaxBytes:     4096,
	StreamNodeMaxEntries:   100,
}

// Loose are thresholds that never convert: what RDB loading uses to
// rebuild a listpack or intset as it was written before it applies the
// count check Redis makes on load.
var Loose = Encodings{
	HashMaxListpackEntries: 1<<63 - 1, HashMaxListpackValue: 1<<63 - 1,
	ZSetMaxListpackEntries: 1<<63 - 1, ZSetMaxListpackValue: 1<<63 - 1,
	SetMaxIntsetEntries: 1<<63 - 1, ListMaxListpackSize: -2,
	StreamNodeMaxBytes: 4096, StreamNodeMaxEntries: 100,
}

// Encodings returns the store's thresholds, for the server to change.
func (s *Store) Encodings() *Encodings { return &s.enc }

// Encodings returns the thresholds of the database's store.
func (db *DB) Encodings() *Encodings { return &db.store.enc }

// intsetMax is set-max-intset-entries as Redis applies it: capped at
// 2^30 by the intset's internals.
func (e *Encodings) intsetMax() int {
	return int(min(e.SetMaxIntsetEntries, 1<<30))
}

// NewList returns an empty list that keeps e's node fill and compress
// depth, as a quicklist keeps the options it was created with.
func (e *Encodings) NewList() *List {
	return &List{fill: int16(quicklistFill(e.ListMaxListpackSize)), depth: uint16(min(max(e.ListCompressDepth, 0), 1<<16-1))}
}

// quicklistFill clamps a fill as quicklistSetFill does.
func quicklistFill(f int64) int64 {
	return min(max(f, -5), 1<<15-1)
}

package store

// Keyspace hits and misses (INFO's keyspace_hits and keyspace_misses):
// Redis counts the lookups its read paths make (lookupKeyRead), not those
// of its write paths. The store cannot tell one from the other, so the
// server says, around each command, whether its lookups count.

type lookupStats struct {
	countLookups bool
	hits, misses int64
}

func (s *Store) countLookup(found bool) {
	if found {
		s.hits++
	} else {
		s.misses++
	}
}

// CountLookups sets whether the lookups that follow count as hits and
// misses, and returns the previous setting.
func (s *Store) CountLookups(on bool) (was bool) {
	was, s.countLookups = s.countLookups, on
	return was
}

// Lookups returns the hits and misses counted.
func (s *Store) Lookups() (hits, misses int64) { return s.hits, s.misses }

// ResetLookups zeroes the counts (CONFIG RESETSTAT).
func (s *Store) ResetLookups() { s.hits, s.misses = 0, 0 }

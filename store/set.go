package store

import (
	"slices"
	"strconv"

	"github.com/floodgate/floodgate/internal/number"
)

// SetMaxIntsetEntries is Redis's default set-max-intset-entries: a set of
// integers stays an intset up to this many members.
const SetMaxIntsetEntries = 512

// Set is a set value. While every member is the canonical form of an int64
// (and there are at most SetMaxIntsetEntries) it is a sorted slice of
// integers, as Redis's intset, so SMEMBERS answers in numeric order as Redis
// does. Otherwise it is a hashtable, for good (Redis 7.0 has no listpack
// sets).
type Set struct {
	ints    []int64             // sorted; used while members is nil
	members map[string]struct{} // the hashtable encoding
}

// NewSet returns an empty set (an intset).
func NewSet() *Set { return &Set{} }

// Kind returns KindSet.
func (*Set) Kind() Kind { return KindSet }

// Encoding returns "intset" or "hashtable", as OBJECT ENCODING does in 7.0.
func (s *Set) Encoding() string {
	if s.members != nil {
		return "hashtable"
	}
	return "intset"
}

// Clone returns a copy.
func (s *Set) Clone() Value {
	c := &Set{ints: slices.Clone(s.ints)}
	if s.members != nil {
		c.members = make(map[string]struct{}, len(s.members))
		for m := range s.members {
			c.members[m] = struct{}{}
		}
	}
	return c
}

// Len returns the number of members.
func (s *Set) Len() int {
	if s.members != nil {
		return len(s.members)
	}
	return len(s.ints)
}

// Has reports whether m is a member.
func (s *Set) Has(m []byte) bool {
	if s.members != nil {
		_, ok := s.members[string(m)]
		return ok
	}
	n, ok := number.ParseInt(m)
	if !ok {
		return false // an intset holds only canonical integers
	}
	_, found := slices.BinarySearch(s.ints, n)
	return found
}

// Add adds m and reports whether it is new.
func (s *Set) Add(m []byte) bool {
	if s.members == nil {
		if n, ok := number.ParseInt(m); ok {
			i, found := slices.BinarySearch(s.ints, n)
			if found {
				return false
			}
			s.ints = slices.Insert(s.ints, i, n)
			if len(s.ints) > SetMaxIntsetEntries {
				s.convert()
			}
			return true
		}
		s.convert()
	}
	if _, ok := s.members[string(m)]; ok {
		return false
	}
	s.members[string(m)] = struct{}{}
	return true
}

func (s *Set) convert() {
	s.members = make(map[string]struct{}, len(s.ints)+1)
	for _, n := range s.ints {
		s.members[strconv.FormatInt(n, 10)] = struct{}{}
	}
	s.ints = nil
}

// Remove removes m and reports whether it was a member.
func (s *Set) Remove(m []byte) bool {
	if s.members != nil {
		if _, ok := s.members[string(m)]; !ok {
			return false
		}
		delete(s.members, string(m))
		return true
	}
	n, ok := number.ParseInt(m)
	if !ok {
		return false
	}
	i, found := slices.BinarySearch(s.ints, n)
	if found {
		s.ints = slices.Delete(s.ints, i, i+1)
	}
	return found
}

// Members returns every member: in numeric order for an intset, in no
// particular order for a hashtable.
func (s *Set) Members() []string {
	if s.members == nil {
		out := make([]string, len(s.ints))
		for i, n := range s.ints {
			out[i] = strconv.FormatInt(n, 10)
		}
		return out
	}
	out := make([]string, 0, len(s.members))
	for m := range s.members {
		out = append(out, m)
	}
	return out
}

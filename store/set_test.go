package store

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestSetIntsetOrderAndConversion(t *testing.T) {
	tests := []struct {
		add      []string
		encoding string
		members  string // sorted for a hashtable
	}{
		{[]string{"3", "1", "2", "-5", "1"}, "intset", "-5 1 2 3"},
		{[]string{"9223372036854775807", "-9223372036854775808", "0"}, "intset", "-9223372036854775808 0 9223372036854775807"},
		{[]string{"1", "01"}, "hashtable", "01 1"},
		{[]string{"1", "-0"}, "hashtable", "-0 1"},
		{[]string{"1", "1.0"}, "hashtable", "1 1.0"},
		{[]string{"a", "1"}, "hashtable", "1 a"},
	}
	for _, tt := range tests {
		s := NewSet()
		for _, m := range tt.add {
			s.Add([]byte(m))
		}
		got := s.Members()
		if s.Encoding() == "hashtable" {
			slices.Sort(got)
		}
		if s.Encoding() != tt.encoding || strings.Join(got, " ") != tt.members {
			t.Errorf("SADD %v: %s %v, want %s %s", tt.add, s.Encoding(), got, tt.encoding, tt.members)
		}
	}
}

func TestSetIntsetLimit(t *testing.T) {
	s := NewSet()
	for i := range SetMaxIntsetEntries {
		s.Add(fmt.Appendf(nil, "%d", i))
	}
	if s.Encoding() != "intset" {
		t.Fatalf("%d integers: %s", SetMaxIntsetEntries, s.Encoding())
	}
	s.Add([]byte("100000"))
	if s.Encoding() != "hashtable" || s.Len() != SetMaxIntsetEntries+1 || !s.Has([]byte("7")) {
		t.Fatalf("past the limit: %s, %d members", s.Encoding(), s.Len())
	}
}

func TestSetAddRemoveHas(t *testing.T) {
	for _, members := range [][]string{{"1", "2", "3"}, {"a", "b", "c"}} {
		s := NewSet()
		for _, m := range members {
			if !s.Add([]byte(m)) {
				t.Fatalf("%s not new", m)
			}
		}
		if s.Add([]byte(members[0])) {
			t.Fatal("re-adding reported new")
		}
		if !s.Has([]byte(members[1])) || s.Has([]byte("zz")) || s.Has([]byte("01")) {
			t.Fatal("Has wrong")
		}
		if !s.Remove([]byte(members[1])) || s.Remove([]byte(members[1])) || s.Remove([]byte("01")) {
			t.Fatal("Remove wrong")
		}
		if s.Len() != 2 || s.Has([]byte(members[1])) {
			t.Fatalf("after remove: %v", s.Members())
		}
		c := s.Clone().(*Set)
		c.Add([]byte("new"))
		if s.Has([]byte("new")) {
			t.Fatal("clone shares storage")
		}
	}
}

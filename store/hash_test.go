package store

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/internal/redistest"
)

func hashNames(h *Hash) string {
	var names []string
	for _, f := range h.Fields() {
		names = append(names, f.Name+"="+f.Value)
	}
	return strings.Join(names, " ")
}

func TestHashListpackKeepsInsertionOrder(t *testing.T) {
	h := NewHash()
	for _, f := range []string{"a", "b", "c", "d"} {
		h.Set([]byte(f), []byte("v"+f), &DefaultEncodings)
	}
	h.Set([]byte("b"), []byte("B"), &DefaultEncodings) // an update keeps the position
	h.Delete([]byte("a"))
	h.Set([]byte("a"), []byte("A"), &DefaultEncodings) // a re-added field goes last
	if got, want := hashNames(h), "b=B c=vc d=vd a=A"; got != want {
		t.Fatalf("fields = %q, want %q", got, want)
	}
	if h.Encoding() != "listpack" {
		t.Fatalf("encoding %q", h.Encoding())
	}
}

func TestHashConversion(t *testing.T) {
	long := strings.Repeat("x", int(DefaultEncodings.HashMaxListpackValue))
	tests := []struct {
		name string
		fill func(h *Hash)
		want string
	}{
		{"64-byte value", func(h *Hash) { h.Set([]byte("f"), []byte(long), &DefaultEncodings) }, "listpack"},
		{"65-byte value", func(h *Hash) { h.Set([]byte("f"), []byte(long+"y"), &DefaultEncodings) }, "hashtable"},
		{"65-byte field", func(h *Hash) { h.Set([]byte(long+"y"), []byte("v"), &DefaultEncodings) }, "hashtable"},
		{"512 fields", func(h *Hash) {
			for i := range int(DefaultEncodings.HashMaxListpackEntries) {
				h.Set(fmt.Appendf(nil, "f%d", i), []byte("v"), &DefaultEncodings)
			}
		}, "listpack"},
		{"513 fields", func(h *Hash) {
			for i := range int(DefaultEncodings.HashMaxListpackEntries) + 1 {
				h.Set(fmt.Appendf(nil, "f%d", i), []byte("v"), &DefaultEncodings)
			}
		}, "hashtable"},
		{"no way back", func(h *Hash) {
			h.Set([]byte("f"), []byte(long+"y"), &DefaultEncodings)
			h.Delete([]byte("f"))
		}, "hashtable"},
	}
	for _, tt := range tests {
		h := NewHash()
		tt.fill(h)
		if got := h.Encoding(); got != tt.want {
			t.Errorf("%s: encoding %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestHashTableDeleteKeepsIndex(t *testing.T) {
	h := NewHash()
	for i := range 1000 {
		h.Set(fmt.Appendf(nil, "f%d", i), fmt.Appendf(nil, "%d", i), &DefaultEncodings)
	}
	for i := 0; i < 1000; i += 3 {
		if !h.Delete(fmt.Appendf(nil, "f%d", i)) {
			t.Fatalf("f%d not deleted", i)
		}
	}
	if h.Len() != 666 {
		t.Fatalf("len %d", h.Len())
	}
	for i := range 1000 {
		v, ok := h.Get(fmt.Appendf(nil, "f%d", i))
		if ok != (i%3 != 0) || (ok && v != fmt.Sprint(i)) {
			t.Fatalf("f%d: %q %v", i, v, ok)
		}
	}
}

func TestHashIncrBy(t *testing.T) {
	tests := []struct {
		start string // "" for a missing field
		delta int64
		want  int64
		err   error
	}{
		{"", 5, 5, nil},
		{"10", -3, 7, nil},
		{"9223372036854775807", 1, 0, ErrOverflow},
		{"-9223372036854775808", -1, 0, ErrOverflow},
		{"9223372036854775807", -1, 9223372036854775806, nil},
		{"abc", 1, 0, ErrHashNotInteger},
		{" 1", 1, 0, ErrHashNotInteger},
		{"1.0", 1, 0, ErrHashNotInteger},
		{"-0", 1, 0, ErrHashNotInteger},
	}
	for _, tt := range tests {
		h := NewHash()
		if tt.start != "" {
			h.Set([]byte("f"), []byte(tt.start), &DefaultEncodings)
		}
		got, err := h.IncrBy([]byte("f"), tt.delta, &DefaultEncodings)
		if got != tt.want || err != tt.err {
			t.Errorf("%q + %d = %d, %v; want %d, %v", tt.start, tt.delta, got, err, tt.want, tt.err)
		}
		if v, _ := h.Get([]byte("f")); err != nil && v != tt.start {
			t.Errorf("%q: a failed increment changed the value to %q", tt.start, v)
		}
	}
}

func TestHashIncrByFloat(t *testing.T) {
	// Replies of redis-server 7.0.15.
	tests := []struct {
		start, delta, want string
		err                error
	}{
		{"", "1.5", "1.5", nil},
		{"10", ".1", "10.1", nil},
		{"10.1", "-10.1", "0", nil},
		{"0.1", "0.2", "0.3", nil},
		{"1", "1e60", "999999999999999999999373423426722168652130621984886772203520", nil},
		{"abc", "1", "", ErrHashNotFloat},
		{" 1", "1", "", ErrHashNotFloat},
		{"inf", "1", "", ErrNaNOrInf},
	}
	for _, tt := range tests {
		h := NewHash()
		if tt.start != "" {
			h.Set([]byte("f"), []byte(tt.start), &DefaultEncodings)
		}
		delta, ok := number.ParseLongDouble([]byte(tt.delta))
		if !ok {
			t.Fatalf("bad delta %q", tt.delta)
		}
		got, err := h.IncrByFloat([]byte("f"), delta, &DefaultEncodings)
		if got != tt.want || err != tt.err {
			t.Errorf("%q + %q = %q, %v; want %q, %v", tt.start, tt.delta, got, err, tt.want, tt.err)
		}
	}
	// A long result converts the hash, as Redis's hashTypeSet does.
	h := NewHash()
	d, _ := number.ParseLongDouble([]byte("1e70"))
	h.IncrByFloat([]byte("f"), d, &DefaultEncodings)
	if h.Encoding() != "hashtable" {
		t.Fatalf("71-byte result left encoding %q", h.Encoding())
	}
}

func TestHashRandom(t *testing.T) {
	h := NewHash()
	for i := range 10 {
		h.Set(fmt.Appendf(nil, "f%d", i), []byte("v"), &DefaultEncodings)
	}
	for _, count := range []int{1, 3, 9} {
		for range 50 {
			got := h.Random(testRand, count, true)
			seen := map[string]bool{}
			for _, f := range got {
				if seen[f.Name] || !h.Has([]byte(f.Name)) {
					t.Fatalf("count %d: %v repeats or invents a field", count, got)
				}
				seen[f.Name] = true
			}
			if len(got) != count {
				t.Fatalf("count %d: got %d fields", count, len(got))
			}
		}
	}
	if got := h.Random(testRand, 20, true); !slices.Equal(got, h.Fields()) {
		t.Fatalf("count >= len should return the whole hash in order, got %v", got)
	}
	// With repetitions: exactly count fields, and over many draws every one shows up.
	got := h.Random(testRand, 1000, false)
	seen := map[string]bool{}
	for _, f := range got {
		seen[f.Name] = true
	}
	if len(got) != 1000 || len(seen) != 10 {
		t.Fatalf("repeating draw: %d fields, %d distinct", len(got), len(seen))
	}
	if h.Random(testRand, 0, true) != nil || NewHash().Random(testRand, 5, false) != nil {
		t.Fatal("empty draws should be nil")
	}
}

func TestHashScanHashtable(t *testing.T) {
	h := NewHash()
	for i := range 1000 {
		h.Set(fmt.Appendf(nil, "f%d", i), []byte("v"), &DefaultEncodings)
	}
	seen := map[string]bool{}
	cursor, rounds := uint64(0), 0
	for {
		cursor = h.Scan(cursor, 7, func(f HashField) { seen[f.Name] = true })
		rounds++
		// Delete a field the scan has not reached and one it has, as a
		// client may between calls.
		if rounds == 10 {
			h.Delete([]byte("f0"))
			h.Delete([]byte("f999"))
		}
		if cursor == 0 {
			break
		}
	}
	for i := 1; i < 999; i++ {
		if !seen[fmt.Sprintf("f%d", i)] {
			t.Fatalf("scan missed f%d", i)
		}
	}
	if rounds < 1000/7 {
		t.Fatalf("scan of a hashtable took %d rounds: not incremental", rounds)
	}
	small := NewHash()
	small.Set([]byte("a"), []byte("1"), &DefaultEncodings)
	if small.Scan(99, 1, func(HashField) {}) != 0 {
		t.Fatal("a listpack scan must answer cursor 0")
	}
}

func TestHashClone(t *testing.T) {
	h := NewHash()
	for i := range 600 {
		h.Set(fmt.Appendf(nil, "f%d", i), []byte("v"), &DefaultEncodings)
	}
	c := h.Clone().(*Hash)
	c.Delete([]byte("f1"))
	c.Set([]byte("new"), []byte("x"), &DefaultEncodings)
	if !h.Has([]byte("f1")) || h.Has([]byte("new")) || h.Len() != 600 {
		t.Fatal("changing the clone changed the original")
	}
}

// TestHashMatchesMap drives random sets, deletes and increments against a
// map, across integer-like and string values and through conversion.
func TestHashMatchesMap(t *testing.T) {
	t.Parallel() // its own values and generator only
	redistest.SkipUnderRace(t)
	values := []string{"0", "-0", "1", "-1", "007", "1700000000000", "9223372036854775807",
		"-9223372036854775808", "2305843009213693952", "-2305843009213693951", "", "x", "10.0.3.4",
		strings.Repeat("v", 64)}
	r := rand.New(rand.NewPCG(1, 2))
	for _, fields := range []int{8, 600} {
		h, m := NewHash(), map[string]string{}
		for step := range 20000 {
			name := values[r.IntN(len(values))]
			if r.IntN(3) > 0 {
				name = strconv.Itoa(r.IntN(fields))
			}
			switch r.IntN(4) {
			case 0:
				_, had := m[name]
				if h.Delete([]byte(name)) != had {
					t.Fatalf("step %d: delete %q", step, name)
				}
				delete(m, name)
			case 1:
				if n, err := h.IncrBy([]byte(name), 3, &DefaultEncodings); err == nil {
					m[name] = strconv.FormatInt(n, 10)
				}
			default:
				v := values[r.IntN(len(values))]
				_, had := m[name]
				if h.Set([]byte(name), []byte(v), &DefaultEncodings) == had {
					t.Fatalf("step %d: set %q reported wrong", step, name)
				}
				m[name] = v
			}
			if h.Len() != len(m) {
				t.Fatalf("step %d: len %d, want %d", step, h.Len(), len(m))
			}
		}
		got := map[string]string{}
		for name, value := range h.All() {
			got[name] = value
		}
		if !maps.Equal(got, m) {
			t.Fatalf("%d fields: hash %v, want %v", fields, got, m)
		}
		for name, value := range m {
			if v, ok := h.Get([]byte(name)); !ok || v != value {
				t.Fatalf("get %q = %q, want %q", name, v, value)
			}
			var scratch [20]byte
			if v, ok := h.View([]byte(name), &scratch); !ok || string(v) != value {
				t.Fatalf("view %q = %q, want %q", name, v, value)
			}
		}
	}
}

// TestHashListpackIntegers round-trips integers of every width, and strings
// that only look like integers, through a listpack's entries.
func TestHashListpackIntegers(t *testing.T) {
	var values []string
	for k := range 64 {
		for _, n := range []int64{1<<k - 1, 1 << k, -1 << k, -1<<k - 1} {
			if v := strconv.FormatInt(n, 10); !slices.Contains(values, v) {
				values = append(values, v)
			}
		}
	}
	values = append(values, "-0", "01", "+1", " 1", "1 ", "18446744073709551616")
	h := NewHash()
	for i, v := range values {
		h.Set([]byte(v), []byte(values[len(values)-1-i]), &DefaultEncodings)
	}
	if h.Encoding() != "listpack" {
		t.Fatalf("encoding %s", h.Encoding())
	}
	i := 0
	for name, value := range h.All() {
		if name != values[i] {
			t.Fatalf("field %d = %q, want %q", i, name, values[i])
		}
		if v, _ := h.Get([]byte(name)); v != value {
			t.Fatalf("get %q = %q, iteration says %q", name, v, value)
		}
		i++
	}
	for _, v := range values {
		if !h.Has([]byte(v)) {
			t.Fatalf("lost field %q", v)
		}
	}
}

func TestHashThresholds(t *testing.T) {
	enc := DefaultEncodings
	enc.HashMaxListpackEntries, enc.HashMaxListpackValue = 2, 3
	h := NewHash()
	h.Set([]byte("a"), []byte("1"), &enc)
	h.Set([]byte("b"), []byte("2"), &enc)
	if h.Encoding() != "listpack" {
		t.Fatal("2 fields converted")
	}
	lower := enc
	lower.HashMaxListpackEntries = 1
	h.Set([]byte("a"), []byte("3"), &lower) // an update past the count converts, as hashTypeSet
	if h.Encoding() != "hashtable" {
		t.Fatal("update past the entries threshold kept the listpack")
	}

	h = NewHash()
	h.Set([]byte("a"), []byte("1"), &enc)
	if _, err := h.IncrBy([]byte("a"), 1000, &enc); err != nil || h.Encoding() != "hashtable" {
		t.Fatalf("HINCRBY to a 4-digit value: %v %s", err, h.Encoding())
	}

	// A listpack RESTORE keeps may hold values past the threshold; they are
	// found, replaced and deleted as any other.
	h = NewHash()
	long := strings.Repeat("f", 100)
	h.Set([]byte(long), []byte(long), &Loose)
	h.Set([]byte("x"), []byte("1"), &Loose)
	if v, ok := h.Get([]byte(long)); !ok || v != long || h.Encoding() != "listpack" {
		t.Fatalf("long field: %q %v %s", v, ok, h.Encoding())
	}
	if !h.Delete([]byte(long)) || h.Len() != 1 {
		t.Fatal("long field not deleted")
	}
}

// TestHashCountSaturates: past 65535 fields (a raised threshold) the
// listpack's count field stays at its maximum and Len counts the entries.
func TestHashCountSaturates(t *testing.T) {
	h := NewHash()
	for _, f := range []string{"a", "b", "c"} {
		h.Set([]byte(f), []byte("v"), &Loose)
	}
	binary.LittleEndian.PutUint16(h.lp(), lpCountMax) // as if it had 65535 or more
	if h.Len() != 3 {
		t.Fatalf("Len %d", h.Len())
	}
	h.Set([]byte("d"), []byte("v"), &Loose)
	if h.Len() != 4 || binary.LittleEndian.Uint16(h.lp()) != 4 {
		t.Fatalf("after an add: Len %d, count %d", h.Len(), binary.LittleEndian.Uint16(h.lp()))
	}
	binary.LittleEndian.PutUint16(h.lp(), lpCountMax)
	h.Delete([]byte("a"))
	if h.Len() != 3 || binary.LittleEndian.Uint16(h.lp()) != 3 {
		t.Fatalf("after a delete: Len %d", h.Len())
	}
}

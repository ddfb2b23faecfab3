package store

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"

	"github.com/floodgate/floodgate/internal/number"
)

// Redis 7.0's defaults for hash-max-listpack-entries (512) and
// hash-max-listpack-value (64): a hash stays a listpack while it has at most
// this many fields and no field or value is longer; past either it becomes
// a hashtable for good.
const (
	HashMaxListpackEntries = 512
	HashMaxListpackValue   = 64
)

// Errors of the hash increments, with Redis 7.0's text.
var (
	ErrHashNotInteger = errors.New("ERR hash value is not an integer")
	ErrHashNotFloat   = errors.New("ERR hash value is not a float")
)

// HashField is one field of a hash and its value.
type HashField struct {
	Name, Value string
}

// Hash is a hash value. While small it keeps its fields in insertion order
// and finds them by a linear scan, as Redis's listpack does, so HGETALL and
// HKEYS answer in the same order as Redis. Once big it adds a map index and
// deletes by swap-removal; Redis's hashtable order is unspecified anyway.
type Hash struct {
	fields []HashField
	index  map[string]int // field name -> position; nil while a listpack
}

// NewHash returns an empty hash (a listpack).
func NewHash() *Hash { return &Hash{} }

// Kind returns KindHash.
func (*Hash) Kind() Kind { return KindHash }

// Encoding returns "listpack" or "hashtable", as OBJECT ENCODING does.
func (h *Hash) Encoding() string {
	if h.index != nil {
		return "hashtable"
	}
	return "listpack"
}

// Clone returns a copy. Strings are immutable, so sharing them is safe.
func (h *Hash) Clone() Value {
	c := &Hash{fields: append([]HashField(nil), h.fields...)}
	if h.index != nil {
		c.index = make(map[string]int, len(h.index))
		for k, v := range h.index {
			c.index[k] = v
		}
	}
	return c
}

// Len returns the number of fields.
func (h *Hash) Len() int { return len(h.fields) }

// Fields returns the fields in iteration order (insertion order while a
// listpack). The caller must not modify the slice.
func (h *Hash) Fields() []HashField { return h.fields }

func (h *Hash) find(name []byte) int {
	if h.index != nil {
		if i, ok := h.index[string(name)]; ok {
			return i
		}
		return -1
	}
	for i := range h.fields {
		if h.fields[i].Name == string(name) {
			return i
		}
	}
	return -1
}

// Get returns the value of field name.
func (h *Hash) Get(name []byte) (string, bool) {
	if i := h.find(name); i >= 0 {
		return h.fields[i].Value, true
	}
	return "", false
}

// Has reports whether field name exists.
func (h *Hash) Has(name []byte) bool { return h.find(name) >= 0 }

// Set sets field name to value and reports whether the field is new. A
// field or value over HashMaxListpackValue bytes, or a field count over
// HashMaxListpackEntries, converts the hash to a hashtable.
func (h *Hash) Set(name, value []byte) (added bool) {
	return h.set(name, string(value))
}

func (h *Hash) set(name []byte, value string) bool {
	if h.index == nil && (len(name) > HashMaxListpackValue || len(value) > HashMaxListpackValue) {
		h.convert()
	}
	if i := h.find(name); i >= 0 {
		h.fields[i].Value = value
		return false
	}
	h.fields = append(h.fields, HashField{Name: string(name), Value: value})
	if h.index != nil {
		h.index[h.fields[len(h.fields)-1].Name] = len(h.fields) - 1
	} else if len(h.fields) > HashMaxListpackEntries {
		h.convert()
	}
	return true
}

// convert makes the hash a hashtable.
func (h *Hash) convert() {
	h.index = make(map[string]int, len(h.fields))
	for i, f := range h.fields {
		h.index[f.Name] = i
	}
}

// Delete removes field name and reports whether it existed.
func (h *Hash) Delete(name []byte) bool {
	i := h.find(name)
	if i < 0 {
		return false
	}
	last := len(h.fields) - 1
	if h.index == nil {
		copy(h.fields[i:], h.fields[i+1:]) // a listpack keeps its order
	} else {
		delete(h.index, h.fields[i].Name)
		if i != last {
			h.fields[i] = h.fields[last]
			h.index[h.fields[i].Name] = i
		}
	}
	h.fields[last] = HashField{}
	h.fields = h.fields[:last]
	return true
}

// IncrBy adds delta to the integer in field name (created at 0) and returns
// the result (HINCRBY).
func (h *Hash) IncrBy(name []byte, delta int64) (int64, error) {
	var n int64
	if v, ok := h.Get(name); ok {
		if n, ok = number.ParseInt(v); !ok {
			return 0, ErrHashNotInteger
		}
	}
	if (delta < 0 && n < 0 && delta < math.MinInt64-n) || (delta > 0 && n > 0 && delta > math.MaxInt64-n) {
		return 0, ErrOverflow
	}
	n += delta
	h.set(name, strconv.FormatInt(n, 10))
	return n, nil
}

// IncrByFloat adds delta to the number in field name (created at 0) in
// long double arithmetic, stores the result formatted as Redis does, and
// returns it (HINCRBYFLOAT). delta must be finite.
func (h *Hash) IncrByFloat(name []byte, delta *big.Float) (string, error) {
	value := new(big.Float).SetPrec(number.LongDoublePrec)
	if v, ok := h.Get(name); ok {
		if value, ok = number.ParseLongDouble(v); !ok {
			return "", ErrHashNotFloat
		}
	}
	sum, ok := number.AddLongDouble(value, delta)
	if !ok {
		return "", ErrNaNOrInf
	}
	s := number.FormatLongDouble(sum)
	h.set(name, s)
	return s, nil
}

// Random returns count fields picked at random (HRANDFIELD): distinct ones,
// at most Len(), when distinct is set (the whole hash, in order, when count
// covers it, as Redis does); otherwise exactly count, with repetitions.
func (h *Hash) Random(count int, distinct bool) []HashField {
	n := len(h.fields)
	if n == 0 || count <= 0 {
		return nil
	}
	if !distinct {
		out := make([]HashField, count)
		for i := range out {
			out[i] = h.fields[rand.IntN(n)]
		}
		return out
	}
	if count >= n {
		return append([]HashField(nil), h.fields...)
	}
	out := make([]HashField, count)
	for i, pos := range Sample(n, count) {
		out[i] = h.fields[pos]
	}
	return out
}

// Scan visits fields for HSCAN and returns the cursor to continue from. A
// listpack is visited whole with cursor 0, as Redis does. A hashtable is
// walked from the end, count fields at a time, like DB.Scan: swap-removal
// moves an already visited field into a hole, so a field that lives
// through the whole scan is always returned.
func (h *Hash) Scan(cursor uint64, count int, visit func(f HashField)) uint64 {
	if h.index == nil {
		for _, f := range h.fields {
			visit(f)
		}
		return 0
	}
	count = max(count, 1)
	i := len(h.fields) - 1
	if cursor > 0 && cursor-1 < uint64(len(h.fields)) {
		i = int(cursor - 1)
	}
	for ; i >= 0 && count > 0; i, count = i-1, count-1 {
		visit(h.fields[i])
	}
	if i < 0 {
		return 0
	}
	return uint64(i) + 1
}

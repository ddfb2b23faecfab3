package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/listpack"
	"github.com/floodgate/floodgate/internal/lzf"
	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/store"
)

func TestCRC64(t *testing.T) {
	// The check value of Redis's crc64.c self-test.
	if got := CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64 = %x", got)
	}
}

func TestLZFRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := [][]byte{
		bytes.Repeat([]byte("a"), 1000),
		[]byte(strings.Repeat("floodgate rate limiter ", 300)),
		bytes.Repeat([]byte("abcdefgh"), 10000),
	}
	for range 50 {
		b := make([]byte, rng.IntN(20000)+21)
		for i := range b {
			b[i] = byte('a' + rng.IntN(4)) // compressible but irregular
		}
		inputs = append(inputs, b)
	}
	for _, in := range inputs {
		c := lzf.Compress(in, len(in)-4)
		if c == nil {
			t.Fatalf("did not compress %d bytes", len(in))
		}
		out, err := lzf.Decompress(c, len(in))
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("round trip of %d bytes: %v", len(in), err)
		}
	}
	random := make([]byte, 100)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	if lzf.Compress(random, len(random)-4) != nil {
		t.Fatal("random bytes compressed")
	}
}

// fill builds a store holding every type in every encoding floodgate
// keeps, with TTLs, in several databases. The TTLs are hours away, so a
// loaded machine cannot expire a key half-way through a test.
func fill(s *store.Store, now int64) {
	for d := range 3 {
		db := s.DB(d * 7)
		set := func(k string, v store.Value, at int64) { db.Set([]byte(k), v, at) }
		set("int", store.NewInt(12345), 0)
		set("neg", store.NewInt(-7), 0)
		set("bigint", store.NewInt(math.MaxInt64), 0)
		set("minint", store.NewInt(math.MinInt64), 0)
		set("int32", store.NewInt(1<<31-1), 0)
		set("small", store.NewString([]byte("hello")), 0)
		set("empty", store.NewString(nil), 0)
		set("notcanon", store.NewString([]byte("007")), 0)
		set("compressible", store.NewString(bytes.Repeat([]byte("xy"), 5000)), now+2*3600_000)
		set("big", store.NewString(bytes.Repeat([]byte{0, 1, 2, 3, 250}, 200000)), 0)
		set("ttl", store.NewString([]byte("v")), now+3600_000)
		set("hll", store.NewHLL(), 0)
		is := store.NewSet()
		for _, m := range []string{"3", "-1", "70000"} {
			is.Add([]byte(m), &store.DefaultEncodings)
		}
		set("intset", is, now+3*3600_000)
		is64 := store.NewSet()
		is64.Add([]byte("1"), &store.DefaultEncodings)
		is64.Add([]byte("9000000000"), &store.DefaultEncodings)
		set("intset64", is64, 0)
		hs := store.NewSet()
		for i := range 600 {
			hs.Add([]byte(fmt.Sprint("m", i)), &store.DefaultEncodings)
		}
		set("hashset", hs, 0)
		bigints := store.NewSet()
		for i := range 1000 {
			bigints.Add([]byte(strconv.Itoa(i)), &store.DefaultEncodings)
		}
		set("bigintset", bigints, 0)
		h := store.NewHash()
		h.Set([]byte("f1"), []byte("v1"), &store.DefaultEncodings)
		h.Set([]byte("n"), []byte("-300000"), &store.DefaultEncodings)
		h.Set([]byte("e"), nil, &store.DefaultEncodings)
		set("lphash", h, 0)
		hh := store.NewHash()
		for i := range 300 {
			hh.Set([]byte(fmt.Sprint("field", i)), []byte(strings.Repeat("v", i)), &store.DefaultEncodings)
		}
		set("hthash", hh, 0)
		z := store.NewZSet()
		for i, sc := range []float64{1, -2.5, math.Inf(1), math.Inf(-1), 0.1, 1e300, 5e-324, 4503599627370497} {
			z.Add([]byte(fmt.Sprint("z", i)), sc, &store.DefaultEncodings)
		}
		set("lpzset", z, 0)
		zz := store.NewZSet()
		for i := range 500 {
			zz.Add([]byte(fmt.Sprint("member:", i)), float64(i)/3, &store.DefaultEncodings)
		}
		set("skipzset", zz, now+86400_000)
		small := store.NewList()
		small.PushBack([]byte("a"), []byte("12"), []byte("-70000"), nil)
		set("list", small, now+4*3600_000)
		long := store.NewList()
		for i := range 3000 { // several 8 KB nodes
			long.PushBack(fmt.Appendf(nil, "element-%d", i))
		}
		long.PushBack(bytes.Repeat([]byte("z"), 10000))
		set("biglist", long, 0)
		set("stream", testStream(now), 0)
		set("emptystream", store.NewStream(), 0)
	}
}

// testStream is a stream of several nodes with tombstones, a trimmed head
// and a consumer group with pending entries.
func testStream(now int64) *store.Stream {
	st := store.NewStream()
	lim := store.DefaultEncodings.StreamLimits()
	for i := 1; i <= 250; i++ {
		fv := [][]byte{[]byte("f"), []byte(strconv.Itoa(i)), []byte("g"), []byte("text")}
		if i%7 == 0 {
			fv = [][]byte{[]byte("other"), bytes.Repeat([]byte("x"), i)}
		}
		st.Append(store.StreamID{Ms: uint64(1000 + i), Seq: uint64(i % 3)}, fv, lim)
	}
	st.DeleteIDs([]store.StreamID{{Ms: 1010, Seq: 1}, {Ms: 1150, Seq: 0}})
	st.Trim(store.TrimArgs{Strategy: store.TrimMaxLen, MaxLen: 230})
	g := st.CreateGroup("grp", store.StreamID{Ms: 1100, Seq: 1}, 80)
	st.CreateGroup("empty", store.StreamID{}, store.StreamInvalidEntriesRead)
	c := g.CreateConsumer("alice", now)
	g.CreateConsumer("bob", now-5)
	for _, id := range []store.StreamID{{Ms: 1050, Seq: 2}, {Ms: 1099, Seq: 0}} {
		n := &store.StreamNACK{DeliveryTime: now - 100, DeliveryCount: 3, Consumer: c}
		g.PEL.Set(id, n)
		c.PEL.Set(id, n)
	}
	return st
}

// describeStream renders a stream's entries and counters the way
// describeRedis renders XRANGE and XINFO STREAM's.
func describeStream(s *store.Stream) string {
	var entries []any
	it := s.Iter(store.StreamID{}, store.MaxStreamID, false)
	for {
		id, ok := it.Next()
		if !ok {
			break
		}
		var fv []any
		for _, b := range it.Fields(nil) {
			fv = append(fv, string(b))
		}
		entries = append(entries, []any{id.String(), fv})
	}
	var groups []string
	for _, g := range s.Groups() {
		groups = append(groups, fmt.Sprint(g.Name, " ", g.LastID, " ", g.EntriesRead, " ", g.PEL.Len(), " ", len(g.Consumers())))
	}
	return fmt.Sprint(entries, " ", s.Len(), " ", s.LastID(), " ", s.FirstID(), " ", s.MaxDeletedID(), " ", s.EntriesAdded(), " ", groups)
}

// describe renders a store's content, comparable across stores.
func describe(s *store.Store) map[string]string {
	out := map[string]string{}
	for i := range s.Databases() {
		db := s.DB(i)
		db.Each(func(e *store.Entry) {
			out[fmt.Sprint(i, ":", e.Key())] = fmt.Sprint(db.ExpireAt(e), " ", encoding(e.Value()), " ", describeValue(e.Value()))
		})
	}
	return out
}

// encoding is OBJECT ENCODING, but raw and embstr alike: a string loaded
// from a file is embstr whatever it was, in Redis too.
func encoding(v store.Value) string {
	if e := v.Encoding(); e != "raw" {
		return e
	}
	return "embstr"
}

func describeValue(v store.Value) string {
	switch v := v.(type) {
	case *store.String:
		return strconv.Quote(string(v.Bytes()))
	case *store.Set:
		m := v.Members()
		slices.Sort(m)
		return strings.Join(m, ",")
	case *store.Hash:
		var f []string
		for _, x := range v.Fields() {
			f = append(f, x.Name+"="+x.Value)
		}
		slices.Sort(f)
		return strings.Join(f, ",")
	case *store.List:
		var f []string
		v.Range(0, v.Len()-1, func(e []byte) bool {
			f = append(f, strconv.Quote(string(e)))
			return true
		})
		return strings.Join(f, ",")
	case *store.ZSet:
		var f []string
		v.Ascend(0, func(m []byte, s float64) bool {
			f = append(f, fmt.Sprint(string(m), "=", s))
			return true
		})
		return strings.Join(f, ",")
	case *store.Stream:
		return describeStream(v)
	}
	return fmt.Sprintf("%T", v)
}

func saved(t testing.TB, s *store.Store, opts Options) []byte {
	var buf bytes.Buffer
	if err := Save(&buf, s, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	redistest.SkipUnderRace(t)
	now := time.Now().UnixMilli()
	for _, opts := range []Options{{}, {Compress: true, Checksum: true, Aux: []Aux{{"redis-ver", "7.0.15"}, {"redis-bits", "64"}}}} {
		src := store.New(16, nil)
		fill(src, now)
		file := saved(t, src, opts)
		dst := store.New(16, nil)
		info, err := Load(bytes.NewReader(file), dst, LoadOptions{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if info.Keys != len(describe(src)) || len(info.Aux) != len(opts.Aux) {
			t.Fatalf("loaded %d keys, %d aux", info.Keys, len(info.Aux))
		}
		want, got := describe(src), describe(dst)
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: got %.200s, want %.200s", k, got[k], v)
			}
		}
	}
}

func TestCompressionShrinks(t *testing.T) {
	s := store.New(1, nil)
	s.DB(0).Set([]byte("k"), store.NewString(bytes.Repeat([]byte("ab"), 50000)), 0)
	plain, packed := saved(t, s, Options{}), saved(t, s, Options{Compress: true})
	if len(packed) >= len(plain)/10 {
		t.Fatalf("compressed file %d bytes, plain %d", len(packed), len(plain))
	}
}

func TestExpiredKeysSkipped(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, Options{Checksum: true})
	w.SelectDB(0, 2, 1)
	w.Key("old", store.NewInt(1), 1000)
	w.Key("new", store.NewInt(1), 0)
	w.Close()
	dst := store.New(1, nil)
	info, err := Load(&buf, dst, LoadOptions{Now: 2000})
	if err != nil || info.Keys != 1 || info.Expired != 1 || dst.DB(0).Len() != 1 {
		t.Fatalf("info %+v err %v", info, err)
	}
}

// Every truncation of a file is an error, never a panic or a silent
// partial load.
func TestTruncated(t *testing.T) {
	t.Parallel()
	redistest.SkipUnderRace(t)
	s := store.New(16, nil)
	fill(s, time.Now().UnixMilli())
	s.DB(0).Delete([]byte("big")) // keep the test fast
	s.DB(7).Delete([]byte("big"))
	s.DB(14).Delete([]byte("big"))
	file := saved(t, s, Options{Compress: true, Checksum: true})
	for n := 0; n < len(file); n += 1 + n/200 {
		_, err := Load(bytes.NewReader(file[:n]), store.New(16, nil), LoadOptions{})
		if err == nil {
			t.Fatalf("prefix of %d/%d bytes loaded", n, len(file))
		}
	}
	if _, err := Load(bytes.NewReader(file[:len(file)-1]), store.New(16, nil), LoadOptions{}); !errors.Is(err, ErrShortRead) {
		t.Fatalf("file missing a byte: %v", err)
	}
}

func TestChecksum(t *testing.T) {
	s := store.New(1, nil)
	s.DB(0).Set([]byte("key"), store.NewString([]byte("value")), 0)
	file := saved(t, s, Options{Checksum: true})
	bad := bytes.Clone(file)
	bad[len(bad)-12] ^= 1 // inside the value
	_, err := Load(bytes.NewReader(bad), store.New(1, nil), LoadOptions{})
	var ce *ChecksumError
	if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "Wrong RDB checksum expected: (") {
		t.Fatalf("got %v", err)
	}
	if _, err := Load(bytes.NewReader(bad), store.New(1, nil), LoadOptions{SkipChecksum: true}); err != nil {
		t.Fatalf("rdbchecksum no: %v", err)
	}
	// A zero footer (written with rdbchecksum no) is not checked.
	if _, err := Load(bytes.NewReader(saved(t, s, Options{})), store.New(1, nil), LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file []byte
		want string
	}{
		{[]byte("RUBBISH00"), "Wrong signature trying to load DB from file"},
		{[]byte("REDIS0011\xff"), "Can't handle RDB format version 11"},
		{append([]byte("REDIS0010\x07\x01k"), 0xff), "Unknown RDB encoding type 7"},
		{[]byte("REDIS0010\xfe\x00\x00\x01k\x01v\x00\x01k\x01w\xff\x00\x00\x00\x00\x00\x00\x00\x00"), "Duplicate key 'k' found in RDB file"},
	} {
		_, err := Load(bytes.NewReader(c.file), store.New(1, nil), LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.file, err, c.want)
		}
	}
}

func TestDumpRestore(t *testing.T) {
	t.Parallel()
	redistest.SkipUnderRace(t)
	s := store.New(16, nil)
	fill(s, 0)
	s.DB(0).Each(func(e *store.Entry) {
		p, err := Dump(e.Value(), true)
		if err != nil {
			t.Fatal(err)
		}
		v, err := Restore(p, false, &store.DefaultEncodings)
		if err != nil {
			t.Fatalf("%s: %v", e.Key(), err)
		}
		if describeValue(v) != describeValue(e.Value()) || encoding(v) != encoding(e.Value()) {
			t.Fatalf("%s: restored %s", e.Key(), v.Encoding())
		}
		p[0] ^= 0x40
		if _, err := Restore(p, false, &store.DefaultEncodings); err != ErrPayload {
			t.Fatalf("%s: corrupted payload: %v", e.Key(), err)
		}
	})
	for _, p := range []string{"", "\x00", "\x00\x03abc\x0b\x00", "\x00\x03abc\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00"} {
		if _, err := Restore([]byte(p), false, &store.DefaultEncodings); err != ErrPayload {
			t.Errorf("%q: %v", p, err)
		}
	}
	// A valid footer around a bad body.
	body := []byte{typeSet, 5}
	body = append(body, Version, 0)
	body = append(body, make([]byte, 8)...)
	if _, err := Restore(body, true, &store.DefaultEncodings); err != ErrBadFormat {
		t.Fatalf("bad body: %v", err)
	}
}

// FuzzLoad: the loader never panics or hangs, whatever the bytes.
func FuzzLoad(f *testing.F) {
	s := store.New(16, nil)
	fill(s, 0)
	for i := range 16 {
		s.DB(i).Delete([]byte("big"))
		s.DB(i).Delete([]byte("bigintset"))
		s.DB(i).Delete([]byte("hashset"))
		s.DB(i).Delete([]byte("hthash"))
		s.DB(i).Delete([]byte("skipzset"))
	}
	f.Add(saved(f, s, Options{Compress: true}))
	f.Add(saved(f, s, Options{}))
	f.Add([]byte("REDIS0010\xfe\x00\x0b\x01k\x0c\x02\x00\x00\x00\x01\x00\x00\x00\x05\x00\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		Load(bytes.NewReader(b), store.New(16, nil), LoadOptions{SkipChecksum: true})
		if len(b) > 0 {
			Restore(b, true, &store.DefaultEncodings)
		}
	})
}

// TestDumpKeepsScoreText: a listpack sorted set whose score entries are
// not the ones Redis writes dumps back byte for byte, as Redis's does; one
// whose entries are Redis's own is rewritten the same.
func TestDumpKeepsScoreText(t *testing.T) {
	type entry struct {
		s    string
		text bool // a string entry even if it reads as an integer
	}
	cases := [][]entry{
		{{"m", false}, {"x", false}},
		{{"m", false}, {"1.50", false}, {"n", false}, {"2", false}},
		{{"m", false}, {"-0", false}},
		{{"m", false}, {"5", true}},
		{{"m", false}, {"9007199254740993", false}}, // an integer entry
		{{"n", false}, {"0.10000000000000001", false}, {"m", false}, {"1.5", false}, {"o", false}, {"7", false}},
	}
	for _, entries := range cases {
		lp := listpack.New()
		for _, e := range entries {
			if e.text {
				lp.AppendText([]byte(e.s))
			} else {
				lp.AppendString([]byte(e.s))
			}
		}
		payload := appendString([]byte{typeZSetListpack}, lp.Bytes(), false)
		payload = binary.LittleEndian.AppendUint16(payload, Version)
		payload = binary.LittleEndian.AppendUint64(payload, CRC64(0, payload))
		v, err := Restore(payload, false, &store.DefaultEncodings)
		if err != nil {
			t.Fatalf("%v: %v", entries, err)
		}
		if got, _ := Dump(v, false); !bytes.Equal(got, payload) {
			t.Errorf("%v: dumped %q, want %q", entries, got, payload)
		}
		if got, _ := Dump(v.Clone(), false); !bytes.Equal(got, payload) {
			t.Errorf("%v: the clone dumped %q", entries, got)
		}
	}
}

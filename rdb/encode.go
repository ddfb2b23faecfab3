// Package rdb reads and writes Redis 7.0's RDB format (version 10): whole
// snapshots of a store, and the value serialization DUMP and RESTORE use.
// It follows Redis's src/rdb.c choices so that redis-server 7.0 loads what
// it writes, and DUMP payloads equal Redis's byte for byte where Redis's
// encoding is deterministic.
package rdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/floodgate/floodgate/internal/listpack"
	"github.com/floodgate/floodgate/internal/lzf"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

// Version is the RDB format version written (Redis 7.0's).
const Version = 10

// Object types and opcodes of rdb.h.
const (
	typeString           = 0
	typeList             = 1
	typeSet              = 2
	typeZSet             = 3
	typeHash             = 4
	typeZSet2            = 5
	typeHashZipmap       = 9
	typeListZiplist      = 10
	typeSetIntset        = 11
	typeZSetZiplist      = 12
	typeHashZiplist      = 13
	typeListQuicklist    = 14
	typeStreamListpacks  = 15
	typeHashListpack     = 16
	typeZSetListpack     = 17
	typeListQuicklist2   = 18
	typeStreamListpacks2 = 19
	opFunction2          = 245
	opModuleAux          = 247
	opIdle               = 248
	opFreq               = 249
	opAux                = 250
	opResizeDB           = 251
	opExpireTimeMS       = 252
	opExpireTime         = 253
	opSelectDB           = 254
	opEOF                = 255
	encInt8              = 0
	encInt16             = 1
	encInt32             = 2
	encLZF               = 3
	lenEncoded           = 3 // the top two bits of a length byte that says "encoded value"
	compressMinLen       = 20
	integerEncodeMaxLen  = 11
)

// appendLen appends Redis's variable-length length.
func appendLen(b []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(b, byte(n))
	case n < 1<<14:
		return append(b, 0x40|byte(n>>8), byte(n))
	case n <= math.MaxUint32:
		b = append(b, 0x80)
		return binary.BigEndian.AppendUint32(b, uint32(n))
	}
	b = append(b, 0x81)
	return binary.BigEndian.AppendUint64(b, n)
}

// appendIntEncoded appends n as an integer-encoded string if it fits in 32
// bits (rdbEncodeInteger).
func appendIntEncoded(b []byte, n int64) ([]byte, bool) {
	switch {
	case n >= math.MinInt8 && n <= math.MaxInt8:
		return append(b, 0xC0|encInt8, byte(n)), true
	case n >= math.MinInt16 && n <= math.MaxInt16:
		return binary.LittleEndian.AppendUint16(append(b, 0xC0|encInt16), uint16(n)), true
	case n >= math.MinInt32 && n <= math.MaxInt32:
		return binary.LittleEndian.AppendUint32(append(b, 0xC0|encInt32), uint32(n)), true
	}
	return b, false
}

// appendString appends a string as rdbSaveRawString does: short canonical
// integers integer-encoded, strings over 20 bytes LZF-compressed when
// compress is set and that saves at least 4 bytes, the rest verbatim.
func appendString[T ~string | ~[]byte](b []byte, s T, compress bool) []byte {
	if len(s) <= integerEncodeMaxLen {
		if n, ok := number.ParseInt(s); ok {
			if out, ok := appendIntEncoded(b, n); ok {
				return out
			}
		}
	}
	if compress && len(s) > compressMinLen {
		if c := lzf.Compress([]byte(s), len(s)-4); c != nil {
			b = append(b, 0xC0|encLZF)
			b = appendLen(b, uint64(len(c)))
			b = appendLen(b, uint64(len(s)))
			return append(b, c...)
		}
	}
	return append(appendLen(b, uint64(len(s))), s...)
}

// appendInt appends an integer as a string (rdbSaveLongLongAsStringObject).
func appendInt(b []byte, n int64, compress bool) []byte {
	if out, ok := appendIntEncoded(b, n); ok {
		return out
	}
	var digits [20]byte
	return appendString(b, strconv.AppendInt(digits[:0], n, 10), compress)
}

// scoreInt is Redis's double2ll: a score Redis 7.0's zzlInsertAt writes
// into a listpack as an integer entry, one integral and within ±2^62
// (LLONG_MAX/2 as a double), -0 included (it compares equal to 0).
func scoreInt(f float64) (int64, bool) {
	const limit = float64(math.MaxInt64 / 2) // rounds to 2^62, as in C
	if f < -limit || f > limit || f != math.Trunc(f) {
		return 0, false
	}
	return int64(f), true
}

// appendScore appends a score scoreInt refuses as Redis's d2string
// formats it.
func appendScore(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "nan"...)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	return strconv.AppendFloat(b, f, 'g', 17, 64)
}

// objectType is the RDB type Redis 7.0 writes for v's encoding.
func objectType(v store.Value) (byte, error) {
	switch v := v.(type) {
	case *store.String:
		return typeString, nil
	case *store.Set:
		if v.IntsetWidth() > 0 {
			return typeSetIntset, nil
		}
		return typeSet, nil
	case *store.Hash:
		if v.Encoding() == "listpack" {
			return typeHashListpack, nil
		}
		return typeHash, nil
	case *store.ZSet:
		if v.Encoding() == "listpack" {
			return typeZSetListpack, nil
		}
		return typeZSet2, nil
	case *store.List:
		return typeListQuicklist2, nil
	case *store.Stream:
		return typeStreamListpacks2, nil
	}
	return 0, fmt.Errorf("rdb: cannot encode a %T", v)
}

// AppendValue appends v's type byte and its encoding, the encoding Redis
// 7.0 would choose for the same value (rdbSaveObjectType/rdbSaveObject).
func AppendValue(b []byte, v store.Value, compress bool) ([]byte, error) {
	t, err := objectType(v)
	if err != nil {
		return b, err
	}
	return appendObject(append(b, t), v, compress), nil
}

// appendObject appends v's encoding without its type byte.
func appendObject(b []byte, v store.Value, compress bool) []byte {
	switch v := v.(type) {
	case *store.String:
		if n, ok := v.Int(); ok {
			return appendInt(b, n, compress)
		}
		return appendString(b, v.Bytes(), compress)
	case *store.Set:
		if w := v.IntsetWidth(); w > 0 {
			members := v.Members()
			vals := make([]int64, len(members))
			for i, m := range members {
				vals[i], _ = number.ParseInt(m)
			}
			return appendString(b, intsetBytes(vals, w), compress)
		}
		b = appendLen(b, uint64(v.Len()))
		for _, m := range v.Members() {
			b = appendString(b, m, compress)
		}
	case *store.List:
		return appendList(b, v, compress)
	case *store.Stream:
		return appendStream(b, v, compress)
	case *store.Hash:
		if v.Encoding() == "listpack" {
			lp := listpack.New()
			for _, f := range v.Fields() {
				lp.AppendString([]byte(f.Name))
				lp.AppendString([]byte(f.Value))
			}
			return appendString(b, lp.Bytes(), compress)
		}
		b = appendLen(b, uint64(v.Len()))
		for _, f := range v.Fields() {
			b = appendString(b, f.Name, compress)
			b = appendString(b, f.Value, compress)
		}
	case *store.ZSet:
		if v.Encoding() == "listpack" {
			lp := listpack.New()
			var buf [32]byte
			v.AscendText(func(m []byte, s float64, text store.ScoreText, kept bool) bool {
				lp.AppendString(m)
				switch n, isInt := scoreInt(s); {
				case kept && text.Int:
					lp.AppendString(text.Text) // its decimal: an integer entry
				case kept:
					lp.AppendText(text.Text)
				case isInt:
					lp.AppendInt(n)
				default:
					lp.AppendString(appendScore(buf[:0], s))
				}
				return true
			})
			return appendString(b, lp.Bytes(), compress)
		}
		// Redis writes a skiplist from its tail, so loading inserts at the head.
		b = appendLen(b, uint64(v.Len()))
		v.Descend(v.Len()-1, func(m []byte, s float64) bool {
			b = appendString(b, m, compress)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s))
			return true
		})
	}
	return b
}

// listContainerPlain and listContainerPacked are a quicklist node's
// container: one element as is, or a listpack.
const (
	listContainerPlain  = 1
	listContainerPacked = 2
)

// appendList writes the list's quicklist nodes as Redis does: a node Redis
// holds LZF-compressed (list-compress-depth) is saved so whatever
// rdbcompression says, the others as strings.
func appendList(b []byte, l *store.List, compress bool) []byte {
	b = appendLen(b, uint64(l.NodeCount()))
	l.Nodes(func(lp []byte, compressed bool) {
		b = appendLen(b, listContainerPacked)
		if compressed {
			if c := lzf.Compress(lp, len(lp)); c != nil {
				b = append(b, 0xC0|encLZF)
				b = appendLen(b, uint64(len(c)))
				b = appendLen(b, uint64(len(lp)))
				b = append(b, c...)
				return
			}
		}
		b = appendString(b, lp, compress)
	})
	return b
}

// Aux is an auxiliary field of the RDB header (redis-ver, ctime, ...).
type Aux struct{ Key, Value string }

// Options say how to write.
type Options struct {
	Compress bool  // rdbcompression
	Checksum bool  // rdbchecksum: without it the footer is zero, as Redis writes it
	Aux      []Aux // written after the signature, in order
	// Functions are the function libraries' codes, written after the
	// aux fields as Redis 7.0 writes them (functions.go).
	Functions []string
}

// Writer writes an RDB file: the header, then databases and their keys in
// any order the caller drives, then Close's footer.
type Writer struct {
	w    io.Writer
	opts Options
	crc  uint64
	buf  []byte
	err  error
}

// flushAt is how much the writer buffers before writing through.
const flushAt = 64 << 10

// NewWriter writes the signature and aux fields to w.
func NewWriter(w io.Writer, opts Options) *Writer {
	wr := &Writer{w: w, opts: opts, buf: make([]byte, 0, flushAt*2)}
	wr.buf = append(wr.buf, fmt.Sprintf("REDIS%04d", Version)...)
	for _, a := range opts.Aux {
		wr.buf = append(wr.buf, opAux)
		wr.buf = appendString(wr.buf, a.Key, false)
		wr.buf = appendString(wr.buf, a.Value, false)
	}
	for _, code := range opts.Functions {
		wr.buf = appendFunction(wr.buf, code, opts.Compress)
	}
	return wr
}

// SelectDB starts database i, with its size hints for RESIZEDB.
func (w *Writer) SelectDB(i, keys, expires int) {
	w.buf = append(w.buf, opSelectDB)
	w.buf = appendLen(w.buf, uint64(i))
	w.buf = append(w.buf, opResizeDB)
	w.buf = appendLen(w.buf, uint64(keys))
	w.buf = appendLen(w.buf, uint64(expires))
}

// Key writes one key; expireAt is unix ms, 0 for none.
func (w *Writer) Key(key string, v store.Value, expireAt int64) error {
	t, err := objectType(v)
	if err != nil {
		return err
	}
	if expireAt != 0 {
		w.buf = append(w.buf, opExpireTimeMS)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(expireAt))
	}
	w.buf = appendString(append(w.buf, t), key, w.opts.Compress)
	w.buf = appendObject(w.buf, v, w.opts.Compress)
	if len(w.buf) >= flushAt {
		w.flush()
	}
	return w.err
}

func (w *Writer) flush() {
	if w.err != nil || len(w.buf) == 0 {
		w.buf = w.buf[:0]
		return
	}
	w.crc = CRC64(w.crc, w.buf)
	_, w.err = w.w.Write(w.buf)
	w.buf = w.buf[:0]
}

// Close writes the EOF opcode and the checksum and flushes; it does not
// close the underlying writer.
func (w *Writer) Close() error {
	w.buf = append(w.buf, opEOF)
	w.flush()
	var sum uint64
	if w.opts.Checksum {
		sum = w.crc
	}
	if w.err == nil {
		_, w.err = w.w.Write(binary.LittleEndian.AppendUint64(nil, sum))
	}
	return w.err
}

// Save writes a whole store. The caller must keep the store still while it
// runs (hold the execution lock); a background save uses a store.Snapshot
// and a Writer instead.
func Save(out io.Writer, s *store.Store, opts Options) error {
	w := NewWriter(out, opts)
	now := s.Now()
	for i := range s.Databases() {
		db := s.DB(i)
		if db.Len() == 0 {
			continue
		}
		w.SelectDB(i, db.Len(), db.Expires())
		var err error
		db.Each(func(e *store.Entry) {
			if at := db.ExpireAt(e); err == nil && (at == 0 || at >= now) {
				err = w.Key(e.Key(), e.Value(), at)
			}
		})
		if err != nil {
			return err
		}
	}
	return w.Close()
}

// Dump returns v's DUMP payload: its RDB encoding, the RDB version as two
// little-endian bytes, and the CRC64 of all that.
func Dump(v store.Value, compress bool) ([]byte, error) {
	b, err := AppendValue(nil, v, compress)
	if err != nil {
		return nil, err
	}
	b = binary.LittleEndian.AppendUint16(b, Version)
	return binary.LittleEndian.AppendUint64(b, CRC64(0, b)), nil
}

// A background save hands the saver keys in steps under the lock, sized
// to hold the lock about stepTarget each (the first step holds
// stepMin keys; the size then follows the time the last step took, within
// [stepMin, stepMax]). Under the lock a step only walks the keyspace and
// takes each key's value and TTL; the encoding, the checksum and the
// writing happen outside it (Snapshot.Next says why that is safe).
const (
	stepTarget = 10 * time.Microsecond
	stepMin    = 64
	stepMax    = 4096
)

// ErrAborted is SaveSnapshot's error when locked refused a step.
var ErrAborted = errors.New("rdb: save aborted")

// snapshotKey is one key a step took for the encoder.
type snapshotKey struct {
	db       int
	key      string
	value    store.Value
	expireAt int64
}

// SaveSnapshot writes a store.Snapshot as an RDB file while the store goes
// on changing (BGSAVE, an AOF rewrite's base). locked must run step with
// the store held still (the server's execution lock), or return false to
// abort; only the walk happens inside steps, the encoding and writing to
// out outside them. progress, if not nil, counts the keys written, updated
// inside steps.
func SaveSnapshot(out io.Writer, sn *store.Snapshot, opts Options, locked func(step func()) bool, progress *int64) error {
	w := NewWriter(out, opts)
	cur := -1
	var batch []snapshotKey
	n := stepMin
	for more := true; more; {
		done := len(batch)
		batch = batch[:0]
		var took time.Duration
		ok := locked(func() {
			if progress != nil {
				*progress += int64(done)
			}
			start := time.Now()
			more = sn.Next(n, func(db int, key string, v store.Value, expireAt int64) {
				batch = append(batch, snapshotKey{db, key, v, expireAt})
			})
			took = time.Since(start)
		})
		if !ok {
			return ErrAborted
		}
		if len(batch) == n && took > 0 {
			n = min(max(int(int64(n)*int64(stepTarget)/int64(took)), stepMin), stepMax)
		}
		for _, k := range batch {
			if k.db != cur {
				keys, expires := sn.Sizes(k.db)
				w.SelectDB(k.db, keys, expires)
				cur = k.db
			}
			if err := w.Key(k.key, k.value, k.expireAt); err != nil {
				return err
			}
		}
	}
	if progress != nil {
		locked(func() { *progress += int64(len(batch)) })
	}
	return w.Close()
}

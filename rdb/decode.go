package rdb

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/floodgate/floodgate/internal/lzf"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/floodgate/floodgate/internal/listpack"
	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

// Errors of loading, with Redis's texts (rdb.c, server.c).
var (
	// ErrShortRead is a file that ends early (or a length beyond it).
	ErrShortRead = errors.New("Short read or OOM loading DB. Unrecoverable error, aborting now.")
	// ErrSignature is a file that is not an RDB file.
	ErrSignature = errors.New("Wrong signature trying to load DB from file")
	// ErrBadFormat is a DUMP payload whose value cannot be decoded.
	ErrBadFormat = errors.New("Bad data format")
	// ErrPayload is a DUMP payload of a newer version or with a wrong checksum.
	ErrPayload = errors.New("DUMP payload version or checksum are wrong")
	// errEmptyKey is an empty collection, which Redis skips on load.
	errEmptyKey = errors.New("empty key")
)

// VersionError is a file of an RDB version this reader does not know.
type VersionError int

func (e VersionError) Error() string {
	return fmt.Sprintf("Can't handle RDB format version %d", int(e))
}

// ChecksumError is a file whose CRC64 footer does not match its content.
type ChecksumError struct{ Expected, Got uint64 }

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("Wrong RDB checksum expected: (%x) got (%x). Aborting now.", e.Expected, e.Got)
}

// CorruptError is content that cannot be what Redis writes.
type CorruptError struct {
	Offset int64
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("Internal error in RDB reading offset %d, function at rdb.c:0 -> %s", e.Offset, e.Reason)
}

// LoadOptions say how to load.
type LoadOptions struct {
	// Now is the time in unix ms before which expired keys are skipped, as
	// a master skips them; 0 loads them all.
	Now int64
	// SkipChecksum ignores the footer (rdbchecksum no).
	SkipChecksum bool
	// Progress, when set, is called after each key record (loaded, expired
	// or empty) with the offset read so far; an error stops the load with
	// it. The server serves its clients and applies key-load-delay there,
	// as Redis's loader does between keys.
	Progress func(offset int64) error
	// Aux, when set, is called with each auxiliary field as it is read
	// (the server shows used-mem in INFO while it loads).
	Aux func(key, value string)
	// Expired, when set, is called with each key skipped because its time
	// had passed (Now), and its database: a master feeds its replicas a DEL
	// for it, as Redis's loader does (RDBFLAGS_FEED_REPL). key is valid
	// only during the call.
	Expired func(db int, key []byte)
	// Function, when set, is called with each function library's code
	// (functions.go); its error stops the load. Without it a file holding
	// functions is refused.
	Function func(code string) error
	// AllowDup lets a key of the file replace one the keyspace holds
	// (RDBFLAGS_ALLOW_DUP, DEBUG RELOAD MERGE); without it such a key
	// stops the load.
	AllowDup bool
}

// LoadInfo describes what a load found.
type LoadInfo struct {
	Aux     []Aux
	Keys    int // keys loaded
	Expired int // keys skipped because their time had passed
	Empty   int // empty collections skipped, as Redis does
	// Bytes is the file's length up to and including its checksum: where an
	// AOF's tail starts after an RDB preamble (Load reads ahead, so the
	// caller seeks there rather than reading on).
	Bytes int64
}

// reader tracks the offset and the running CRC64 of what it has read.
type reader struct {
	r   *bufio.Reader
	off int64
	crc uint64
	buf []byte
	enc *store.Encodings // the thresholds a loaded value is converted by
	// scratch holds fixed-size fields (lengths, expiry times, integers),
	// and key and str the last key and string value read: a load of a
	// million keys then allocates only what the store keeps.
	scratch  [8]byte
	key, str []byte
}

func (r *reader) bytes(n uint64) ([]byte, error) { return r.bytesTo(nil, n) }

// bytesTo reads n bytes into dst[:0], growing it as needed.
func (r *reader) bytesTo(dst []byte, n uint64) ([]byte, error) {
	// Read big lengths in steps so a corrupt length cannot make us allocate
	// what the file does not hold.
	if n > 1<<40 {
		return nil, ErrShortRead
	}
	out := dst[:0]
	if n <= uint64(cap(out)) {
		out = out[:n]
		if _, err := io.ReadFull(r.r, out); err != nil {
			return nil, ErrShortRead
		}
	}
	for uint64(len(out)) < n {
		step := min(n-uint64(len(out)), 1<<20)
		start := len(out)
		out = append(out, make([]byte, step)...)
		if _, err := io.ReadFull(r.r, out[start:]); err != nil {
			return nil, ErrShortRead
		}
	}
	r.crc = CRC64(r.crc, out)
	r.off += int64(n)
	return out, nil
}

// fixed reads n <= 8 bytes, valid until the next fixed.
func (r *reader) fixed(n int) ([]byte, error) { return r.bytesTo(r.scratch[:0], uint64(n)) }

// reuse returns b[:0] to read into again, unless it is too big to keep.
func reuse(b []byte) []byte {
	if cap(b) > 64<<10 {
		return nil
	}
	return b[:0]
}

func (r *reader) byte() (byte, error) {
	c, err := r.r.ReadByte()
	if err != nil {
		return 0, ErrShortRead
	}
	r.crc = CRC64(r.crc, []byte{c})
	r.off++
	return c, nil
}

func (r *reader) corrupt(format string, args ...any) error {
	return &CorruptError{Offset: r.off, Reason: fmt.Sprintf(format, args...)}
}

// length reads a length; encoded reports an "encoded value" byte instead,
// whose kind is then the returned number.
func (r *reader) length() (n uint64, encoded bool, err error) {
	c, err := r.byte()
	if err != nil {
		return 0, false, err
	}
	switch c >> 6 {
	case 0:
		return uint64(c & 0x3f), false, nil
	case 1:
		c2, err := r.byte()
		return uint64(c&0x3f)<<8 | uint64(c2), false, err
	case lenEncoded:
		return uint64(c & 0x3f), true, nil
	}
	switch c {
	case 0x80:
		b, err := r.fixed(4)
		if err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(b)), false, nil
	case 0x81:
		b, err := r.fixed(8)
		if err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(b), false, nil
	}
	return 0, false, r.corrupt("Unknown length encoding %d in rdbLoadLen()", c)
}

func (r *reader) plainLength() (uint64, error) {
	n, enc, err := r.length()
	if err == nil && enc {
		err = r.corrupt("Unexpected encoded length")
	}
	return n, err
}

// string reads a string in any of its encodings.
func (r *reader) string() ([]byte, error) { return r.stringTo(nil) }

// stringTo is string reading into dst[:0] where it can.
func (r *reader) stringTo(dst []byte) ([]byte, error) {
	n, enc, err := r.length()
	if err != nil {
		return nil, err
	}
	if !enc {
		return r.bytesTo(dst, n)
	}
	switch n {
	case encInt8, encInt16, encInt32:
		b, err := r.fixed(1 << n)
		if err != nil {
			return nil, err
		}
		var v int64
		switch n {
		case encInt8:
			v = int64(int8(b[0]))
		case encInt16:
			v = int64(int16(binary.LittleEndian.Uint16(b)))
		default:
			v = int64(int32(binary.LittleEndian.Uint32(b)))
		}
		return strconv.AppendInt(dst[:0], v, 10), nil
	case encLZF:
		clen, err := r.plainLength()
		if err != nil {
			return nil, err
		}
		ulen, err := r.plainLength()
		if err != nil {
			return nil, err
		}
		c, err := r.bytes(clen)
		if err != nil {
			return nil, err
		}
		// A back reference of 3 bytes expands to at most 264: a longer
		// claimed length is corrupt, and must not be allocated.
		if ulen == 0 || ulen > clen*(lzf.MaxRef/3+1) {
			return nil, r.corrupt("Invalid LZF compressed string")
		}
		out, err := lzf.Decompress(c, int(ulen))
		if err != nil {
			return nil, r.corrupt("Invalid LZF compressed string")
		}
		return out, nil
	}
	return nil, r.corrupt("Unknown RDB string encoding type %d", n)
}

func (r *reader) binaryDouble() (float64, error) {
	b, err := r.fixed(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}

// stringDouble reads the old ZSET type's score: a length byte (253 nan,
// 254 inf, 255 -inf) and that many ASCII bytes.
func (r *reader) stringDouble() (float64, error) {
	l, err := r.byte()
	if err != nil {
		return 0, err
	}
	switch l {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	b, err := r.bytes(uint64(l))
	if err != nil {
		return 0, err
	}
	f, ok := number.ParseDouble(b)
	if !ok {
		return 0, r.corrupt("Invalid double")
	}
	return f, nil
}

// object reads a value of type t.
func (r *reader) object(t byte) (store.Value, error) {
	switch t {
	case typeString:
		b, err := r.stringTo(r.str)
		if err != nil {
			return nil, err
		}
		r.str = reuse(b)
		return store.NewString(b), nil // a copy
	case typeSet:
		n, err := r.plainLength()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, errEmptyKey
		}
		// As rdbLoadObject: a set with more members than
		// set-max-intset-entries is a hashtable from the start.
		s := store.NewSet()
		if n > uint64(min(r.enc.SetMaxIntsetEntries, 1<<30)) {
			s.Unpack()
		}
		for range n {
			m, err := r.string()
			if err != nil {
				return nil, err
			}
			if !s.Add(m, r.enc) {
				return nil, r.corrupt("Duplicate set members detected")
			}
		}
		return s, nil
	case typeHash:
		n, err := r.plainLength()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, errEmptyKey
		}
		// A hash with more fields than hash-max-listpack-entries is a
		// hashtable from the start; otherwise each field is checked
		// against hash-max-listpack-value as it comes.
		h := store.NewHash()
		if n > uint64(max(r.enc.HashMaxListpackEntries, 0)) {
			h.Unpack()
		}
		for range n {
			f, err := r.string()
			if err != nil {
				return nil, err
			}
			v, err := r.string()
			if err != nil {
				return nil, err
			}
			if !h.Set(f, v, r.enc) {
				return nil, r.corrupt("Duplicate hash fields detected")
			}
		}
		return h, nil
	case typeZSet, typeZSet2:
		n, err := r.plainLength()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, errEmptyKey
		}
		// Redis loads a skiplist, then packs it if it fits the
		// thresholds (zsetConvertToListpackIfNeeded).
		z := store.NewZSet()
		z.Unpack()
		for range n {
			m, err := r.string()
			if err != nil {
				return nil, err
			}
			var s float64
			if t == typeZSet2 {
				s, err = r.binaryDouble()
			} else {
				s, err = r.stringDouble()
			}
			if err != nil {
				return nil, err
			}
			if math.IsNaN(s) {
				return nil, r.corrupt("Zset with NAN score detected")
			}
			if !z.Add(m, s, r.enc) {
				return nil, r.corrupt("Duplicate zset fields detected")
			}
		}
		z.PackIfFits(r.enc)
		return z, nil
	case typeSetIntset:
		b, err := r.string()
		if err != nil {
			return nil, err
		}
		vals, err := intsetValues(b)
		if err != nil {
			return nil, r.corrupt("Intset integrity check failed.")
		}
		if len(vals) == 0 {
			return nil, errEmptyKey
		}
		// Kept an intset whatever its width, converted only when it has
		// more members than set-max-intset-entries.
		s := store.NewSet()
		for _, v := range vals {
			s.Add(strconv.AppendInt(nil, v, 10), &store.Loose)
		}
		if s.Len() > int(min(r.enc.SetMaxIntsetEntries, 1<<30)) {
			s.Unpack()
		}
		return s, nil
	case typeHashZipmap:
		b, err := r.string()
		if err != nil {
			return nil, err
		}
		pairs, err := zipmapEntries(b)
		if err != nil {
			return nil, r.corrupt("Zipmap integrity check failed.")
		}
		// Redis 2.4's hashes become a listpack, or a hashtable when they
		// have more entries or a longer field or value than the thresholds.
		h := store.NewHash()
		longest := 0
		for i := 0; i < len(pairs); i += 2 {
			if !h.Set(pairs[i], pairs[i+1], &store.Loose) {
				return nil, r.corrupt("Hash zipmap with dup elements")
			}
			longest = max(longest, len(pairs[i]), len(pairs[i+1]))
		}
		if int64(h.Len()) > r.enc.HashMaxListpackEntries || int64(longest) > r.enc.HashMaxListpackValue {
			h.Unpack()
		}
		return h, nil
	case typeHashListpack, typeHashZiplist, typeZSetListpack, typeZSetZiplist:
		b, err := r.string()
		if err != nil {
			return nil, err
		}
		var entries [][]byte
		var ints []bool // a listpack sorted set's entry kinds
		switch t {
		case typeZSetListpack:
			entries, err = listpackEntryKinds(b, &ints)
		case typeHashListpack:
			entries, err = listpackEntries(b)
		default:
			entries, err = ziplistEntries(b)
		}
		if err != nil || len(entries)%2 != 0 {
			return nil, r.corrupt("Listpack integrity check failed.")
		}
		if len(entries) == 0 {
			return nil, errEmptyKey
		}
		// A listpack stays one, however long its entries, unless it has
		// more of them than the entries threshold: Redis checks only the
		// count on load.
		if t == typeHashListpack || t == typeHashZiplist {
			h := store.NewHash()
			for i := 0; i < len(entries); i += 2 {
				if !h.Set(entries[i], entries[i+1], &store.Loose) {
					return nil, r.corrupt("Hash listpack integrity check failed.")
				}
			}
			if int64(h.Len()) > r.enc.HashMaxListpackEntries {
				h.Unpack()
			}
			return h, nil
		}
		z := store.NewZSet()
		for i := 0; i < len(entries); i += 2 {
			// A NaN, which Redis would load too, is refused: the store
			// orders by score and cannot hold one.
			s := listpackScore(entries[i+1])
			// A ziplist's entries become a listpack's as lpAppend writes
			// them: a string that reads as an integer, as one.
			isInt := ints == nil && listpack.IsInteger(entries[i+1]) || ints != nil && ints[i+1]
			if math.IsNaN(s) || !z.AddLoaded(entries[i], s, scoreText(entries[i+1], isInt, s)) {
				return nil, r.corrupt("Zset listpack integrity check failed.")
			}
		}
		if int64(z.Len()) > r.enc.ZSetMaxListpackEntries {
			z.Unpack()
		}
		return z, nil
	case typeList:
		n, err := r.plainLength()
		if err != nil {
			return nil, err
		}
		l := r.enc.NewList()
		for range n {
			e, err := r.string()
			if err != nil {
				return nil, err
			}
			l.PushBack(e)
		}
		if l.Len() == 0 {
			return nil, errEmptyKey
		}
		return l, nil
	case typeListZiplist:
		b, err := r.string()
		if err != nil {
			return nil, err
		}
		entries, err := ziplistEntries(b)
		if err != nil {
			return nil, r.corrupt("Ziplist integrity check failed.")
		}
		if len(entries) == 0 {
			return nil, errEmptyKey
		}
		l := r.enc.NewList()
		l.PushBack(entries...)
		return l, nil
	case typeListQuicklist, typeListQuicklist2:
		nodes, err := r.plainLength()
		if err != nil {
			return nil, err
		}
		l := r.enc.NewList()
		for range nodes {
			container := uint64(listContainerPacked)
			if t == typeListQuicklist2 {
				if container, err = r.plainLength(); err != nil {
					return nil, err
				}
			}
			b, err := r.string()
			if err != nil {
				return nil, err
			}
			switch {
			case container == listContainerPlain:
				l.AppendNode([][]byte{b})
				continue
			case container != listContainerPacked:
				return nil, r.corrupt("Quicklist integrity check failed.")
			}
			var entries [][]byte
			if t == typeListQuicklist2 {
				entries, err = listpackEntries(b)
			} else {
				entries, err = ziplistEntries(b)
			}
			if err != nil {
				return nil, r.corrupt("Listpack integrity check failed.")
			}
			l.AppendNode(entries) // as the payload has it; an empty node is skipped
		}
		if l.Len() == 0 {
			return nil, errEmptyKey
		}
		return l, nil
	case typeStreamListpacks, typeStreamListpacks2:
		return r.stream(t)
	}
	return nil, r.corrupt("Unknown RDB encoding type %d", t)
}

// Load reads an RDB file from in into s (into the databases it names, on
// top of what they hold). On an error the store may hold part of the file:
// callers refuse to start, as Redis does.
func Load(in io.Reader, s *store.Store, opts LoadOptions) (LoadInfo, error) {
	var info LoadInfo
	r := &reader{r: bufio.NewReaderSize(in, 256<<10), enc: s.Encodings()}
	sig, err := r.bytes(9)
	if err != nil {
		return info, err
	}
	if string(sig[:5]) != "REDIS" {
		return info, ErrSignature
	}
	ver, err := strconv.Atoi(string(sig[5:]))
	if err != nil || ver < 1 || ver > Version {
		return info, VersionError(ver)
	}
	db, dbIndex := s.DB(0), 0
	maxKeys := uint64(1 << 16)
	if size := sizeOf(in); size > 0 {
		maxKeys = uint64(size / 3)
	}
	var expireAt int64
	for {
		t, err := r.byte()
		if err != nil {
			return info, err
		}
		switch t {
		case opExpireTimeMS:
			b, err := r.fixed(8)
			if err != nil {
				return info, err
			}
			expireAt = int64(binary.LittleEndian.Uint64(b))
			continue
		case opExpireTime:
			b, err := r.fixed(4)
			if err != nil {
				return info, err
			}
			expireAt = int64(binary.LittleEndian.Uint32(b)) * 1000
			continue
		case opFreq:
			if _, err := r.byte(); err != nil {
				return info, err
			}
			continue
		case opIdle:
			if _, err := r.plainLength(); err != nil {
				return info, err
			}
			continue
		case opSelectDB:
			n, err := r.plainLength()
			if err != nil {
				return info, err
			}
			if n >= uint64(s.Databases()) {
				return info, fmt.Errorf("FATAL: Data file was created with a Redis server configured to handle more than %d databases. Exiting", s.Databases())
			}
			db, dbIndex = s.DB(int(n)), int(n)
			continue
		case opResizeDB:
			keys, err := r.plainLength()
			if err != nil {
				return info, err
			}
			if _, err := r.plainLength(); err != nil {
				return info, err
			}
			// A hint, from the file: bounded by what the file can hold (a key
			// takes at least 3 bytes), so a corrupt one cannot make us allocate
			// for keys that are not there.
			db.Reserve(int(min(keys, maxKeys)))
			continue
		case opAux:
			k, err := r.string()
			if err != nil {
				return info, err
			}
			v, err := r.string()
			if err != nil {
				return info, err
			}
			info.Aux = append(info.Aux, Aux{string(k), string(v)})
			if opts.Aux != nil {
				opts.Aux(string(k), string(v))
			}
			continue
		case opFunction, opFunction2:
			if opts.Function == nil {
				return info, r.corrupt("Modules and functions are not supported (opcode %d)", t)
			}
			code, err := r.readFunction(t)
			if err == nil {
				if lerr := opts.Function(code); lerr != nil {
					err = fmt.Errorf("Failed loading library, %v", lerr)
				}
			}
			if err != nil {
				return info, err
			}
			continue
		case opModuleAux:
			return info, r.corrupt("Modules and functions are not supported (opcode %d)", t)
		case opEOF:
			if ver >= 5 {
				want := r.crc
				b, err := r.bytes(8)
				if err != nil {
					return info, err
				}
				got := binary.LittleEndian.Uint64(b)
				if got != 0 && !opts.SkipChecksum && got != want {
					return info, &ChecksumError{Expected: got, Got: want}
				}
			}
			info.Bytes = r.off
			return info, nil
		}
		key, err := r.stringTo(r.key)
		if err != nil {
			return info, err
		}
		r.key = reuse(key) // Set copies the key
		v, err := r.object(t)
		switch {
		case err == errEmptyKey:
			info.Empty++
		case err != nil:
			return info, err
		case expireAt != 0 && opts.Now != 0 && expireAt < opts.Now:
			info.Expired++
			if opts.Expired != nil {
				opts.Expired(dbIndex, key)
			}
		default:
			// Checked before the key is set, so a key in memory is never
			// replaced unless AllowDup says so.
			if !opts.AllowDup && db.Entry(key) != nil {
				return info, r.corrupt("Duplicate key '%s' found in RDB file", key)
			}
			db.Set(key, v, expireAt)
			info.Keys++
		}
		expireAt = 0
		if opts.Progress != nil {
			if err := opts.Progress(r.off); err != nil {
				return info, err
			}
		}
	}
}

// sizeOf returns the size of a file or an in-memory reader, or -1.
func sizeOf(in io.Reader) int64 {
	switch in := in.(type) {
	case interface{ Size() int64 }:
		return in.Size()
	case interface{ Stat() (os.FileInfo, error) }:
		if fi, err := in.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size()
		}
	}
	return -1
}

// Restore decodes a DUMP payload into a value, converted by enc as Redis
// converts what it loads. It checks the version and checksum first (unless
// skipChecksum), as Redis's verifyDumpPayload.
func Restore(payload []byte, skipChecksum bool, enc *store.Encodings) (store.Value, error) {
	if !VerifyPayload(payload, skipChecksum) {
		return nil, ErrPayload
	}
	// Redis reads the value from the whole payload, footer included: a
	// length running into the footer takes its bytes.
	r := &reader{r: bufio.NewReaderSize(bytes.NewReader(payload[1:]), 4096), enc: enc}
	v, err := r.object(payload[0])
	if err != nil {
		return nil, ErrBadFormat
	}
	return v, nil
}

// VerifyPayload reports whether a DUMP payload's footer is acceptable.
func VerifyPayload(p []byte, skipChecksum bool) bool {
	if len(p) < 10 {
		return false
	}
	footer := p[len(p)-10:]
	if int(binary.LittleEndian.Uint16(footer)) > Version {
		return false
	}
	if skipChecksum {
		return true
	}
	return CRC64(0, p[:len(p)-8]) == binary.LittleEndian.Uint64(footer[2:])
}

// scoreText is what a loaded sorted set keeps of a score entry (its text,
// an integer entry if isInt) that reads as s: the entry, when it is not
// the one Redis would write for s, as Redis keeps its loaded listpack;
// else nothing (a nil Text).
func scoreText(text []byte, isInt bool, s float64) store.ScoreText {
	if n, ok := scoreInt(s); ok {
		if m, _ := number.ParseInt(text); isInt && m == n {
			return store.ScoreText{}
		}
	} else if !isInt {
		var buf [32]byte
		if string(appendScore(buf[:0], s)) == string(text) {
			return store.ScoreText{}
		}
	}
	return store.ScoreText{Text: text, Int: isInt}
}

// listpackScore is the score of a listpack or ziplist sorted set entry as
// Redis reads it, zzlStrtod: strtod of the text up to a NUL and at most
// 127 bytes, so a text that is no number loads and scores 0 (Redis checks
// none on load).
func listpackScore(b []byte) float64 {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	v, _, _ := number.Strtod(b[:min(len(b), 127)])
	return v
}

package store

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strings"
)

// Redis keeps a sorted set in a listpack while it has at most
// zset-max-listpack-entries members (128) of at most zset-max-listpack-value
// bytes (64), and converts it to a skiplist for good past either limit
// (Encodings). We mirror the thresholds so that OBJECT ENCODING answers as
// Redis does.

// ZSet is a sorted set: members ordered by score, then by member bytes.
//
// It is built for the sliding-window log: many small sets (tens to hundreds
// of members) trimmed from the low end on every request. A small set is one
// packed buffer (see packedList), 2 to 9 bytes plus the member per entry,
// and every operation is a linear pass over its entries (128 at most by
// default), which is cache-friendly and cheaper than any pointer structure
// at that size. A large
// set is an order-statistic B+tree plus a member→score map, so ZADD,
// ZREMRANGEBYSCORE and rank queries stay O(log n).
//
// Members passed in are copied; members passed to callbacks alias internal
// memory and are valid only until the set is next modified.
type ZSet struct {
	packed packedList // the small form
	big    *zbig      // the large form; packed is nil once this is set
}

// zbig is the large form. The map gives O(1) score lookups; the tree gives
// order and ranks. Both hold the same member strings (Go strings are
// immutable, so the bytes are stored once).
type zbig struct {
	scores map[string]float64
	tree   ztree
	peak   int // largest len(scores) since the map was last rebuilt
}

// NewZSet returns an empty sorted set in the compact form.
func NewZSet() *ZSet { return &ZSet{} }

// Kind implements Value.
func (z *ZSet) Kind() Kind { return KindZSet }

// Encoding implements Value.
func (z *ZSet) Encoding() string {
	if z.big != nil {
		return "skiplist"
	}
	return "listpack"
}

// Clone implements Value.
func (z *ZSet) Clone() Value {
	c := &ZSet{}
	if z.big == nil {
		c.packed = append(packedList(nil), z.packed...)
		return c
	}
	c.big = &zbig{scores: make(map[string]float64, len(z.big.scores))}
	z.Ascend(0, func(m []byte, s float64) bool {
		c.big.insert(string(m), s)
		return true
	})
	return c
}

// Len returns the number of members.
func (z *ZSet) Len() int {
	if z.big != nil {
		return len(z.big.scores)
	}
	return z.packed.len()
}

// normScore is the score a listpack keeps: Redis stores it as text
// (d2string), where -0 is an integral value and prints as "0". A skiplist
// keeps the double, -0 included.
func normScore(s float64) float64 {
	if s == 0 {
		return 0
	}
	return s
}

// Score returns member's score.
func (z *ZSet) Score(member []byte) (float64, bool) {
	if z.big != nil {
		s, ok := z.big.scores[string(member)]
		return s, ok
	}
	off, _ := z.packed.find(member)
	if off < 0 {
		return 0, false
	}
	_, s, _ := z.packed.entry(off)
	return s, true
}

// Add sets member's score, inserting it if needed, and reports whether it
// was added (false: it existed and only its score may have changed). A
// new member past enc's zset-max-listpack-entries or -value converts a
// packed set, as Redis's zsetAdd (an update never does). A score of -0
// reads back as 0 from the packed form (its integer encoding, as from
// Redis's listpack) but stays -0 in the large one, as in Redis's skiplist.
func (z *ZSet) Add(member []byte, score float64, enc *Encodings) bool {
	if z.big != nil {
		if old, ok := z.big.scores[string(member)]; ok {
			if old != score {
				m := z.big.remove(member, old)
				z.big.insert(m, score)
			}
			return false
		}
		z.big.insert(string(member), score)
		return true
	}
	found, last := z.packed.find(member)
	if found >= 0 {
		if _, old, _ := z.packed.entry(found); old != score {
			score = normScore(score)
			z.packed.remove(found, 1)
			z.packed.insert(z.packed.locate(member, score), member, score)
		}
		return false
	}
	if int64(z.packed.len())+1 > enc.ZSetMaxListpackEntries || int64(len(member)) > enc.ZSetMaxListpackValue ||
		len(z.packed)+len(member) > packedMaxBytes {
		z.convert()
		z.big.insert(string(member), score)
		return true
	}
	score = normScore(score)
	// A sliding window adds past its newest entry: check that one first.
	at := max(len(z.packed), z.packed.head())
	if last > 0 {
		if m, s, _ := z.packed.entry(last); score < s || score == s && bytes.Compare(member, m) < 0 {
			at = z.packed.locate(member, score)
		}
	}
	z.packed.insert(at, member, score)
	return true
}

// ScoreText is the text of a score as a loaded listpack or ziplist spelled
// it, where Redis would have written the score otherwise ("x", which scores
// 0 as zzlStrtod reads it, "1.50", "-0", or "5" as a string entry). Redis
// keeps a loaded listpack's entries as they are, so until the member's
// entry is rewritten (a new score, removal, conversion to a skiplist) DUMP
// writes the text back and ZSCAN answers it.
type ScoreText struct {
	Text []byte
	Int  bool // an integer entry (Text is its decimal), not a string one
}

// AddLoaded is Add, without converting, for a loader: text, unless its Text
// is nil, is the score's spelling to keep (and score is kept as it is, -0
// included, as Redis reads "-0" back each time).
func (z *ZSet) AddLoaded(member []byte, score float64, text ScoreText) bool {
	if text.Text == nil || z.big != nil {
		return z.Add(member, score, &Loose)
	}
	if found, _ := z.packed.find(member); found >= 0 {
		return false
	}
	z.packed.insertText(z.packed.locate(member, score), member, score, text)
	return true
}

// AscendText is Ascend from rank 0 that also passes each member's kept
// ScoreText (ok false for a score with none: a large set keeps none).
func (z *ZSet) AscendText(fn func(member []byte, score float64, text ScoreText, ok bool) bool) {
	if z.big != nil {
		z.Ascend(0, func(m []byte, s float64) bool { return fn(m, s, ScoreText{}, false) })
		return
	}
	for off := z.packed.head(); off < len(z.packed); {
		m, s, next := z.packed.entry(off)
		t, ok := z.packed.text(off)
		if !fn(m, s, t, ok) {
			return
		}
		off = next
	}
}

// Remove deletes member and reports whether it was there.
func (z *ZSet) Remove(member []byte) bool {
	if z.big != nil {
		s, ok := z.big.scores[string(member)]
		if ok {
			z.big.remove(member, s)
		}
		return ok
	}
	off, _ := z.packed.find(member)
	if off < 0 {
		return false
	}
	z.packed.remove(off, 1)
	return true
}

// Rank returns member's 0-based position in ascending order.
func (z *ZSet) Rank(member []byte) (int, bool) {
	if z.big != nil {
		s, ok := z.big.scores[string(member)]
		if !ok {
			return 0, false
		}
		return z.big.tree.countWhile(func(it *zitem) bool { return itemLess(it.score, it.member, s, member) }), true
	}
	rank := 0
	for off := z.packed.head(); off < len(z.packed); rank++ {
		m, _, next := z.packed.entry(off)
		if bytes.Equal(m, member) {
			return rank, true
		}
		off = next
	}
	return 0, false
}

// ScoreBound returns how many members score below s, or at most s if
// inclusive. A score range [min, max] covers the ranks
// [ScoreBound(min, false), ScoreBound(max, true)); an exclusive bound flips
// the flag.
func (z *ZSet) ScoreBound(s float64, inclusive bool) int {
	below := func(score float64) bool { return score < s || inclusive && score == s }
	if z.big != nil {
		return z.big.tree.countWhile(func(it *zitem) bool { return below(it.score) })
	}
	n := 0
	for off := z.packed.head(); off < len(z.packed); n++ {
		_, score, next := z.packed.entry(off)
		if !below(score) {
			break
		}
		off = next
	}
	return n
}

// LexBound is ScoreBound for member order. Like Redis, it assumes all
// members have the same score; otherwise the result is only well defined
// for the order the set is in.
func (z *ZSet) LexBound(m []byte, inclusive bool) int {
	below := func(member string) bool {
		c := strings.Compare(member, string(m))
		return c < 0 || inclusive && c == 0
	}
	if z.big != nil {
		return z.big.tree.countWhile(func(it *zitem) bool { return below(it.member) })
	}
	return z.packed.countWhile(func(member []byte, _ float64) bool { return below(string(member)) })
}

// At returns the member and score at rank (0 <= rank < Len).
func (z *ZSet) At(rank int) ([]byte, float64) {
	if z.big != nil {
		it := z.big.tree.at(rank)
		return []byte(it.member), it.score
	}
	m, s, _ := z.packed.entry(z.packed.offset(rank))
	return m, s
}

// Ascend calls fn for the members from rank from upwards until fn returns false.
func (z *ZSet) Ascend(from int, fn func(member []byte, score float64) bool) {
	if z.big != nil {
		z.big.tree.ascend(from, func(it *zitem) bool { return fn([]byte(it.member), it.score) })
		return
	}
	for off := z.packed.offset(from); off < len(z.packed); {
		m, s, next := z.packed.entry(off)
		if !fn(m, s) {
			return
		}
		off = next
	}
}

// Descend calls fn for the members from rank from downwards until fn
// returns false.
func (z *ZSet) Descend(from int, fn func(member []byte, score float64) bool) {
	if from >= z.Len() {
		from = z.Len() - 1
	}
	if z.big != nil {
		z.big.tree.descend(from, func(it *zitem) bool { return fn([]byte(it.member), it.score) })
		return
	}
	// Entries can only be walked forwards: collect the offsets first.
	var buf [128]int // the default zset-max-listpack-entries: no allocation
	stack := buf[:0]
	for off := z.packed.head(); len(stack) <= from && off < len(z.packed); {
		stack = append(stack, off)
		_, _, off = z.packed.entry(off)
	}
	for k := len(stack) - 1; k >= 0; k-- {
		if m, s, _ := z.packed.entry(stack[k]); !fn(m, s) {
			return
		}
	}
}

// RemoveRange deletes the members at ranks [lo, hi) and returns how many it
// deleted.
func (z *ZSet) RemoveRange(lo, hi int) int {
	lo, hi = max(lo, 0), min(hi, z.Len())
	if lo >= hi {
		return 0
	}
	if z.big != nil {
		for i := lo; i < hi; i++ {
			it := z.big.tree.deleteAt(lo)
			delete(z.big.scores, it.member)
		}
		z.big.shrink()
		return hi - lo
	}
	z.packed.remove(z.packed.offset(lo), hi-lo)
	return hi - lo
}

// Unpack moves a packed set to the large form for good, as Redis's SORT
// does to a sorted set it reads (zsetConvert to a skiplist), so that
// OBJECT ENCODING agrees afterwards.
func (z *ZSet) Unpack() {
	if z.big == nil {
		z.convert()
	}
}

// PackIfFits moves a large set back to the packed form when it has at
// most enc's zset-max-listpack-entries members of at most -value bytes:
// what Redis's zsetConvertToListpackIfNeeded does to a set it has just
// built (ZUNIONSTORE and friends, GEO STORE) or loaded from a skiplist
// (RDB, RESTORE).
func (z *ZSet) PackIfFits(enc *Encodings) {
	if z.big == nil || int64(len(z.big.scores)) > enc.ZSetMaxListpackEntries {
		return
	}
	total := 0
	for m := range z.big.scores {
		if int64(len(m)) > enc.ZSetMaxListpackValue {
			return
		}
		total += len(m)
	}
	if total > packedMaxBytes {
		return
	}
	var p packedList
	z.big.tree.ascend(0, func(it *zitem) bool {
		p.insert(max(len(p), p.head()), []byte(it.member), normScore(it.score))
		return true
	})
	z.big, z.packed = nil, p
}

// convert moves a packed set to the large form.
func (z *ZSet) convert() {
	big := &zbig{scores: make(map[string]float64, z.packed.len()+1)}
	for off := z.packed.head(); off < len(z.packed); {
		m, s, next := z.packed.entry(off)
		big.insert(string(m), s)
		off = next
	}
	z.big, z.packed = big, nil
}

// reserve makes room in the map for n more members, as dictExpand does
// for a known count: a map grown member by member for a 500,000-pair ZADD
// split its tables all the way up and left each outgrown one as garbage,
// at the request's peak with its arguments (peak 127.8 -> 101.9 MB, CPU
// 623 -> 465 ms; Redis 109.8 MB, 675 ms). Called on a map just converted
// (small), so the rebuild is cheap.
func (b *zbig) reserve(n int) {
	if n < 1024 {
		return
	}
	scores := make(map[string]float64, len(b.scores)+n)
	for m, s := range b.scores {
		scores[m] = s
	}
	b.scores = scores
}

func (b *zbig) insert(member string, score float64) {
	b.scores[member] = score
	b.peak = max(b.peak, len(b.scores))
	b.tree.insert(zitem{member: member, score: score})
}

// remove deletes member (whose score is s) and returns the stored string.
func (b *zbig) remove(member []byte, s float64) string {
	rank := b.tree.countWhile(func(it *zitem) bool { return itemLess(it.score, it.member, s, member) })
	it := b.tree.deleteAt(rank)
	delete(b.scores, it.member)
	b.shrink()
	return it.member
}

// shrink rebuilds the map once most members are gone: Go maps never give
// memory back, and a window that once held a burst must not keep its
// buckets for good.
func (b *zbig) shrink() {
	b.peak = max(b.peak, len(b.scores)+1)
	if b.peak < 1024 || len(b.scores) > b.peak/4 {
		return
	}
	scores := make(map[string]float64, len(b.scores))
	for m, s := range b.scores {
		scores[m] = s
	}
	b.scores, b.peak = scores, len(scores)
}

// itemLess orders members by score, then by member bytes.
func itemLess(s1 float64, m1 string, s2 float64, m2 []byte) bool {
	if s1 != s2 {
		return s1 < s2
	}
	return m1 < string(m2)
}

// packedList is the small form, a byte string much like Redis's listpack:
// the count, then the entries sorted by (score, member), each
//
//	[header: score encoding*65 + member length (0 to 64), or
//	 packedLongHeader + score encoding and the member's length as a uvarint]
//	[score: a 2- or 6-byte integer if integral and small enough (a
//	 millisecond timestamp takes 6 bytes), else the 8 bytes of the float64]
//	[member]
//
// Fixed widths rather than varints let a scan skip a score without
// decoding it; members of up to 64 bytes (the default
// zset-max-listpack-value) need no length byte, longer ones (a raised
// threshold, or a listpack RESTORE keeps as it is) one more branch. The
// count is one byte below 255; from 255 on (a raised threshold) the byte
// is 255 and two more bytes hold the count, which saturates at 65535 as
// Redis's listpack count does: past it the entries are counted. Offsets of
// entries start at head (1, or 3 with the wide count); an empty set is nil.
//
// An entry loaded with a score text Redis would not write (see ScoreText)
// has the header packedTextHeader, the member's length as a uvarint, the
// text's length<<1 | ScoreText.Int as a uvarint and the text, then a
// float64 score (-0 kept, as Redis reads "-0") and the member: the text
// lives in the entry, so whatever rewrites or drops the entry drops it,
// as it does the text inside Redis's listpack entry.
type packedList []byte

const (
	packedShortMax   = 64                       // longest member the header holds
	packedLongHeader = 3 * (packedShortMax + 1) // then a uvarint length
	packedCountMax   = 255                      // the count byte's "two more bytes"
	packedTextHeader = packedLongHeader + 3     // an entry keeping its score's text
	// packedMaxBytes is Redis's lpSafeToAdd limit (1 GB): a listpack never
	// grows past it, whatever the thresholds.
	packedMaxBytes = 1 << 30
)

// Score encodings of packedList entries.
const (
	packedFloat = iota // 8 bytes, float64 bits
	packedInt16        // 2 bytes, little-endian
	packedInt48        // 6 bytes, little-endian
)

var (
	packedMemberLen [256]uint8 // by header byte
	packedScoreKind [256]uint8
	packedScoreLen  = [3]int{8, 2, 6}
)

func init() {
	for h := range packedLongHeader {
		packedMemberLen[h] = uint8(h % (packedShortMax + 1))
		packedScoreKind[h] = uint8(h / (packedShortMax + 1))
	}
	for kind := range 3 {
		packedScoreKind[packedLongHeader+kind] = uint8(kind)
	}
}

func (p packedList) len() int {
	if len(p) == 0 {
		return 0
	}
	if p[0] < packedCountMax {
		return int(p[0])
	}
	if n := binary.LittleEndian.Uint16(p[1:]); n < math.MaxUint16 {
		return int(n)
	}
	return p.count()
}

// head returns the offset of the first entry.
func (p packedList) head() int {
	if len(p) > 0 && p[0] == packedCountMax {
		return 3
	}
	return 1
}

// setLen stores n as the count, moving the entries by two bytes when the
// count changes width.
func (p *packedList) setLen(n int) {
	l := *p
	wide := l[0] == packedCountMax
	switch {
	case n < packedCountMax && !wide:
		l[0] = byte(n)
	case n >= packedCountMax && wide:
		binary.LittleEndian.PutUint16(l[1:], uint16(min(n, math.MaxUint16)))
	case n >= packedCountMax:
		l = append(l, 0, 0)
		copy(l[3:], l[1:len(l)-2])
		l[0] = packedCountMax
		binary.LittleEndian.PutUint16(l[1:], uint16(min(n, math.MaxUint16)))
	default:
		l = append(l[:1], l[3:]...)
		l[0] = byte(n)
	}
	*p = l
}

// count counts the entries.
func (p packedList) count() int {
	n := 0
	for off := p.head(); off < len(p); n++ {
		_, _, off = p.entry(off)
	}
	return n
}

// memberAt returns where the member of the entry at off starts and its
// length, past the header, any length and the score.
func (p packedList) memberAt(off int) (start, n int) {
	h := p[off]
	off++
	n = int(packedMemberLen[h])
	if h >= packedLongHeader {
		l, w := binary.Uvarint(p[off:])
		n, off = int(l), p.pastText(off+w, h)
	}
	return off + packedScoreLen[packedScoreKind[h]], n
}

// entry decodes the entry at off and returns the offset of the next one.
func (p packedList) entry(off int) (member []byte, score float64, next int) {
	h := p[off]
	off++
	kind := packedScoreKind[h]
	n := int(packedMemberLen[h])
	if h >= packedLongHeader {
		l, w := binary.Uvarint(p[off:])
		n, off = int(l), p.pastText(off+w, h)
	}
	switch kind {
	case packedFloat:
		score = math.Float64frombits(binary.LittleEndian.Uint64(p[off:]))
	case packedInt16:
		score = float64(int16(binary.LittleEndian.Uint16(p[off:])))
	default:
		b := p[off : off+6]
		u := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 | uint64(b[4])<<32 | uint64(b[5])<<40
		score = float64(int64(u<<16) >> 16)
	}
	off += packedScoreLen[kind]
	next = off + n
	return p[off:next:next], score, next
}

// encodeEntry returns the header, length and score bytes of an entry.
func encodeEntry(enc *[packedEntryHead]byte, member []byte, score float64) int {
	kind, width := packedFloat, 8
	if i := int64(score); float64(i) == score && i >= -1<<47 && i < 1<<47 {
		kind, width = packedInt48, 6
		if i >= math.MinInt16 && i <= math.MaxInt16 {
			kind, width = packedInt16, 2
		}
	}
	h := 1
	if len(member) <= packedShortMax {
		enc[0] = byte(kind*(packedShortMax+1) + len(member))
	} else {
		enc[0] = byte(packedLongHeader + kind)
		h += binary.PutUvarint(enc[1:], uint64(len(member)))
	}
	var b [8]byte
	if kind == packedFloat {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(score))
	} else {
		binary.LittleEndian.PutUint64(b[:], uint64(int64(score)))
	}
	copy(enc[h:], b[:width])
	return h + width
}

// packedEntryHead is the most an entry takes besides its member.
const packedEntryHead = 1 + binary.MaxVarintLen64 + 8

// offset returns the offset of the entry at rank (len(p) past the end).
func (p packedList) offset(rank int) int {
	off := p.head()
	for ; rank > 0 && off < len(p); rank-- {
		_, _, off = p.entry(off)
	}
	return off
}

// find returns the offset of member (-1 if absent) and of the last entry
// (0 if none), skipping scores without decoding them.
func (p packedList) find(member []byte) (found, last int) {
	for off := p.head(); off < len(p); {
		m, n := p.memberAt(off)
		next := m + n
		if n == len(member) && bytes.Equal(p[m:next], member) {
			return off, 0
		}
		last, off = off, next
	}
	return -1, last
}

// locate returns the offset at which (score, member) belongs.
func (p packedList) locate(member []byte, score float64) int {
	off := p.head()
	for off < len(p) {
		m, s, next := p.entry(off)
		if score < s || score == s && bytes.Compare(member, m) < 0 {
			return off
		}
		off = next
	}
	return max(off, p.head())
}

// countWhile counts the leading entries that satisfy below.
func (p packedList) countWhile(below func(member []byte, score float64) bool) int {
	n := 0
	for off := p.head(); off < len(p); n++ {
		m, s, next := p.entry(off)
		if !below(m, s) {
			break
		}
		off = next
	}
	return n
}

// insert adds an entry at offset off (see locate) for a member that is not
// in the list.
func (p *packedList) insert(off int, member []byte, score float64) {
	var enc [packedEntryHead]byte
	n := encodeEntry(&enc, member, score)
	p.insertEncoded(off, enc[:n], member)
}

// insertText is insert for an entry that keeps its score's text.
func (p *packedList) insertText(off int, member []byte, score float64, text ScoreText) {
	head := binary.AppendUvarint([]byte{packedTextHeader}, uint64(len(member)))
	flag := uint64(0)
	if text.Int {
		flag = 1
	}
	head = binary.AppendUvarint(head, uint64(len(text.Text))<<1|flag)
	head = append(head, text.Text...)
	head = binary.LittleEndian.AppendUint64(head, math.Float64bits(score))
	p.insertEncoded(off, head, member)
}

// pastText is off, just past the member's length in an entry of header h,
// moved past the entry's score text if it keeps one.
func (p packedList) pastText(off int, h byte) int {
	if h == packedTextHeader {
		t, w := binary.Uvarint(p[off:])
		off += w + int(t>>1)
	}
	return off
}

// text returns the kept score text of the entry at off, if it has one.
func (p packedList) text(off int) (ScoreText, bool) {
	if p[off] != packedTextHeader {
		return ScoreText{}, false
	}
	_, w := binary.Uvarint(p[off+1:])
	off += 1 + w
	t, w := binary.Uvarint(p[off:])
	off += w
	return ScoreText{Text: p[off : off+int(t>>1) : off+int(t>>1)], Int: t&1 == 1}, true
}

// insertEncoded adds an entry of head (header, lengths, score) and member
// at offset off.
func (p *packedList) insertEncoded(off int, enc []byte, member []byte) {
	n := len(enc)
	l := *p
	count := l.len()
	if len(l) == 0 {
		l = packedList{0}
	}
	size := n + len(member)
	end := len(l)
	if end+size > cap(l) {
		// Exactly what is needed, rounded up to the allocator's size class
		// (slices.Grow of a nil slice): a sliding window trims about as much
		// as it adds, so the buffer soon stops growing, and spare room
		// would be kept for good in every one of many keys.
		grown := slices.Grow(packedList(nil), end+size)[:end]
		copy(grown, l)
		l = grown
	}
	l = l[:end+size]
	copy(l[off+size:], l[off:end])
	copy(l[off:], enc)
	copy(l[off+n:], member)
	l.setLen(count + 1)
	*p = l
}

// remove deletes count entries from offset off.
func (p *packedList) remove(off, count int) {
	l := *p
	end := off
	for range count {
		_, _, end = l.entry(end)
	}
	n := l.len() - count
	l = append(l[:off], l[end:]...)
	l.setLen(n)
	switch {
	case n == 0:
		l = nil
	case cap(l) > 64 && len(l) < cap(l)/2:
		// Give memory back once a trimmed set uses under half its buffer.
		l = append(slices.Grow(packedList(nil), len(l)), l...)
	}
	*p = l
}

package server

import (
	"bytes"
	"math"
	"sort"
	"strconv"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

var sortHandlers = map[string]Handler{
	"sort":    cmdSort,
	"sort_ro": cmdSort,
}

const errSortScore = "ERR One or more scores can't be converted into double"

// sortQuery is a parsed SORT.
type sortQuery struct {
	desc, alpha   bool
	offset, count int64 // count -1: no LIMIT
	by            []byte
	noSort        bool // BY without '*': keep the input order
	gets          [][]byte
	dst           []byte
	readonly      bool
}

// sortItem is one element being sorted: its score (numeric sort) or its
// BY value (alpha sort with BY; nil when the BY key is missing).
type sortItem struct {
	elem  []byte
	score float64
	cmp   []byte
}

// cmdSort follows Redis's sortCommandGeneric: options, then the key's type,
// then the elements (a set's in its own order, a sorted set's and a list's
// in theirs when BY names no '*'), then the sort, LIMIT and GET.
func cmdSort(c *Client, args [][]byte) {
	q := sortQuery{count: -1, readonly: c.cmd.Name == "sort_ro"}
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		switch opt := args[j]; {
		case eqFold(opt, "asc"):
			q.desc = false
		case eqFold(opt, "desc"):
			q.desc = true
		case eqFold(opt, "alpha"):
			q.alpha = true
		case eqFold(opt, "limit") && left >= 2:
			var ok bool
			if q.offset, ok = intArg(c, args[j+1]); !ok {
				return
			}
			if q.count, ok = intArg(c, args[j+2]); !ok {
				return
			}
			j += 2
		case !q.readonly && eqFold(opt, "store") && left >= 1:
			q.dst = args[j+1]
			j++
		case eqFold(opt, "by") && left >= 1:
			q.by = args[j+1]
			q.noSort = bytes.IndexByte(q.by, '*') < 0
			j++
		case eqFold(opt, "get") && left >= 1:
			q.gets = append(q.gets, args[j+1])
			j++
		default:
			c.w.Error(errSyntax)
			return
		}
	}
	var elems [][]byte
	var v store.Value
	if e := c.db.Get(args[1]); e != nil {
		v = e.Value()
	}
	switch v.(type) {
	case nil, *store.Set, *store.ZSet, *store.List:
	default:
		c.w.Error(errWrongType)
		return
	}
	if _, isSet := v.(*store.Set); isSet && q.noSort && (q.dst != nil || c.inScript) {
		// A set's order is arbitrary: Redis sorts it when the result is
		// stored or seen by a script, so that replicas agree.
		q.noSort, q.alpha, q.by = false, true, nil
	}
	// erange is errno when the scores are read: Redis converts a listpack
	// for SORT, for good, reading each score back with strtod, which sets
	// ERANGE for a subnormal one; SORT then tests errno after each strtod
	// of its own and never clears it.
	// It starts as an earlier command left it, and is left for the next:
	// see Server.errnoERANGE.
	erange := c.srv.errnoERANGE.Load()
	defer func() { c.srv.errnoERANGE.Store(erange) }()
	if z, ok := v.(*store.ZSet); ok {
		if z.Encoding() == "listpack" {
			z.Ascend(0, func(_ []byte, s float64) bool {
				if s != 0 && math.Abs(s) < minNormal {
					erange = true
				}
				return !erange
			})
		}
		z.Unpack()
	}
	length := 0
	switch v := v.(type) {
	case *store.Set:
		length = v.Len()
	case *store.ZSet:
		length = v.Len()
	case *store.List:
		length = v.Len()
	}
	start, end := sortWindow(q.offset, q.count, length)
	switch v := v.(type) {
	case *store.Set:
		for i := range v.Len() {
			elems = append(elems, []byte(v.Member(i)))
		}
	case *store.ZSet:
		if q.noSort { // only the window, in score order (DESC: from the top)
			if end >= start {
				take := func(m []byte, _ float64) bool {
					elems = append(elems, bytes.Clone(m))
					return len(elems) < end-start+1
				}
				if q.desc {
					v.Descend(length-1-start, take)
				} else {
					v.Ascend(start, take)
				}
			}
			end, start = end-start, 0
			break
		}
		v.Ascend(0, func(m []byte, _ float64) bool {
			elems = append(elems, bytes.Clone(m))
			return true
		})
	case *store.List:
		if q.noSort {
			if end >= start {
				lo, hi := start, end
				if q.desc {
					lo, hi = length-1-end, length-1-start
				}
				v.Range(lo, hi, func(b []byte) bool {
					elems = append(elems, bytes.Clone(b))
					return true
				})
				if q.desc {
					for i, j := 0, len(elems)-1; i < j; i, j = i+1, j-1 {
						elems[i], elems[j] = elems[j], elems[i]
					}
				}
			}
			end, start = end-start, 0
			break
		}
		if length > 0 {
			v.Range(0, length-1, func(b []byte) bool {
				elems = append(elems, bytes.Clone(b))
				return true
			})
		}
	}
	// Redis makes an int-encoded object of an element a list holds as an
	// integer (listTypeGet), which SORT casts with no strtod; set members,
	// intset ones included, come as strings (setTypeNextObject).
	_, elemsIntEncoded := v.(*store.List)
	items := make([]sortItem, len(elems))
	badScore := false
	for i, el := range elems {
		items[i].elem = el
		if q.noSort {
			continue
		}
		by, intEncoded := el, false
		if elemsIntEncoded {
			_, intEncoded = number.ParseInt(el)
		}
		if q.by != nil {
			var found bool
			if by, intEncoded, found = lookupByPattern(c, q.by, el); !found {
				continue
			}
		}
		if q.alpha {
			if q.by != nil {
				items[i].cmp = by
			}
			continue
		}
		if intEncoded { // Redis casts an integer object: no strtod, no errno
			items[i].score, _ = strconv.ParseFloat(string(by), 64)
			continue
		}
		score, ok, rangeErr := sortScore(by)
		items[i].score = score
		erange = erange || rangeErr
		badScore = badScore || !ok || erange
	}
	if !q.noSort {
		sort.SliceStable(items, func(i, j int) bool { return q.less(&items[i], &items[j]) })
	}
	outLen := 0
	if end >= start {
		outLen = end - start + 1
	}
	if len(q.gets) > 0 {
		outLen *= len(q.gets)
	}
	switch {
	case badScore:
		c.w.Error(errSortScore)
	case q.dst != nil:
		sortStore(c, q, items, start, end, outLen)
	default:
		c.w.Array(outLen)
		for j := start; j <= end; j++ {
			if len(q.gets) == 0 {
				c.w.Bulk(items[j].elem)
			}
			for _, pattern := range q.gets {
				if val, _, found := lookupByPattern(c, pattern, items[j].elem); found {
					c.w.Bulk(val)
				} else {
					c.w.Null()
				}
			}
		}
	}
}

// sortKeys returns the key positions of a SORT command line as Redis's
// sortGetKeys finds them: the key, and the argument after the last STORE,
// skipping LIMIT's two arguments and GET's and BY's one.
func sortKeys(args [][]byte) []int {
	pos := []int{1}
	for i := 2; i < len(args); i++ {
		switch {
		case eqFold(args[i], "limit"):
			i += 2
		case eqFold(args[i], "get"), eqFold(args[i], "by"):
			i++
		case eqFold(args[i], "store") && i+1 < len(args):
			pos = append(pos[:1], i+1)
		}
	}
	return pos
}

// sortWindow applies LIMIT to n elements as Redis does, returning the
// inclusive range [start, end] (empty when end < start).
func sortWindow(offset, count int64, n int) (start, end int) {
	s := min(max(offset, 0), int64(n))
	cnt := min(max(count, -1), int64(n))
	e := int64(n) - 1
	if cnt >= 0 {
		e = s + cnt - 1
	}
	if s >= int64(n) {
		s, e = int64(n)-1, int64(n)-2
	}
	e = min(e, int64(n)-1)
	return int(s), int(e)
}

// less is Redis's sortCompare: numbers with ties broken by the elements'
// bytes; ALPHA by the elements, or by the BY values with a missing one
// first (and ties left in input order). DESC reverses the comparison.
func (q *sortQuery) less(a, b *sortItem) bool {
	var cmp int
	switch {
	case !q.alpha:
		switch {
		case a.score > b.score:
			cmp = 1
		case a.score < b.score:
			cmp = -1
		default:
			cmp = bytes.Compare(a.elem, b.elem)
		}
	case q.by != nil:
		switch {
		case a.cmp == nil && b.cmp == nil:
		case a.cmp == nil:
			cmp = -1
		case b.cmp == nil:
			cmp = 1
		default:
			cmp = q.alphaCompare(a.cmp, b.cmp)
		}
	default:
		cmp = q.alphaCompare(a.elem, b.elem)
	}
	if q.desc {
		cmp = -cmp
	}
	return cmp < 0
}

// alphaCompare is ALPHA's comparison: with STORE Redis compares the bytes
// (compareStringObjects, so that replicas agree); without, it calls
// strcoll, which reads C strings and so stops at a NUL byte. The servers
// run in the C (or C.UTF-8) locale, where strcoll is strcmp.
func (q *sortQuery) alphaCompare(a, b []byte) int {
	if q.dst != nil {
		return bytes.Compare(a, b)
	}
	return bytes.Compare(cString(a), cString(b))
}

// sortScore parses a value to sort by as Redis does, with strtod over a C
// string: it stops at a NUL byte, accepts leading spaces and "" (0), and
// refuses trailing junk and NaN. rangeErr is whether strtod set ERANGE:
// on overflow, and, in glibc, for a decimal that rounds to a subnormal
// ("5e-324", "1e-310").
func sortScore(b []byte) (v float64, ok, rangeErr bool) {
	if strtodRange(b) {
		return 0, false, true
	}
	v, n, _ := number.Strtod(cString(b))
	return v, n == len(cString(b)) && !math.IsNaN(v), false
}

// strtodRange reports whether glibc's strtod sets ERANGE reading b.
func strtodRange(b []byte) bool {
	b = cString(b)
	v, _, erange := number.Strtod(b)
	return erange || v != 0 && math.Abs(v) < minNormal && !isHexNumeral(b)
}

// cString is b as C's string functions see it: up to its first NUL byte.
func cString(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// minNormal is DBL_MIN, the smallest normal double.
const minNormal = 2.2250738585072014e-308

// isHexNumeral reports a strtod hexadecimal numeral ("0x1p-1074"), which
// is exact, and so raises no ERANGE, when it fits.
func isHexNumeral(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\n\v\f\r+-")
	return len(b) > 1 && b[0] == '0' && b[1]|0x20 == 'x'
}

// lookupByPattern is Redis's lookupKeyByPattern: "#" is the element
// itself; otherwise the first '*' is replaced by the element to name a
// string key, or, with "->field" after the '*', a hash's field. A pattern
// without '*', a missing key and a key of another type find nothing.
// intEncoded reports an object Redis holds as an integer (a string key's
// int encoding; a listpack hash's integer field, which
// hashTypeGetValueObject makes from the long long): SORT casts it, with no
// strtod and no look at errno.
func lookupByPattern(c *Client, pattern, elem []byte) (val []byte, intEncoded, found bool) {
	if len(pattern) == 1 && pattern[0] == '#' {
		return elem, false, true
	}
	star := bytes.IndexByte(pattern, '*')
	if star < 0 {
		return nil, false, false
	}
	keyEnd, field := len(pattern), []byte(nil)
	if f := bytes.Index(pattern[star+1:], []byte("->")); f >= 0 && star+1+f+2 < len(pattern) {
		keyEnd = star + 1 + f
		field = pattern[keyEnd+2:]
	}
	key := make([]byte, 0, keyEnd+len(elem))
	key = append(append(append(key, pattern[:star]...), elem...), pattern[star+1:keyEnd]...)
	e := c.db.Get(key)
	if e == nil {
		return nil, false, false
	}
	if field != nil {
		h, ok := e.Value().(*store.Hash)
		if !ok {
			return nil, false, false
		}
		v, found := h.Get(field)
		_, isInt := number.ParseInt(v)
		return []byte(v), isInt && h.Encoding() == "listpack", found
	}
	s, ok := e.Value().(*store.String)
	if !ok {
		return nil, false, false
	}
	return s.Bytes(), s.Encoding() == "int", true
}

// sortStore writes SORT's result (the elements, or the GET values with ""
// for a missing one) as a list at q.dst, or deletes q.dst when there is
// nothing, and answers the count.
func sortStore(c *Client, q sortQuery, items []sortItem, start, end, outLen int) {
	if outLen == 0 {
		if c.db.Delete(q.dst) {
			c.notify(notifyGeneric, "del", q.dst)
		}
		c.w.Int(0)
		return
	}
	var out [][]byte
	for j := start; j <= end; j++ {
		if len(q.gets) == 0 {
			out = append(out, items[j].elem)
		}
		for _, pattern := range q.gets {
			val, _, _ := lookupByPattern(c, pattern, items[j].elem)
			out = append(out, bytes.Clone(val))
		}
	}
	// Redis's SORT STORE builds a quicklist with the default node options,
	// not list-max-listpack-size and list-compress-depth.
	l := store.NewList()
	l.PushBack(out...)
	setKey(c, q.dst, l)
	c.notify(notifyList, "sortstore", q.dst)
	c.w.Int(int64(outLen))
}

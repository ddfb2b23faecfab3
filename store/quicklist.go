package store

import (
	"slices"

	"github.com/floodgate/floodgate/internal/listpack"
	"github.com/floodgate/floodgate/internal/lzf"
)

// The quicklist rules of Redis 7.0 (src/quicklist.c) that decide a list's
// node layout and which nodes are compressed: DUMP and the RDB write both.
// Elements of 1 GB and more, which Redis keeps in plain nodes of their
// own, are not modelled: floodgate's proto-max-bulk-len keeps them out.
const (
	// listNodeSafetyLimit bounds a node under a positive (count) fill
	// (SIZE_SAFETY_LIMIT); listNodeOverhead is the estimate
	// _quicklistNodeAllowInsert adds to an element's length.
	listNodeSafetyLimit = 8192
	listNodeOverhead    = 8
	// A node smaller than this is never compressed (MIN_COMPRESS_BYTES),
	// nor one LZF shrinks by less than 8 bytes (MIN_COMPRESS_IMPROVE).
	listCompressMinBytes   = 48
	listCompressMinImprove = 8
	// listMergeOverhead is what _quicklistNodeAllowMerge takes off two
	// nodes' sizes for the header and end byte they share once merged.
	listMergeOverhead = 11
)

// listNodeLimits are the node sizes of fills -1 to -5.
var listNodeLimits = [...]int{4096, 8192, 16384, 32768, 65536}

// fits reports whether a node of sz bytes and count elements stays within
// the fill: a byte limit for negative fills, else 8 KB and the count.
func (l *List) fits(sz, count int) bool {
	if l.fill < 0 {
		return sz <= listNodeLimits[min(-int(l.fill), len(listNodeLimits))-1]
	}
	return sz <= listNodeSafetyLimit && count <= int(l.fill)
}

// takes is _quicklistNodeAllowInsert: whether a node of sz bytes and count
// elements takes an element of n bytes.
func (l *List) takes(sz, count, n int) bool {
	return l.fits(sz+n+listNodeOverhead, count+1)
}

// size is node ci's size as a Redis listpack.
func (l *List) size(ci int) int {
	switch ci {
	case l.lo:
		return int(l.headSz)
	case l.hi - 1:
		return int(l.tailSz)
	}
	return nodeSize(&l.ring[ci])
}

// setSize records sz as node ci's size if it is the head or the tail.
func (l *List) setSize(ci, sz int) {
	if ci == l.lo {
		l.headSz = int32(sz)
	}
	if ci == l.hi-1 {
		l.tailSz = int32(sz)
	}
}

// endsChanged computes the sizes of the head and the tail after nodes
// were added or deleted.
func (l *List) endsChanged() {
	if l.lo == l.hi {
		l.headSz, l.tailSz = 0, 0
		return
	}
	l.headSz = int32(nodeSize(&l.ring[l.lo]))
	l.tailSz = int32(nodeSize(&l.ring[l.hi-1]))
}

// nodeSize is node ch's size as a Redis listpack.
func nodeSize(ch *listChunk) int {
	sz, off := listpack.HeaderSize, int(ch.off)
	for range ch.n {
		var v []byte
		v, off = next(ch.buf, off)
		sz += listpack.EntrySize(v)
	}
	return sz
}

// elemsSize is the size of a listpack of elems.
func elemsSize(elems [][]byte) int {
	sz := listpack.HeaderSize
	for _, v := range elems {
		sz += listpack.EntrySize(v)
	}
	return sz
}

// nodeLimit is the largest a node's buffer usually grows.
func (l *List) nodeLimit() int {
	if l.fill < 0 {
		return listNodeLimits[min(-int(l.fill), len(listNodeLimits))-1]
	}
	return listNodeSafetyLimit
}

// allowMerge is _quicklistNodeAllowMerge for nodes a and b.
func (l *List) allowMerge(a, b int) bool {
	if a < l.lo || b < l.lo || a >= l.hi || b >= l.hi {
		return false
	}
	return l.fits(l.size(a)+l.size(b)-listMergeOverhead, int(l.ring[a].n)+int(l.ring[b].n))
}

// insertNode inserts ch as node ci (ci-l.lo nodes before it) and returns
// its index.
func (l *List) insertNode(ci int, ch listChunk) int {
	l.tailMark = 0
	at := ci - l.lo
	nodes := make([]listChunk, 0, l.hi-l.lo+1)
	nodes = append(nodes, l.ring[l.lo:ci]...)
	nodes = append(nodes, ch)
	nodes = append(nodes, l.ring[ci:l.hi]...)
	l.ring, l.lo, l.hi = nodes, 0, len(nodes)
	l.endsChanged()
	return at
}

// deleteNode removes node ci and its elements (__quicklistDelNode).
func (l *List) deleteNode(ci int) {
	l.tailMark = 0
	l.n -= int(l.ring[ci].n)
	switch ci {
	case l.lo:
		l.ring[l.lo] = listChunk{}
		l.lo++
		l.headSz = l.tailSz // right if one node is left, else computed below
		if l.hi-l.lo > 1 {
			l.headSz = int32(nodeSize(&l.ring[l.lo]))
		}
	case l.hi - 1:
		l.hi--
		l.ring[l.hi] = listChunk{}
		l.tailSz = l.headSz
		if l.hi-l.lo > 1 {
			l.tailSz = int32(nodeSize(&l.ring[l.hi-1]))
		}
	default:
		l.ring = slices.Delete(l.ring[:l.hi], ci, ci+1)
		l.hi--
	}
	if l.lo == l.hi {
		l.ring, l.lo, l.hi = nil, 0, 0
		l.headSz, l.tailSz = 0, 0
	}
	l.compress(-1)
}

// deleteNodeAt deletes node ci and returns the index of the node that
// followed it.
func (l *List) deleteNodeAt(ci int) int {
	rel := ci - l.lo
	l.deleteNode(ci)
	return l.lo + rel
}

// nodeInserted runs the compression __quicklistInsertNode does after
// node ci was inserted beside old (which may be out of range).
func (l *List) nodeInserted(old, ci int) {
	if old >= l.lo && old < l.hi {
		l.touch(old)
	}
	l.touch(ci)
}

// deleteRange is quicklistDelRange: it deletes count elements from start
// (negative: from the tail), node by node, deleting the nodes it empties
// and merging none.
func (l *List) deleteRange(start, count int) {
	if count <= 0 || l.n == 0 {
		return
	}
	extent := count
	if start >= 0 && extent > l.n-start {
		extent = l.n - start
	} else if start < 0 && extent > -start {
		extent = -start
	}
	i := start
	if i < 0 {
		i += l.n
	}
	ci, off := l.locate(i)
	if start < 0 {
		off -= int(l.ring[ci].n) // the offset from the node's tail, as Redis seeks
	}
	l.touch(ci) // the iterator that found the node is released
	for extent > 0 {
		ch := &l.ring[ci]
		n := int(ch.n)
		var del int
		switch {
		case off == 0 && extent >= n:
			del = n
		case off >= 0 && extent+off >= n:
			del = n - off
		case off < 0:
			del = min(-off, extent)
		default:
			del = extent
		}
		extent -= del
		if del == n {
			ci = l.deleteNodeAt(ci)
			off = 0
			continue
		}
		l.decompressForUse(ci)
		from := off
		if from < 0 {
			from += n
		}
		elems := chunkElems(ch)
		l.rewrite(ci, slices.Delete(slices.Clone(elems), from, from+del))
		l.recompressOnly(ci)
		ci++
		off = 0
	}
}

// touchRange is what an iterator over elements first..last (from last
// when reverse) does to compression: it decompresses each node it enters
// and compresses each it leaves.
func (l *List) touchRange(first, last int, reverse bool) {
	if l.depth == 0 {
		return
	}
	a, _ := l.locate(first)
	b, _ := l.locate(last)
	if reverse {
		for ci := b; ci >= a; ci-- {
			l.decompressForUse(ci)
			l.touch(ci)
		}
		return
	}
	for ci := a; ci <= b; ci++ {
		l.decompressForUse(ci)
		l.touch(ci)
	}
}

// insertAt is _quicklistInsert: v goes before (or after) element j of
// node ci, in that node if it has room, else at the near end of its
// neighbour, else in a new node, else the node is split at j and the
// halves' neighbours are merged.
func (l *List) insertAt(ci, j int, v []byte, after bool) {
	node := &l.ring[ci]
	full := !l.takes(l.size(ci), int(node.n), len(v))
	atTail := after && j == int(node.n)-1
	atHead := !after && j == 0
	availNext := atTail && ci+1 < l.hi && l.takes(l.size(ci+1), int(l.ring[ci+1].n), len(v))
	availPrev := atHead && ci-1 >= l.lo && l.takes(l.size(ci-1), int(l.ring[ci-1].n), len(v))
	elems := chunkElems(node)
	switch {
	case !full:
		if after {
			j++
		}
		l.rewrite(ci, slices.Insert(elems, j, v))
		l.recompressOnly(ci)
	case availNext:
		l.decompressForUse(ci + 1)
		l.rewrite(ci+1, slices.Insert(chunkElems(&l.ring[ci+1]), 0, v))
		l.recompressOnly(ci + 1)
		l.recompressOnly(ci)
	case availPrev:
		l.decompressForUse(ci - 1)
		l.rewrite(ci-1, append(chunkElems(&l.ring[ci-1]), v))
		l.recompressOnly(ci - 1)
		l.recompressOnly(ci)
	case atTail || atHead:
		l.n++
		at := ci
		if after {
			at++
		}
		at = l.insertNode(at, packChunk([][]byte{v}))
		old := at + 1
		if after {
			old = at - 1
		}
		l.nodeInserted(old, at)
	default:
		// The new node's elements still alias the old buffer, which
		// rewrite replaces rather than overwrites.
		keep, moved := elems[j:], append(slices.Clone(elems[:j]), v)
		if after {
			keep, moved = elems[:j+1], append([][]byte{v}, elems[j+1:]...)
		}
		l.rewrite(ci, keep)
		l.n += len(moved)
		at := ci
		if after {
			at++
		}
		at = l.insertNode(at, packChunk(moved))
		old := at + 1
		if after {
			old = at - 1
		}
		l.nodeInserted(old, at)
		l.mergeAround(old)
	}
}

// mergeAround is _quicklistMergeNodes: it merges the two nodes before
// node c, the two after it, then c with each neighbour, where they fit.
func (l *List) mergeAround(c int) {
	if l.allowMerge(c-1, c-2) {
		l.merge(c - 2)
		c--
	}
	if l.allowMerge(c+1, c+2) {
		l.merge(c + 1)
	}
	target := c
	if l.allowMerge(c, c-1) {
		target = l.merge(c - 1)
	}
	if l.allowMerge(target, target+1) {
		l.merge(target)
	}
}

// merge joins nodes a and a+1 into node a (_quicklistListpackMerge) and
// returns a. lpMerge keeps the larger listpack, whose node survives with
// its recompress flag.
func (l *List) merge(a int) int {
	l.decompress(a)
	l.decompress(a + 1)
	x, y := &l.ring[a], &l.ring[a+1]
	recompress := x.recompress
	if l.size(a+1) > l.size(a) {
		recompress = y.recompress
	}
	l.rewrite(a, append(chunkElems(x), chunkElems(y)...))
	l.ring[a].recompress = recompress
	l.deleteNode(a + 1) // uncounts its elements, counted again in node a

	l.touch(a)
	return a
}

// compress is __quicklistCompress: with depth d, the d nodes at each end
// are kept raw, and node ci (if not among them; -1: none) and the first
// node past the depth at each end are compressed.
func (l *List) compress(ci int) {
	d := int(l.depth)
	if d == 0 || l.hi-l.lo < 2*d {
		return
	}
	forward, reverse := l.lo, l.hi-1
	inDepth := false
	for range d {
		l.decompress(forward)
		l.decompress(reverse)
		if forward == ci || reverse == ci {
			inDepth = true
		}
		if forward == reverse || forward+1 == reverse {
			return
		}
		forward++
		reverse--
	}
	if !inDepth && ci >= 0 {
		l.compressNode(ci)
	}
	l.compressNode(forward)
	l.compressNode(reverse)
}

// compressNode is __quicklistCompressNode on a raw node: Redis keeps the
// node compressed if LZF saves at least 8 bytes of its listpack.
func (l *List) compressNode(ci int) {
	ch := &l.ring[ci]
	if ch.lzf {
		return
	}
	ch.recompress = false
	lp := nodeListpack(ch)
	if len(lp) < listCompressMinBytes {
		return
	}
	c := lzf.Compress(lp, len(lp))
	ch.lzf = c != nil && len(c)+listCompressMinImprove < len(lp)
}

// touch is the quicklistCompress macro: a node decompressed for use is
// compressed again, any other goes through compress.
func (l *List) touch(ci int) {
	if l.ring[ci].recompress {
		l.compressNode(ci)
	} else {
		l.compress(ci)
	}
}

// decompress is quicklistDecompressNode.
func (l *List) decompress(ci int) {
	if ch := &l.ring[ci]; ch.lzf {
		ch.lzf, ch.recompress = false, false
	}
}

// decompressForUse is quicklistDecompressNodeForUse.
func (l *List) decompressForUse(ci int) {
	if ch := &l.ring[ci]; ch.lzf {
		ch.lzf, ch.recompress = false, true
	}
}

// recompressOnly is quicklistRecompressOnly.
func (l *List) recompressOnly(ci int) {
	if l.ring[ci].recompress {
		l.compressNode(ci)
	}
}

// nodeListpack returns the node's elements as Redis's listpack bytes.
func nodeListpack(ch *listChunk) []byte {
	lp := listpack.New()
	for _, v := range chunkElems(ch) {
		lp.AppendString(v)
	}
	return lp.Bytes()
}

// AppendNode adds elems as a node of their own at the tail, as
// quicklistAppendListpack does for each node of an RDB payload. An empty
// node is skipped, as Redis skips it.
func (l *List) AppendNode(elems [][]byte) {
	if len(elems) == 0 {
		return
	}
	for len(elems) > 0 {
		// A node counts at most 65535 elements, in Redis as here; a
		// longer payload node is split.
		k := min(len(elems), 1<<16-1)
		l.addChunk(false)
		l.ring[l.hi-1] = packChunk(elems[:k])
		l.n += k
		l.endsChanged()
		l.nodeInserted(l.hi-2, l.hi-1)
		elems = elems[k:]
	}
}

// NodeCount is the number of quicklist nodes.
func (l *List) NodeCount() int { return l.hi - l.lo }

// Nodes calls fn for each quicklist node, head first, with its listpack
// bytes and whether Redis would keep it LZF-compressed; fn must not keep
// lp.
func (l *List) Nodes(fn func(lp []byte, compressed bool)) {
	for i := range l.chunks() {
		ch := &l.ring[l.lo+i]
		fn(nodeListpack(ch), ch.lzf)
	}
}

package store

// ztree is an order-statistic B+tree of zitems: items live in leaves, inner
// nodes hold each child's subtree size (for ranks) and a lower bound of its
// items (for routing). Compared with Redis's skiplist it needs no per-member
// node: a member costs its 24-byte item in a leaf array.
type ztree struct {
	root *znode
}

type zitem struct {
	member string
	score  float64
}

const (
	zleafMax  = 64 // items per leaf
	zinnerMax = 64 // children per inner node
)

// A leaf's items array has room for one more than zleafMax, as an inner
// node's arrays do: the item that overflows it goes in before the split,
// which would otherwise reallocate the array at twice the size and leave
// the left half holding it (56 bytes an item instead of 28).
type znode struct {
	items    []zitem  // leaf only
	children []*znode // inner only
	// seps[i] is a lower bound of the items under children[i] and an upper
	// bound (exclusive) of those under children[i-1]; seps[0] is unused.
	// Bounds stay valid when items are deleted, so they are never updated.
	seps []zitem
	size int // items in this subtree
}

func (n *znode) leaf() bool { return n.children == nil }

func (n *znode) width() int {
	if n.leaf() {
		return len(n.items)
	}
	return len(n.children)
}

func (a *zitem) less(b *zitem) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.member < b.member
}

func (t *ztree) len() int {
	if t.root == nil {
		return 0
	}
	return t.root.size
}

func (t *ztree) insert(it zitem) {
	if t.root == nil {
		t.root = &znode{items: make([]zitem, 0, zleafMax+1)}
	}
	right, sep := t.root.insert(it)
	if right != nil {
		old := t.root
		t.root = &znode{
			children: append(make([]*znode, 0, zinnerMax+1), old, right),
			seps:     append(make([]zitem, 0, zinnerMax+1), zitem{}, sep),
			size:     old.size + right.size,
		}
	}
}

// insert adds it below n and returns the new right sibling and its
// separator if n had to split.
func (n *znode) insert(it zitem) (*znode, zitem) {
	n.size++
	if n.leaf() {
		i := 0
		for i < len(n.items) && n.items[i].less(&it) {
			i++
		}
		n.items = append(n.items, zitem{})
		copy(n.items[i+1:], n.items[i:])
		n.items[i] = it
		if len(n.items) <= zleafMax {
			return nil, zitem{}
		}
		mid := splitPoint(len(n.items), i)
		right := &znode{items: append(make([]zitem, 0, zleafMax+1), n.items[mid:]...)}
		clear(n.items[mid:])
		n.items = n.items[:mid]
		right.size = len(right.items)
		n.size = mid
		return right, right.items[0]
	}
	ci := n.route(&it)
	right, sep := n.children[ci].insert(it)
	if right == nil {
		return nil, zitem{}
	}
	n.children = append(n.children, nil)
	copy(n.children[ci+2:], n.children[ci+1:])
	n.children[ci+1] = right
	n.seps = append(n.seps, zitem{})
	copy(n.seps[ci+2:], n.seps[ci+1:])
	n.seps[ci+1] = sep
	if len(n.children) <= zinnerMax {
		return nil, zitem{}
	}
	mid := splitPoint(len(n.children), ci+1)
	r := &znode{
		children: append(make([]*znode, 0, zinnerMax+1), n.children[mid:]...),
		seps:     append(make([]zitem, 0, zinnerMax+1), n.seps[mid:]...),
	}
	for _, c := range r.children {
		r.size += c.size
	}
	clear(n.children[mid:])
	clear(n.seps[mid:])
	n.children, n.seps = n.children[:mid], n.seps[:mid]
	n.size -= r.size
	return r, r.seps[0]
}

// splitPoint chooses where an overfull node of width w splits after an
// insertion at i. Appending at the end (a sliding window's new timestamps)
// leaves the old node full instead of two half-empty ones.
func splitPoint(w, i int) int {
	if i == w-1 {
		return w - 1
	}
	return w / 2
}

// route returns the child of inner node n that it belongs in.
func (n *znode) route(it *zitem) int {
	lo, hi := 1, len(n.seps) // find the last i >= 1 with seps[i] <= it
	for lo < hi {
		m := (lo + hi) / 2
		if it.less(&n.seps[m]) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo - 1
}

// countWhile returns how many items satisfy below, a predicate that holds
// for a prefix of the order (and then never again).
func (t *ztree) countWhile(below func(*zitem) bool) int {
	count := 0
	for n := t.root; n != nil; {
		if n.leaf() {
			for i := range n.items {
				if !below(&n.items[i]) {
					return count
				}
				count++
			}
			return count
		}
		// Every child before the last whose lower bound is below lies
		// wholly below.
		ci := 0
		for ci+1 < len(n.seps) && below(&n.seps[ci+1]) {
			count += n.children[ci].size
			ci++
		}
		n = n.children[ci]
	}
	return count
}

// child returns the index of the child holding rank i and i within it.
func (n *znode) child(i int) (int, int) {
	ci := 0
	for i >= n.children[ci].size {
		i -= n.children[ci].size
		ci++
	}
	return ci, i
}

func (t *ztree) at(i int) *zitem {
	n := t.root
	for !n.leaf() {
		var ci int
		ci, i = n.child(i)
		n = n.children[ci]
	}
	return &n.items[i]
}

// ascend calls fn for the items from rank i upwards until fn returns false.
func (t *ztree) ascend(i int, fn func(*zitem) bool) {
	if t.root != nil && i < t.root.size {
		t.root.ascend(i, fn)
	}
}

func (n *znode) ascend(i int, fn func(*zitem) bool) bool {
	if n.leaf() {
		for ; i < len(n.items); i++ {
			if !fn(&n.items[i]) {
				return false
			}
		}
		return true
	}
	ci, i := n.child(i)
	for ; ci < len(n.children); ci++ {
		if !n.children[ci].ascend(i, fn) {
			return false
		}
		i = 0
	}
	return true
}

// descend calls fn for the items from rank i downwards until fn returns false.
func (t *ztree) descend(i int, fn func(*zitem) bool) {
	if t.root != nil && i >= 0 {
		t.root.descend(min(i, t.root.size-1), fn)
	}
}

func (n *znode) descend(i int, fn func(*zitem) bool) bool {
	if n.leaf() {
		for ; i >= 0; i-- {
			if !fn(&n.items[i]) {
				return false
			}
		}
		return true
	}
	ci, i := n.child(i)
	for ; ci >= 0; ci-- {
		if !n.children[ci].descend(i, fn) {
			return false
		}
		if ci > 0 {
			i = n.children[ci-1].size - 1
		}
	}
	return true
}

func (t *ztree) deleteAt(i int) zitem {
	it := t.root.deleteAt(i)
	if !t.root.leaf() && len(t.root.children) == 1 {
		t.root = t.root.children[0]
	}
	if t.root.size == 0 {
		t.root = nil
	}
	return it
}

func (n *znode) deleteAt(i int) zitem {
	n.size--
	if n.leaf() {
		it := n.items[i]
		copy(n.items[i:], n.items[i+1:])
		n.items[len(n.items)-1] = zitem{}
		n.items = n.items[:len(n.items)-1]
		return it
	}
	ci, i := n.child(i)
	it := n.children[ci].deleteAt(i)
	n.rebalance(ci)
	return it
}

// rebalance drops child ci if it is empty and merges it with a neighbour
// when it is under a quarter full and the two fit in one node, so trimming
// a window from the low end leaves no trail of empty or sparse nodes.
func (n *znode) rebalance(ci int) {
	c := n.children[ci]
	if c.width() == 0 {
		n.removeChild(ci)
		return
	}
	limit := zleafMax
	if !c.leaf() {
		limit = zinnerMax
	}
	if c.width() >= limit/4 {
		return
	}
	switch {
	case ci > 0 && n.children[ci-1].width()+c.width() <= limit:
		n.merge(ci - 1)
	case ci+1 < len(n.children) && n.children[ci+1].width()+c.width() <= limit:
		n.merge(ci)
	}
}

// merge moves children[ci+1]'s contents into children[ci].
func (n *znode) merge(ci int) {
	left, right := n.children[ci], n.children[ci+1]
	if left.leaf() {
		left.items = append(left.items, right.items...)
	} else {
		left.children = append(left.children, right.children...)
		left.seps = append(left.seps, n.seps[ci+1])
		left.seps = append(left.seps, right.seps[1:]...)
	}
	left.size += right.size
	n.removeChild(ci + 1)
}

func (n *znode) removeChild(ci int) {
	copy(n.children[ci:], n.children[ci+1:])
	n.children[len(n.children)-1] = nil
	n.children = n.children[:len(n.children)-1]
	copy(n.seps[ci:], n.seps[ci+1:])
	n.seps[len(n.seps)-1] = zitem{}
	n.seps = n.seps[:len(n.seps)-1]
}

// memSize is what the tree's nodes and their arrays take on the heap, not
// counting the member strings. It walks the inner nodes only: every leaf
// has the same arrays (see znode).
func (t *ztree) memSize() int {
	if t.root == nil {
		return 0
	}
	leaf := znodeSize + allocSizeScan((zleafMax+1)*zitemSize)
	inner := znodeSize + allocSizeScan((zinnerMax+1)*8) + allocSizeScan((zinnerMax+1)*zitemSize)
	var walk func(n *znode) int
	walk = func(n *znode) int {
		if n.leaf() {
			return leaf
		}
		total := inner
		if n.children[0].leaf() {
			return total + len(n.children)*leaf
		}
		for _, c := range n.children {
			total += walk(c)
		}
		return total
	}
	return walk(t.root)
}

const (
	znodeSize = 80 // three slice headers and the size, in its size class
	zitemSize = 24
)

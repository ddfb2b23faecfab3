package lua

// floodgate: the layout Lua 5.1's ltable.c gives a table, kept beside
// gopher-lua's own storage so that next/pairs list the keys, and # finds the
// border, as Redis's Lua does. gopher-lua stores values in a Go slice and
// maps; the order of next and the border of a table with holes are
// properties of PUC Lua's layout (an array part sized by computesizes, a
// node vector with keys at their main positions and collisions placed from
// the free pointer down), which scripts observe deterministically.
//
// The layout holds keys only: a node's value is looked up in gopher-lua's
// storage, so a key whose value is nil is a node PUC would hold with a nil
// value (free for newkey's main position, skipped by next, dropped at the
// next rehash). Every key creation of the VM, the API and the libraries
// passes through lua51Set before gopher-lua stores the value, in the order
// Lua 5.1 would create it.
//
// Not modelled: keys whose hash is an address (tables, functions,
// userdata, threads: their order differs from run to run in Redis too),
// the garbage collector turning a nil-valued string key into a dead key,
// and a key created by luaV_settable before an __newindex handler runs.

import (
	"math"
	"unsafe"
)

type lua51Node struct {
	key  LValue // nil: a free node
	next int32  // -1: end of the chain
}

type lua51Layout struct {
	sizearray int
	node      []lua51Node // nil: the dummy node of an empty hash part
	lastfree  int
}

// lua51MaxBits is ltable.c's MAXBITS: array indexes up to 2^26.
const lua51MaxBits = 26

// fb2int is lobject.c's luaO_fb2int, the inverse of int2Fb.
func fb2int(x int) int {
	e := (x >> 3) & 31
	if e == 0 {
		return x
	}
	return ((x & 7) + 8) << (e - 1)
}

// lua51Presize is luaH_new's sizes for a constructor (OP_NEWTABLE's B and C
// are int2Fb-encoded counts).
func (tb *LTable) lua51Presize(narray, nhash int) {
	tb.lua51.sizearray = narray
	tb.lua51.setNodeVector(nhash)
}

func ceilLog2(x uint) int {
	l := 0
	for x--; x > 0; x >>= 1 {
		l++
	}
	return l
}

func (lt *lua51Layout) setNodeVector(size int) {
	if size == 0 {
		lt.node, lt.lastfree = nil, 0
		return
	}
	size = 1 << ceilLog2(uint(size))
	lt.node = make([]lua51Node, size)
	for i := range lt.node {
		lt.node[i].next = -1
	}
	lt.lastfree = size
}

// arrayIndex is the key's slot in the array part, if it has one.
func (lt *lua51Layout) arrayIndex(key LValue) (int, bool) {
	if n, ok := key.(LNumber); ok {
		if k := int(n); float64(k) == float64(n) && k >= 1 && k <= lt.sizearray {
			return k, true
		}
	}
	return 0, false
}

// lua51StringHash is luaS_newlstr's hash in Redis's Lua 5.1: every byte,
// seeded with the length (Redis changed stock Lua's sampling step to 1).
func lua51StringHash(s string) uint32 {
	h := uint32(len(s))
	for l := len(s); l > 0; l-- {
		h ^= (h << 5) + (h >> 2) + uint32(s[l-1])
	}
	return h
}

// mainPosition is ltable.c's mainposition.
func (lt *lua51Layout) mainPosition(key LValue) int {
	size := uint32(len(lt.node))
	mod := (size - 1) | 1
	switch k := key.(type) {
	case LNumber:
		if k == 0 { // hashnum: -0 and 0 share node 0
			return 0
		}
		b := math.Float64bits(float64(k))
		return int((uint32(b) + uint32(b>>32)) % mod)
	case LString:
		return int(lua51StringHash(string(k)) & (size - 1))
	case LBool:
		if k {
			return int(1 & (size - 1))
		}
		return 0
	case *LTable:
		return int(uint32(uintptr(unsafe.Pointer(k))) % mod)
	case *LFunction:
		return int(uint32(uintptr(unsafe.Pointer(k))) % mod)
	case *LUserData:
		return int(uint32(uintptr(unsafe.Pointer(k))) % mod)
	case *LState:
		return int(uint32(uintptr(unsafe.Pointer(k))) % mod)
	}
	return 0
}

// find is the node holding key, or -1.
func (lt *lua51Layout) find(key LValue) int {
	if len(lt.node) == 0 {
		return -1
	}
	for n := lt.mainPosition(key); n >= 0; n = int(lt.node[n].next) {
		if k := lt.node[n].key; k != nil && k == key {
			return n
		}
	}
	return -1
}

func (lt *lua51Layout) has(key LValue) bool {
	if _, ok := lt.arrayIndex(key); ok {
		return true
	}
	return lt.find(key) >= 0
}

// lua51Set is luaH_set's key creation, before gopher-lua stores key's
// value (nil too: Lua 5.1 creates the node for t[k] = nil as well).
func (tb *LTable) lua51Set(key LValue) {
	if key == LNil || key == nil {
		return
	}
	if n, ok := key.(LNumber); ok && n != n {
		return
	}
	if tb.lua51.has(key) {
		return
	}
	tb.lua51NewKey(key, 0)
}

func (tb *LTable) lua51SetInt(key int) {
	if key >= 1 && key <= tb.lua51.sizearray {
		return
	}
	tb.lua51Set(LNumber(key))
}

func (tb *LTable) lua51SetString(key string) {
	lt := &tb.lua51
	if len(lt.node) > 0 && lt.find(LString(key)) >= 0 {
		return
	}
	tb.lua51NewKey(LString(key), 0)
}

// lua51Value is the value stored for key, as a node's value.
func (tb *LTable) lua51Value(key LValue) LValue {
	if key == nil {
		return LNil
	}
	return tb.RawGet(key)
}

// lua51NewKey is ltable.c's newkey.
func (tb *LTable) lua51NewKey(key LValue, depth int) {
	lt := &tb.lua51
	if len(lt.node) == 0 {
		tb.lua51Rehash(key, depth)
		return
	}
	mp := lt.mainPosition(key)
	if tb.lua51Value(lt.node[mp].key) != LNil {
		n := -1
		for lt.lastfree > 0 {
			lt.lastfree--
			if lt.node[lt.lastfree].key == nil {
				n = lt.lastfree
				break
			}
		}
		if n < 0 {
			tb.lua51Rehash(key, depth)
			return
		}
		if other := lt.mainPosition(lt.node[mp].key); other != mp {
			for int(lt.node[other].next) != mp {
				other = int(lt.node[other].next)
			}
			lt.node[other].next = int32(n)
			lt.node[n] = lt.node[mp]
			lt.node[mp].next = -1
		} else {
			lt.node[n].next = lt.node[mp].next
			lt.node[mp].next = int32(n)
			mp = n
		}
	}
	lt.node[mp].key = key
}

// lua51CountInt is ltable.c's countint: a key that could live in the
// array part.
func lua51CountInt(key LValue, nums *[lua51MaxBits + 1]int) int {
	if n, ok := key.(LNumber); ok {
		if f := float64(n); f >= 1 && f <= 1<<lua51MaxBits && f == math.Trunc(f) {
			nums[ceilLog2(uint(f))]++
			return 1
		}
	}
	return 0
}

// lua51Rehash is ltable.c's rehash for the extra key ek, then luaH_set's
// retry of ek.
func (tb *LTable) lua51Rehash(ek LValue, depth int) {
	lt := &tb.lua51
	var nums [lua51MaxBits + 1]int
	// numusearray
	nasize, i := 0, 1
	for lg, ttlg := 0, 1; lg <= lua51MaxBits; lg, ttlg = lg+1, ttlg*2 {
		lim := ttlg
		if lim > lt.sizearray {
			lim = lt.sizearray
			if i > lim {
				break
			}
		}
		lc := 0
		for ; i <= lim; i++ {
			if tb.RawGet(LNumber(i)) != LNil {
				lc++
			}
		}
		nums[lg] += lc
		nasize += lc
	}
	totaluse := nasize
	// numusehash
	for n := len(lt.node) - 1; n >= 0; n-- {
		if k := lt.node[n].key; tb.lua51Value(k) != LNil {
			nasize += lua51CountInt(k, &nums)
			totaluse++
		}
	}
	nasize += lua51CountInt(ek, &nums)
	totaluse++
	// computesizes
	a, na, size := 0, 0, 0
	for i, twotoi := 0, 1; twotoi/2 < nasize; i, twotoi = i+1, twotoi*2 {
		if nums[i] > 0 {
			a += nums[i]
			if a > twotoi/2 {
				size, na = twotoi, a
			}
		}
		if a == nasize {
			break
		}
	}
	tb.lua51Resize(size, totaluse-na)
	if depth < 2 && !lt.has(ek) {
		tb.lua51NewKey(ek, depth+1)
	}
}

// lua51Resize is ltable.c's resize: the vanishing slice of a shrinking
// array part, then the old nodes from the last, go back in.
func (tb *LTable) lua51Resize(nasize, nhsize int) {
	lt := &tb.lua51
	oldasize, oldnode := lt.sizearray, lt.node
	if nasize > oldasize {
		lt.sizearray = nasize
	}
	lt.setNodeVector(nhsize)
	if nasize < oldasize {
		lt.sizearray = nasize
		for i := nasize + 1; i <= oldasize; i++ {
			if k := LNumber(i); tb.RawGet(k) != LNil && !lt.has(k) {
				tb.lua51NewKey(k, 2)
			}
		}
	}
	for n := len(oldnode) - 1; n >= 0; n-- {
		if k := oldnode[n].key; tb.lua51Value(k) != LNil && !lt.has(k) {
			tb.lua51NewKey(k, 2)
		}
	}
}

// lua51ResizeArray is luaH_resizearray, which OP_SETLIST calls when the
// constructor's values go past the array part.
func (tb *LTable) lua51ResizeArray(nasize int) {
	tb.lua51Resize(nasize, len(tb.lua51.node))
}

// Len is luaH_getn: the border a binary search finds in the array part
// when its last slot is nil, else unbound_search beyond it.
func (tb *LTable) Len() int {
	lt := &tb.lua51
	get := func(k int) bool { return tb.RawGet(LNumber(k)) != LNil }
	j := lt.sizearray
	if j > 0 && !get(j) {
		i := 0
		for j-i > 1 {
			m := (i + j) / 2
			if !get(m) {
				j = m
			} else {
				i = m
			}
		}
		return i
	}
	if len(lt.node) == 0 {
		return j
	}
	// unbound_search
	i := j
	j++
	for get(j) {
		i = j
		j *= 2
		if j > (math.MaxInt32-2)/2 {
			i = 1
			for get(i) {
				i++
			}
			return i - 1
		}
	}
	for j-i > 1 {
		m := (i + j) / 2
		if !get(m) {
			j = m
		} else {
			i = m
		}
	}
	return i
}

// Next is luaH_next: the array part in order, then the nodes in order. A
// key that is not in the table ends the walk.
func (tb *LTable) Next(key LValue) (LValue, LValue) {
	lt := &tb.lua51
	i := 0
	if key != LNil && key != nil {
		if k, ok := lt.arrayIndex(key); ok {
			i = k
		} else if n := lt.find(key); n >= 0 {
			i = lt.sizearray + n + 1
		} else {
			return LNil, LNil
		}
	}
	for ; i < lt.sizearray; i++ {
		if v := tb.RawGet(LNumber(i + 1)); v != LNil {
			return LNumber(i + 1), v
		}
	}
	for n := i - lt.sizearray; n < len(lt.node); n++ {
		if k := lt.node[n].key; k != nil {
			if v := tb.RawGet(k); v != LNil {
				return k, v
			}
		}
	}
	return LNil, LNil
}

// Lua51Refill gives t the layout of a fresh table (lua_newtable) whose
// keys 1..n were set in order: for KEYS and ARGV, which floodgate reuses
// between calls where Redis builds them anew. t holds no other key.
// Lua51RefillArray makes a table that holds only keys 1..len an array of
// n values, the i-th value(i, old) where old is what it held at i+1 (LNil:
// nothing), laid out as Lua51Refill(n) lays it. Set one by one, a 1M-entry
// array was appended to 40 times over, each outgrown copy garbage at the
// request's peak, and its layout was built twice; an array that once held
// a burst and now holds a quarter of it is reallocated, so that it does not
// keep the burst's slots for good.
func (tb *LTable) Lua51RefillArray(n int, value func(i int, old LValue) LValue) {
	a := tb.array
	if cap(a) < n || cap(a) > 64 && n < cap(a)/4 {
		a = make([]LValue, n)
		copy(a, tb.array)
	} else {
		for i := len(a); i < n; i++ {
			a = append(a, nil)
		}
		clear(a[n:])
		a = a[:n]
	}
	for i, old := range a {
		if old == nil {
			old = LNil
		}
		a[i] = value(i, old)
	}
	tb.array = a
	tb.Lua51Refill(n)
}

func (tb *LTable) Lua51Refill(n int) {
	tb.lua51 = lua51Layout{}
	for i := 1; i <= n; i++ {
		tb.lua51SetInt(i)
	}
}

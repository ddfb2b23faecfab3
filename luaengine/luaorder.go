package luaengine

import lua "github.com/yuin/gopher-lua"

// tablePairs returns t's pairs in the order Redis's Lua 5.1 lists them with
// lua_next, when every key is a string and the table was filled one key at
// a time, in gopher-lua's insertion order (as redis.call builds a RESP3 map
// or set, and as a script fills a table). A table built by a constructor
// ({map={a=1,b=2}}) starts presized in Lua, so colliding keys may land
// elsewhere; tables with other keys keep pairs() order.
func tablePairs(t *lua.LTable) (keys, vals []lua.LValue) {
	strs := true
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		_, isStr := k.(lua.LString)
		strs = strs && isStr
		keys, vals = append(keys, k), append(vals, v)
	}
	if !strs || len(keys) < 2 {
		return keys, vals
	}
	hashes := make([]uint32, len(keys))
	for i, k := range keys {
		hashes[i] = luaStringHash(string(k.(lua.LString)))
	}
	order := lua51Order(hashes)
	k2, v2 := make([]lua.LValue, len(keys)), make([]lua.LValue, len(keys))
	for i, j := range order {
		k2[i], v2[i] = keys[j], vals[j]
	}
	return k2, v2
}

// luaStringHash is luaS_newlstr's hash in Redis's Lua 5.1, which hashes
// every byte (stock Lua samples at most 32), seeded with the length.
func luaStringHash(s string) uint32 {
	h := uint32(len(s))
	for l := len(s); l > 0; l-- {
		h ^= (h << 5) + (h >> 2) + uint32(s[l-1])
	}
	return h
}

// lua51Order returns the indexes of keys with these hashes in the node
// order of a Lua 5.1 table they were inserted into one by one (ltable.c's
// newkey and rehash): a key goes to its main position, hash & (size-1); a
// collision takes the highest free node, moving the occupant out if it is
// not in its own main position; a table without a free node grows to the
// next power of two that holds one more key and reinserts its nodes from
// the last.
func lua51Order(hashes []uint32) []int {
	type node struct{ key, next int } // -1: none
	var nodes []node
	lastFree := 0
	main := func(k int) int { return int(hashes[k] & uint32(len(nodes)-1)) }
	var insert func(k int)
	resize := func(n int) {
		old := nodes
		size := 1
		for size < n {
			size <<= 1
		}
		nodes = make([]node, size)
		for i := range nodes {
			nodes[i] = node{-1, -1}
		}
		lastFree = size
		for i := len(old) - 1; i >= 0; i-- {
			if old[i].key >= 0 {
				insert(old[i].key)
			}
		}
	}
	freePos := func() int {
		for lastFree > 0 {
			lastFree--
			if nodes[lastFree].key < 0 {
				return lastFree
			}
		}
		return -1
	}
	used := 0
	insert = func(k int) {
		if len(nodes) == 0 {
			resize(1)
		}
		mp := main(k)
		if nodes[mp].key >= 0 {
			free := freePos()
			if free < 0 {
				resize(used + 1)
				insert(k)
				return
			}
			if other := main(nodes[mp].key); other != mp {
				for nodes[other].next != mp {
					other = nodes[other].next
				}
				nodes[other].next = free
				nodes[free] = nodes[mp]
				nodes[mp] = node{-1, -1}
			} else {
				nodes[free].next = nodes[mp].next
				nodes[mp].next = free
				mp = free
			}
		}
		nodes[mp].key = k
	}
	for k := range hashes {
		insert(k)
		used++
	}
	order := make([]int, 0, len(hashes))
	for _, n := range nodes {
		if n.key >= 0 {
			order = append(order, n.key)
		}
	}
	return order
}

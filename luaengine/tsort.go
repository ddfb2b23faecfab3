package luaengine

import lua "github.com/floodgate/floodgate/third_party/gopher-lua"

// tableSort is Lua 5.1's table.sort (ltablib.c): luaL_getn's border, then
// its own quicksort, auxsort. A script sees its order: where equal
// elements end up under a comparator with ties, which pairs the
// comparator is called with, and when "invalid order function for
// sorting" is raised. gopher-lua sorted its array slice with Go's sort.
func tableSort(L *lua.LState) int {
	t := L.CheckTable(1)
	n := getn(t)
	var fn lua.LValue = lua.LNil
	if v := L.Get(2); v != lua.LNil {
		if v.Type() != lua.LTFunction {
			argTypeError(L, 2, "function")
		}
		fn = v
	}
	s := luaSorter{L: L, t: t, fn: fn}
	s.auxsort(1, n)
	return 0
}

type luaSorter struct {
	L  *lua.LState
	t  *lua.LTable
	fn lua.LValue
}

func (s *luaSorter) get(i int) lua.LValue    { return s.t.RawGetInt(i) }
func (s *luaSorter) set(i int, v lua.LValue) { s.t.RawSetInt(i, v) }

// less is sort_comp: the comparator's truth, or lua_lessthan.
func (s *luaSorter) less(a, b lua.LValue) bool {
	L := s.L
	if s.fn != lua.LNil {
		return callTruth(L, s.fn, a, b)
	}
	if a.Type() == b.Type() {
		switch x := a.(type) {
		case lua.LNumber:
			return x < b.(lua.LNumber)
		case lua.LString:
			return string(x) < string(b.(lua.LString))
		}
		// call_orderTM: both operands' __lt, the same function.
		if tm := L.GetMetaField(a, "__lt"); tm != lua.LNil && tm == L.GetMetaField(b, "__lt") {
			return callTruth(L, tm, a, b)
		}
	}
	// luaG_ordererror, raised inside the C function: no position.
	t1, t2 := a.Type().String(), b.Type().String()
	if t1[2] == t2[2] {
		L.Error(lua.LString("attempt to compare two "+t1+" values"), 0)
	}
	L.Error(lua.LString("attempt to compare "+t1+" with "+t2), 0)
	return false
}

// callTruth calls fn(a, b) and returns the truth of its first result.
func callTruth(L *lua.LState, fn, a, b lua.LValue) bool {
	L.Push(fn)
	L.Push(a)
	L.Push(b)
	L.Call(2, 1)
	r := L.Get(-1)
	L.Pop(1)
	return lua.LVAsBool(r)
}

// auxsort is ltablib.c's auxsort, step for step: the same reads, writes
// and comparisons in the same order.
func (s *luaSorter) auxsort(l, u int) {
	for l < u {
		al, au := s.get(l), s.get(u)
		if s.less(au, al) {
			s.set(l, au)
			s.set(u, al)
		}
		if u-l == 1 {
			break
		}
		i := (l + u) / 2
		ai, al := s.get(i), s.get(l)
		if s.less(ai, al) {
			s.set(i, al)
			s.set(l, ai)
		} else if au := s.get(u); s.less(au, ai) {
			s.set(i, au)
			s.set(u, ai)
		}
		if u-l == 2 {
			break
		}
		p := s.get(i)
		s.set(i, s.get(u-1))
		s.set(u-1, p)
		i, j := l, u-1
		for {
			var ai, aj lua.LValue
			for {
				i++
				if ai = s.get(i); !s.less(ai, p) {
					break
				}
				if i > u {
					raiseLibError(s.L, "invalid order function for sorting")
				}
			}
			for {
				j--
				if aj = s.get(j); !s.less(p, aj) {
					break
				}
				if j < l {
					raiseLibError(s.L, "invalid order function for sorting")
				}
			}
			if j < i {
				break
			}
			s.set(i, aj)
			s.set(j, ai)
		}
		x, y := s.get(u-1), s.get(i)
		s.set(u-1, y)
		s.set(i, x)
		if i-l < u-i {
			j, i, l = l, i-1, i+1
		} else {
			j, i, u = i+1, u, i-1
		}
		s.auxsort(j, i)
	}
}

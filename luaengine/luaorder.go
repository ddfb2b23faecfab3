package luaengine

import lua "github.com/floodgate/floodgate/third_party/gopher-lua"

// tablePairs returns t's pairs in the order Redis's Lua 5.1 lists them with
// lua_next (cjson.encode, cmsgpack.pack, a RESP3 map or set reply): the
// order of gopher-lua's Next, which third_party/gopher-lua keeps as Lua
// 5.1's table layout gives it (lua51table.go).
func tablePairs(t *lua.LTable) (keys, vals []lua.LValue) {
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		keys, vals = append(keys, k), append(vals, v)
	}
	return keys, vals
}

package luaengine

import lua "github.com/floodgate/floodgate/third_party/gopher-lua"

// getn is Lua 5.1's luaH_getn, which unpack, table.concat, table.insert
// and table.getn use through luaL_getn: gopher-lua's Len in
// third_party/gopher-lua follows Lua 5.1's table layout
// (lua51table.go), so #{nil, 'x', nil} is 0 and #{1, nil, 3, nil} is 1.
func getn(t *lua.LTable) int { return t.Len() }

func isNil(v lua.LValue) bool { return v == nil || v == lua.LNil }

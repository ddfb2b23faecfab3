package luaengine

import lua "github.com/yuin/gopher-lua"

func newCJSONLib(L *lua.LState) *lua.LTable    { return L.NewTable() }
func newStructLib(L *lua.LState) *lua.LTable   { return L.NewTable() }
func newCMsgpackLib(L *lua.LState) *lua.LTable { return L.NewTable() }

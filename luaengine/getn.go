package luaengine

import (
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1's length of a table (luaH_getn, which unpack, table.concat,
// table.insert and table.getn use through luaL_getn) is a border found by
// binary search when the last slot of the table's array part is nil:
// #{nil, 'x', nil} is 0 and #{1, nil, 3, nil} is 1. gopher-lua's Len
// scans back for the last non-nil value (2 and 3). A constructor's
// positional values fill the array part in both, nils included, so the
// array's length stands for Lua 5.1's sizearray there. gopher-lua's
// OP_LEN (the # operator) still uses Len: it cannot be replaced without a
// fork of the VM.

// tableArrayOffset is the offset of gopher-lua's unexported LTable.array,
// or ^0 if it changed shape (then getn falls back to Len).
var tableArrayOffset = func() uintptr {
	f, ok := reflect.TypeOf(lua.LTable{}).FieldByName("array")
	if !ok || f.Type != reflect.TypeOf([]lua.LValue(nil)) {
		return ^uintptr(0)
	}
	return f.Offset
}()

// getn is luaH_getn over gopher-lua's array part.
func getn(t *lua.LTable) int {
	if tableArrayOffset == ^uintptr(0) {
		return t.Len()
	}
	arr := *(*[]lua.LValue)(unsafe.Add(unsafe.Pointer(t), tableArrayOffset))
	j := len(arr)
	if j == 0 || !isNil(arr[j-1]) {
		return j
	}
	i := 0
	for j-i > 1 {
		m := (i + j) / 2
		if isNil(arr[m-1]) {
			j = m
		} else {
			i = m
		}
	}
	return i
}

func isNil(v lua.LValue) bool { return v == nil || v == lua.LNil }

package luaengine

import (
	"reflect"
	"strings"
	"testing"

	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// TestObjectNames checks that runtime errors name the variable as Lua 5.1
// does. It also guards gopherFrame, which mirrors gopher-lua's unexported
// callFrame: if a gopher-lua upgrade changes that struct, these fail.
// Expected texts are redis-server 7.0.15's.
func TestObjectNames(t *testing.T) {
	tests := []struct{ body, want string }{
		{"local x return x + 1", "attempt to perform arithmetic on local 'x' (a nil value)"},
		{"local t = {} return t.a.b", "attempt to index field 'a' (a nil value)"},
		{"local t = {} t.f()", "attempt to call field 'f' (a nil value)"},
		{"return ARGV[1]:upper()", "attempt to index field '?' (a nil value)"},
		{"return KEYS[3] .. 'x'", "attempt to concatenate field '?' (a nil value)"},
		{"local up = nil local function f() return up.x end return f()", "attempt to index upvalue 'up' (a nil value)"},
		{"return #nil", "attempt to get length of a nil value"},
		{"return 1 + nil", "attempt to perform arithmetic on a nil value"},
		// A local is named whatever branch set it.
		{"local t = {} local v if ARGV[1] then v = t.a else v = t.b end return v + 1", "attempt to perform arithmetic on local 'v' (a nil value)"},
	}
	e := New(Options{})
	defer e.Close()
	for _, tt := range tests {
		f := newFakeRedis()
		f.engine = e
		got := run(t, e, f, tt.body, nil, nil)
		want := "-ERR user_script:1: " + tt.want + " script: " + SHA1Hex([]byte(tt.body)) + ", on @user_script:1.\r\n"
		if got != want {
			t.Errorf("%s\n got %q\nwant %q", tt.body, got, want)
		}
	}
}

// TestGopherFrameMirror compares gopherFrame's fields with gopher-lua's
// callFrame, which it is read through unsafe.
func TestGopherFrameMirror(t *testing.T) {
	if frameField < 0 || registryField < 0 {
		t.Fatal("gopher-lua's LState no longer has currentFrame/reg fields")
	}
	real := reflect.TypeOf(lua.LState{}).Field(frameField).Type.Elem()
	mirror := reflect.TypeOf(gopherFrame{})
	if real.NumField() != mirror.NumField() || real.Size() != mirror.Size() {
		t.Fatalf("callFrame has %d fields, %d bytes; gopherFrame %d, %d", real.NumField(), real.Size(), mirror.NumField(), mirror.Size())
	}
	for i := 0; i < real.NumField(); i++ {
		r, m := real.Field(i), mirror.Field(i)
		if r.Name != m.Name || r.Offset != m.Offset || (r.Type.Kind() != m.Type.Kind()) {
			t.Errorf("field %d: callFrame %s at %d (%s), gopherFrame %s at %d (%s)", i, r.Name, r.Offset, r.Type, m.Name, m.Offset, m.Type)
		}
	}
	if reg := reflect.TypeOf(lua.LState{}).Field(registryField).Type.Elem(); reg.Field(0).Type != reflect.TypeOf([]lua.LValue(nil)) || !strings.EqualFold(reg.Field(0).Name, "array") {
		t.Errorf("registry's first field is %s %s, want array []LValue", reg.Field(0).Name, reg.Field(0).Type)
	}
	// closeUpvalues walks the uvcache list through Upvalue's next and index.
	if uvcacheField < 0 || reflect.TypeOf(lua.LState{}).Field(uvcacheField).Type != reflect.TypeOf((*lua.Upvalue)(nil)) {
		t.Error("gopher-lua's LState no longer has a uvcache *Upvalue field")
	}
	if uvNextOffset == ^uintptr(0) || uvIndexOffset == ^uintptr(0) {
		t.Error("gopher-lua's Upvalue no longer has next *Upvalue and index int fields")
	}
}

package luaengine

import "testing"

func TestEnvironmentChoice(t *testing.T) {
	e := New(Options{})
	for _, tt := range []struct {
		body   string
		direct bool
	}{
		{"return redis.call('ping')", true},
		{"local t = {} t.x = 1 KEYS.y = 2 return t", true},
		{"x = 1", false},
		{"local function f() g = 1 end return 1", false},
		{"return function() return function() h = 1 end end", false},
		{"return loadstring('z = 1')", true}, // the chunk gets the proxy
	} {
		s, err := e.Get([]byte(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.fn.Env == e.direct; got != tt.direct {
			t.Errorf("%q: direct environment %v, want %v", tt.body, got, tt.direct)
		}
	}
}

// A KEYS table replaced between calls is what both environments see.
func TestDirectEnvFollowsKeys(t *testing.T) {
	e := New(Options{})
	f := newFakeRedis()
	run(t, e, f, "KEYS.extra = 1 return 1", []string{"a"}, nil)
	for _, body := range []string{"return KEYS[1]", "if false then x = 1 end return KEYS[1]"} {
		if got := run(t, e, f, body, []string{"b"}, nil); got != "$1\r\nb\r\n" {
			t.Errorf("%q: got %q", body, got)
		}
	}
	if e.direct.RawGetString("KEYS") != e.globals.RawGetString("KEYS") {
		t.Error("the environments hold different KEYS tables")
	}
}

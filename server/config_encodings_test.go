package server

import (
	"os"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/store"
)

// TestEncodingSettings: the thresholds a config file gives are what the
// store converts by once Init has built it; CONFIG SET changes them in the
// store; CONFIG REWRITE writes the values in effect, which read back the same.
func TestEncodingSettings(t *testing.T) {
	s, err := load(t, "zset-max-ziplist-entries 0\nhash-max-ziplist-value 1kb\nlist-max-ziplist-size 7\n", "set-max-intset-entries 3")
	if err != nil {
		t.Fatal(err)
	}
	s.Init()
	want := store.DefaultEncodings
	want.ZSetMaxListpackEntries, want.HashMaxListpackValue, want.ListMaxListpackSize, want.SetMaxIntsetEntries = 0, 1024, 7, 3
	if got := *s.store.Encodings(); got != want {
		t.Fatalf("after Init: %+v, want %+v", got, want)
	}
	if why := configByName["list-compress-depth"].set(s, "2", false); why != "" {
		t.Fatal(why)
	}
	if why := configByName["hash-max-listpack-entries"].set(s, "-1", false); !strings.Contains(why, "between 0 and") {
		t.Errorf("hash-max-listpack-entries -1: %q", why)
	}
	want.ListCompressDepth = 2
	if got := *s.store.Encodings(); got != want {
		t.Fatalf("after CONFIG SET: %+v, want %+v", got, want)
	}
	for name, v := range map[string]string{"zset-max-listpack-entries": "0", "zset-max-ziplist-entries": "0",
		"hash-max-listpack-value": "1024", "list-max-listpack-size": "7", "set-max-intset-entries": "3", "list-compress-depth": "2"} {
		if got := s.configValue(configByName[name].name); got != v {
			t.Errorf("CONFIG GET %s: %q, want %q", name, got, v)
		}
	}
	if err := s.rewriteConfig(); err != nil {
		t.Fatal(err)
	}
	s2 := Prepare(Config{})
	if err := s2.LoadConfig(s.configFile, nil, ""); err != nil {
		t.Fatal(err)
	}
	s2.Init()
	if got := *s2.store.Encodings(); got != want {
		text, _ := os.ReadFile(s.configFile)
		t.Errorf("rewritten and read back: %+v, want %+v\n%s", got, want, text)
	}
}

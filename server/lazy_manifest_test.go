package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
)

// With LazyAOFManifest a Start with the AOF off reads no file (a broken
// manifest does not stop it), and turning the AOF on reads the manifest
// then, as does a server that serves Dial only (which never read it).
func TestLazyAOFManifest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(s *Server) error
	}{
		{"tcp", func(s *Server) error { return s.StartAddr("127.0.0.1:0") }},
		{"dial only", func(s *Server) error { return s.ServeDialOnly() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			manifest := filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest")
			if err := os.MkdirAll(filepath.Dir(manifest), 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(manifest, []byte("not a manifest\n"), 0o644)
			s := New(Config{Addr: "127.0.0.1:0", Dir: dir, LazyAOFManifest: true})
			if err := tc.start(s); err != nil {
				t.Fatalf("start with a broken manifest and the AOF off: %v", err)
			}
			defer s.Close()
			// CONFIG SET answers OK and logs the failure, as Redis does.
			s.Call(0, "config", "set", "appendonly", "yes")
			if s.aof.on.Load() {
				t.Fatal("the AOF went on over a broken manifest")
			}
			os.Remove(manifest)
			if _, err := s.Call(0, "config", "set", "appendonly", "yes"); err != nil {
				t.Fatalf("CONFIG SET appendonly yes: %v", err)
			}
			if !s.aof.on.Load() {
				t.Fatal("CONFIG SET appendonly yes did not turn the AOF on")
			}
			if _, err := s.Call(0, "set", "k", "v"); err != nil {
				t.Fatal(err)
			}
			redistest.Eventually(t, "the AOF's manifest written", func() bool {
				_, err := os.Stat(manifest)
				return err == nil
			})
		})
	}
	// Without it, Start reads the manifest, as Redis does, and fails.
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "appendonlydir"), 0o755)
	os.WriteFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"), []byte("not a manifest\n"), 0o644)
	s := New(Config{Addr: "127.0.0.1:0", Dir: dir})
	if err := s.StartAddr("127.0.0.1:0"); err == nil {
		s.Close()
		t.Fatal("Start over a broken manifest succeeded")
	}
}

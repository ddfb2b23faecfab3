package server

import (
	"strings"
	"testing"
)

// copyCommands copies the generated rows, so that a test can attach
// handlers without writing to the shared table.
func copyCommands(cmds []*Command) []*Command {
	out := make([]*Command, len(cmds))
	for i, c := range cmds {
		cp := *c
		cp.Subcommands = copyCommands(c.Subcommands)
		out[i] = &cp
	}
	return out
}

// TestGeneratedCommandsHaveHandlers checks the committed table against the
// family maps, as the first server's start does: every generated command
// has a handler and every handler generated metadata.
func TestGeneratedCommandsHaveHandlers(t *testing.T) {
	if err := attachHandlers(copyCommands(generatedCommands), families); err != nil {
		t.Fatal(err)
	}
}

func TestAttachHandlers(t *testing.T) {
	h := func(*Client, [][]byte) {}
	get := func() *Command { return &Command{Name: "get", Arity: 2} }
	container := func(arity int) *Command {
		return &Command{Name: "config", Arity: arity, Subcommands: []*Command{{Name: "config|get", Arity: -3}}}
	}
	for _, tc := range []struct {
		name     string
		meta     []*Command
		handlers []map[string]Handler
		wantErr  string
	}{
		{"all present", []*Command{get(), container(-2)}, []map[string]Handler{{"get": h}, {"config|get": h}}, ""},
		{"handler without metadata", []*Command{get()}, []map[string]Handler{{"get": h, "nosuch": h}}, "no generated metadata for nosuch"},
		{"command without handler", []*Command{get()}, nil, "get has metadata but no handler"},
		{"subcommand without handler", []*Command{container(-2)}, nil, "config|get has metadata but no handler"},
		{"callable container without handler", []*Command{container(-1)}, []map[string]Handler{{"config|get": h}}, "config has metadata but no handler"},
		{"two handlers", []*Command{get()}, []map[string]Handler{{"get": h}, {"get": h}}, "two handlers for get"},
	} {
		err := attachHandlers(tc.meta, tc.handlers)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.wantErr)
		}
	}
}

package server

import (
	"slices"
	"testing"
)

// A row states only its own categories; the flags add the rest, in Redis's
// order, and a row that still lists a derived category gets it once.
func TestACLCategoriesFromFlags(t *testing.T) {
	for _, tc := range []struct {
		flags Flags
		acl   []string
		want  []string
	}{
		{FlagReadonly | FlagFast, []string{"string"}, []string{"read", "string", "fast"}},
		{FlagWrite | FlagDenyOOM, []string{"string"}, []string{"write", "string", "slow"}},
		{FlagWrite | FlagFast, []string{"fast", "write", "string"}, []string{"write", "string", "fast"}},
		{FlagAdmin | FlagNoScript, nil, []string{"admin", "slow", "dangerous"}},
		{FlagReadonly | FlagNoScript, []string{"scripting"}, []string{"slow", "scripting"}},
		{FlagBlocking | FlagWrite, []string{"list"}, []string{"write", "list", "slow", "blocking"}},
		{FlagPubSub | FlagFast, nil, []string{"pubsub", "fast"}},
		{FlagLoading, []string{"admin", "dangerous"}, []string{"admin", "slow", "dangerous"}},
	} {
		cmd := &Command{Name: "x", Flags: tc.flags, ACL: tc.acl}
		cmd.setACLCategories()
		if !slices.Equal(cmd.categories, tc.want) {
			t.Errorf("flags %v, ACL %v: categories %v, want %v", tc.flags.Names(), tc.acl, cmd.categories, tc.want)
		}
	}
}

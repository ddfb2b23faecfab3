package conformance

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"testing"
)

// Redis 7.0 keeps every script EVAL compiled until SCRIPT FLUSH: after 600
// distinct EVALs the first still runs by its SHA (floodgate used to evict
// EVAL-only scripts past 500, answering NOSCRIPT).
func TestLuaScriptCacheKeepsEvalScripts(t *testing.T) {
	sha := func(body string) string {
		sum := sha1.Sum([]byte(body))
		return hex.EncodeToString(sum[:])
	}
	body := func(i int) string { return fmt.Sprintf("return 'script %d'", i) }
	lines := []string{"SCRIPT FLUSH"}
	for i := 0; i < 600; i++ {
		lines = append(lines, fmt.Sprintf(`EVAL "%s" 0`, body(i)))
	}
	lines = append(lines,
		fmt.Sprintf("EVALSHA %s 0", sha(body(0))),
		fmt.Sprintf("EVALSHA %s 0", sha(body(99))),
		fmt.Sprintf("SCRIPT EXISTS %s %s %s", sha(body(0)), sha(body(599)), sha("return 'never run'")),
		"SCRIPT FLUSH",
		fmt.Sprintf("EVALSHA %s 0", sha(body(0))),
	)
	runCases(t, []tcase{{"600 EVAL scripts", lines}})
}

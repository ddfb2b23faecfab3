//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
)

// TestKeepSysmonAwake: the binary re-executes itself with sysmonAwake in
// GODEBUG, after what GODEBUG already held, and leaves a GODEBUG that sets
// schedtrace alone.
func TestKeepSysmonAwake(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := redistest.BuildT(t, ".")
	up := newUpstream(t)
	for _, tc := range []struct{ given, want string }{
		{"", sysmonAwake},
		{"madvdontneed=1", "madvdontneed=1," + sysmonAwake},
		{"schedtrace=0", "schedtrace=0"},
		{"gctrace=0, schedtrace=0", "gctrace=0, schedtrace=0"},
	} {
		listen := "127.0.0.1:" + strconv.Itoa(redistest.ReservePort(t))
		var log syncBuffer
		cmd := exec.Command(bin, "--listen", listen, "--admin-addr", "", "--upstream", up.URL, "--redis", "127.0.0.1:1",
			"--on-store-failure", "open", "--log-format", "text")
		cmd.Env = append(os.Environ(), "GODEBUG="+tc.given)
		cmd.Stderr = &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		redistest.Eventually(t, "the gateway to serve", func() bool { return strings.Contains(log.String(), "msg=serving") })
		environ, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/environ")
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for kv := range bytes.SplitSeq(environ, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, []byte("GODEBUG=")); ok {
				got = append(got, string(v))
			}
		}
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("GODEBUG=%q: the gateway ran with GODEBUG %q, want just %q", tc.given, got, tc.want)
		}
	}
}

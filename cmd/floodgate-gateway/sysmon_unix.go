//go:build unix

package main

import (
	"os"
	"strings"
	"syscall"
)

// sysmonAwake is the GODEBUG setting that keeps the Go runtime's sysmon
// thread out of its deep sleep: with schedtrace set, sysmon never waits on
// its note for the Ps to become busy, and it prints a trace line only
// every 2^31-1 ms (24.8 days of uptime).
//
// Why: a gateway goes idle between requests (waiting on the client, the
// store, the upstream), every idle moment sends sysmon to its deep sleep,
// and the next system call wakes it (entersyscallWakeSysmon), which resets
// its period to 20 µs; it then naps 20 µs at a time until the next idle
// moment. In the profile of the gateway under the sequential benchmark
// that was a fifth of its CPU, and on this VM every nap is a thread
// wake-up. Without the deep sleep, sysmon's period backs off to 10 ms as
// it finds nothing to retake: measured side by side, 26-37% less CPU per
// request, 7.2 thread wake-ups per request down to 3.8, p50 8-19 µs lower
// (BENCHMARKS.md "Gateway overhead"). An idle gateway pays 100 sysmon
// wake-ups a second.
const sysmonAwake = "schedtrace=2147483647"

// keepSysmonAwake re-executes the gateway with sysmonAwake added to
// GODEBUG, which the runtime reads only at start-up. A GODEBUG that sets
// schedtrace itself (schedtrace=0 for the runtime's default) is left alone,
// and so is any failure to re-execute: the gateway then runs as it is.
func keepSysmonAwake() {
	godebug := os.Getenv("GODEBUG")
	for setting := range strings.SplitSeq(godebug, ",") {
		if strings.HasPrefix(strings.TrimSpace(setting), "schedtrace=") {
			return
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	if godebug != "" {
		godebug += ","
	}
	env := []string{"GODEBUG=" + godebug + sysmonAwake}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") { // the runtime would read the first
			env = append(env, kv)
		}
	}
	syscall.Exec(exe, os.Args, env) // returns only on failure
}

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
)

// TestProtectedModeFromAnotherHost checks protected mode from a real
// non-loopback address: two network namespaces joined by a veth pair, the
// servers bound to every interface of one, redis-cli in the other. Both
// Redis and floodgate must answer a client there with the same DENIED
// text when the default user has no password, and serve it when it has one
// (from a user directive or requirepass) or protected mode is off. Every
// address is inside the namespaces, which are deleted at the end.
func TestProtectedModeFromAnotherHost(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make network namespaces")
	}
	for _, tool := range []string{"ip", "redis-server", "redis-cli"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	id := strconv.Itoa(os.Getpid() % 100000)
	srvNS, cliNS := "fgsrv"+id, "fgcli"+id
	ip := func(args ...string) error {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := ip("netns", "add", srvNS); err != nil {
		t.Skipf("network namespaces not available: %v", err)
	}
	t.Cleanup(func() { ip("netns", "del", srvNS) })
	if err := ip("netns", "add", cliNS); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ip("netns", "del", cliNS) })
	// The veth is made inside the server namespace and one end moved, so
	// nothing is ever added to the test's own namespace.
	for _, args := range [][]string{
		{"-n", srvNS, "link", "add", "vs" + id, "type", "veth", "peer", "name", "vc" + id},
		{"-n", srvNS, "link", "set", "vc" + id, "netns", cliNS},
		{"-n", srvNS, "addr", "add", "10.231.7.1/30", "dev", "vs" + id},
		{"-n", cliNS, "addr", "add", "10.231.7.2/30", "dev", "vc" + id},
		{"-n", srvNS, "link", "set", "vs" + id, "up"},
		{"-n", cliNS, "link", "set", "vc" + id, "up"},
		{"-n", srvNS, "link", "set", "lo", "up"},
	} {
		if err := ip(args...); err != nil {
			t.Fatal(err)
		}
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	for i, extra := range [][]string{
		nil,
		{"--requirepass", "pw"},
		{"--protected-mode", "no"},
		{"--user", "default", "on", ">pw", "~*", "&*", "+@all"},
	} {
		port := strconv.Itoa(17400 + i) // inside the namespace: no other process uses it
		serve := func(name string, args ...string) func() string {
			conf := filepath.Join(dir, fmt.Sprintf("%s%d.conf", filepath.Base(name), i))
			if err := os.WriteFile(conf, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			all := append([]string{"netns", "exec", srvNS, name, conf, "--port", port, "--bind", "0.0.0.0", "--save", "", "--dir", dir}, args...)
			cmd := exec.Command("ip", all...)
			var log bytes.Buffer
			cmd.Stdout, cmd.Stderr = &log, &log
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("%s's log:\n%s", name, log.String())
				}
			})
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			redistest.Eventually(t, name+" to listen", func() bool {
				return exec.Command("ip", "netns", "exec", srvNS, "redis-cli", "-p", port, "PING").Run() == nil
			})
			ask := func() string {
				out, _ := exec.Command("ip", "netns", "exec", cliNS, "redis-cli", "-h", "10.231.7.1", "-p", port, "PING").CombinedOutput()
				return strings.TrimSpace(string(out))
			}
			got := ask()
			cmd.Process.Kill()
			cmd.Wait()
			return func() string { return got }
		}
		want := serve("redis-server", extra...)()
		got := serve(bin, extra...)()
		if want != got {
			t.Errorf("%q: redis %q, floodgate %q", extra, want, got)
		}
		if extra == nil && !strings.HasPrefix(got, "DENIED Redis is running in protected mode") {
			t.Errorf("no DENIED from 10.231.7.2: %q", got)
		}
		if extra != nil && extra[0] != "--protected-mode" && !strings.Contains(got, "NOAUTH") {
			t.Errorf("%q: want NOAUTH, got %q", extra, got)
		}
	}
}

package server

import (
	"testing"
)

// A directive read by LoadConfig is what CONFIG GET answers once Init has
// built the server: Init builds on the server LoadConfig configured and
// forgets nothing it set.
func TestInitKeepsLoadedConfig(t *testing.T) {
	cases := []struct{ directive, name, want string }{
		{"limiter-prefix-delimiter /", "limiter-prefix-delimiter", "/"},
		{"persist-scripts yes", "persist-scripts", "yes"},
		{"metrics-addr 127.0.0.1:0", "metrics-addr", "127.0.0.1:0"},
		{"requirepass secret", "requirepass", "secret"},
		{"maxclients 77", "maxclients", "77"},
		{"timeout 42", "timeout", "42"},
		{"tcp-keepalive 17", "tcp-keepalive", "17"},
		{"hz 33", "hz", "33"},
		{"proto-max-bulk-len 1mb", "proto-max-bulk-len", "1048576"},
		{"client-query-buffer-limit 2mb", "client-query-buffer-limit", "2097152"},
		{"protected-mode no", "protected-mode", "no"},
		{"maxmemory 10mb", "maxmemory", "10485760"},
		{"maxmemory-policy allkeys-lfu", "maxmemory-policy", "allkeys-lfu"},
		{"maxmemory-eviction-tenacity 50", "maxmemory-eviction-tenacity", "50"},
		{"slowlog-log-slower-than 5", "slowlog-log-slower-than", "5"},
		{"latency-tracking-info-percentiles \"50 90\"", "latency-tracking-info-percentiles", "50 90"},
		{"hash-max-listpack-entries 7", "hash-max-listpack-entries", "7"},
		{"rdbcompression no", "rdbcompression", "no"},
		{"loglevel warning", "loglevel", "warning"},
		{"databases 4", "databases", "4"},
		{"client-output-buffer-limit \"normal 1mb 2mb 3\"", "client-output-buffer-limit", "normal 1048576 2097152 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := load(t, tc.directive+"\n", "")
			if err != nil {
				t.Fatal(err)
			}
			s.Init()
			if got := configByName[tc.name].value(s); got != tc.want {
				t.Errorf("after %q and Init, CONFIG GET %s = %q, want %q", tc.directive, tc.name, got, tc.want)
			}
		})
	}
}

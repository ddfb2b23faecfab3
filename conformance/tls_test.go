package conformance

import "testing"

// TestTLSConfigWithoutTLS: on a server with no tls-port (both servers
// here), the tls-* parameters read and set as Redis 7.0's: their defaults,
// values stored without a reload while TLS is off (applyTlsCfg configures
// only with a tls-port), the syntax errors, and tls-port refused with no
// certificate. tls-replication and tls-cluster yes are left out: floodgate
// has neither and refuses them (server/transport_tls_test.go).
func TestTLSConfigWithoutTLS(t *testing.T) {
	runCases(t, []tcase{
		{"defaults", []string{
			"!sort CONFIG GET tls-*", "CONFIG GET tls-port", "CONFIG GET tls-auth-clients",
		}},
		{"stored while off", []string{
			"CONFIG SET tls-protocols TLSv1.2", "CONFIG GET tls-protocols",
			"CONFIG SET tls-protocols bogus", "CONFIG GET tls-protocols",
			"CONFIG SET tls-ciphers HIGH", "CONFIG GET tls-ciphers",
			"CONFIG SET tls-session-cache-size 100", "CONFIG GET tls-session-cache-size",
			"CONFIG SET tls-session-cache-timeout 60", "CONFIG GET tls-session-cache-timeout",
			"CONFIG SET tls-session-caching no", "CONFIG GET tls-session-caching",
			"CONFIG SET tls-prefer-server-ciphers yes", "CONFIG GET tls-prefer-server-ciphers",
			"CONFIG SET tls-auth-clients optional", "CONFIG GET tls-auth-clients",
			"CONFIG SET tls-cert-file /nonexistent.crt", "CONFIG GET tls-cert-file",
			`CONFIG SET tls-protocols "" tls-ciphers "" tls-session-cache-size 20480 tls-session-cache-timeout 300 tls-session-caching yes tls-prefer-server-ciphers no tls-auth-clients yes tls-cert-file ""`,
			"!sort CONFIG GET tls-*",
		}},
		{"syntax", []string{
			"CONFIG SET tls-auth-clients maybe",
			"CONFIG SET tls-port -1", "CONFIG SET tls-port 65536", "CONFIG SET tls-port x",
			"CONFIG SET tls-session-caching maybe",
			"CONFIG SET tls-session-cache-size -1",
			"CONFIG SET tls-replication no", "CONFIG SET tls-cluster no",
		}},
		{"tls-port without a certificate", []string{
			"CONFIG SET tls-port 0",
			"CONFIG SET tls-port 1", "CONFIG GET tls-port",
		}},
	})
}

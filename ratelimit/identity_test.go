package ratelimit

import (
	"net/http/httptest"
	"testing"
	"time"
)

func TestIdentityKey(t *testing.T) {
	for _, tc := range []struct {
		id   Identity
		want string
	}{
		{Identity{APIKey: "abc", User: "42", IP: "1.2.3.4"}, "rate:apikey:ba7816bf8f01cfea414140de5dae2223"},
		{Identity{User: "42", IP: "1.2.3.4"}, "rate:user:42"},
		{Identity{IP: "1.2.3.4"}, "rate:ip:1.2.3.4"},
		{Identity{}, ""},
	} {
		if got := tc.id.Key(); got != tc.want {
			t.Errorf("%+v.Key() = %q, want %q", tc.id, got, tc.want)
		}
	}
}

func TestClientIP(t *testing.T) {
	trusted, err := ParsePrefixes([]string{"10.0.0.0/8", "192.168.1.1", "fd00::/8"})
	if err != nil {
		t.Fatal(err)
	}
	behindProxies := ClientIP{TrustedProxies: trusted}
	for _, tc := range []struct {
		name    string
		c       ClientIP
		remote  string
		headers map[string]string
		want    string
	}{
		{"no proxy", ClientIP{}, "203.0.113.7:5555", nil, "rate:ip:203.0.113.7"},
		{"untrusted peer cannot forge XFF", behindProxies, "203.0.113.7:5555",
			map[string]string{"X-Forwarded-For": "1.1.1.1"}, "rate:ip:203.0.113.7"},
		{"trusted peer", behindProxies, "10.0.0.2:80",
			map[string]string{"X-Forwarded-For": "198.51.100.9"}, "rate:ip:198.51.100.9"},
		{"client-made entries left of the real one are ignored", behindProxies, "10.0.0.2:80",
			map[string]string{"X-Forwarded-For": "1.1.1.1, 198.51.100.9, 10.1.1.1"}, "rate:ip:198.51.100.9"},
		{"all hops trusted", behindProxies, "10.0.0.2:80",
			map[string]string{"X-Forwarded-For": "192.168.1.1, 10.1.1.1"}, "rate:ip:192.168.1.1"},
		{"garbage hop stops the walk", behindProxies, "10.0.0.2:80",
			map[string]string{"X-Forwarded-For": "198.51.100.9, nonsense, 10.1.1.1"}, "rate:ip:10.1.1.1"},
		{"Forwarded wins over XFF", behindProxies, "10.0.0.2:80",
			map[string]string{"Forwarded": `for=198.51.100.1;proto=https, for="10.2.2.2:8080"`, "X-Forwarded-For": "1.1.1.1"}, "rate:ip:198.51.100.1"},
		{"Forwarded IPv6 grouped by /64", behindProxies, "10.0.0.2:80",
			map[string]string{"Forwarded": `For="[2001:db8:cafe:1:2:3:4:5]:4711"`}, "rate:ip:2001:db8:cafe:1::/64"},
		{"IPv6 peer grouped by /64", ClientIP{}, "[2001:db8::1]:443", nil, "rate:ip:2001:db8::/64"},
		{"IPv6 grouped by /48", ClientIP{IPv6PrefixBits: 48}, "[2001:db8:1:2::1]:443", nil, "rate:ip:2001:db8:1::/48"},
		{"IPv6 not grouped", ClientIP{IPv6PrefixBits: 128}, "[2001:db8::1]:443", nil, "rate:ip:2001:db8::1"},
		{"IPv4-mapped IPv6 is IPv4", ClientIP{}, "[::ffff:198.51.100.3]:1", nil, "rate:ip:198.51.100.3"},
		{"IPv6 trusted proxy", behindProxies, "[fd00::1]:80",
			map[string]string{"X-Forwarded-For": "198.51.100.4"}, "rate:ip:198.51.100.4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			for k, v := range tc.headers {
				r.Header.Set(k, v)
			}
			if got := tc.c.Key(r); got != tc.want {
				t.Errorf("Key = %q, want %q", got, tc.want)
			}
			if got := (Identity{IP: tc.c.Group(r)}).Key(); got != tc.want {
				t.Errorf("Identity{IP: Group}.Key() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParsePrefixesRejectsGarbage(t *testing.T) {
	if _, err := ParsePrefixes([]string{"10.0.0.0/33"}); err == nil {
		t.Error("10.0.0.0/33 parsed")
	}
	if _, err := ParsePrefixes([]string{"proxy.example"}); err == nil {
		t.Error("a host name parsed")
	}
}

func TestParseLimit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Limit
		ok   bool
	}{
		{"100/1m0s", Limit{Rate: 100, Period: time.Minute}, true},
		{"10/1s burst 20", Limit{Rate: 10, Period: time.Second, Burst: 20}, true},
		{PerHour(5).String(), Limit{Rate: 5, Period: time.Hour, Burst: 0}, true},
		{"100", Limit{}, false},
		{"0/1s", Limit{}, false},
		{"5/fortnight", Limit{}, false},
		{"5/1s burst x", Limit{}, false},
	} {
		got, err := ParseLimit(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseLimit(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

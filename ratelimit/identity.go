package ratelimit

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// IPKey returns the key limiting anonymous traffic from ip, which may be an
// address or an IPv6 prefix: "rate:ip:1.2.3.4", "rate:ip:2001:db8::/64".
func IPKey(ip string) string { return "rate:ip:" + ip }

// UserKey returns the key limiting an authenticated user: "rate:user:42".
func UserKey(id string) string { return "rate:user:" + id }

// APIKeyKey returns the key limiting an API client, named by a digest of the
// API key, never the key itself: anyone who may run KEYS or MONITOR on the
// store, or read its RDB files, would otherwise hold every client's
// credentials. "rate:apikey:" and the first 16 bytes of its SHA-256 in hex
// (HashAPIKey).
func APIKeyKey(apiKey string) string { return "rate:apikey:" + HashAPIKey(apiKey) }

// HashAPIKey returns the first 16 bytes of apiKey's SHA-256 in hex: what
// APIKeyKey names a key by, and what a list of known keys can hold instead
// of the keys. API keys are long random strings, so a plain digest cannot be
// reversed by guessing; 128 bits keep collisions out of reach.
func HashAPIKey(apiKey string) string {
	sum := sha256.Sum256([]byte(apiKey))
	return hex.EncodeToString(sum[:16])
}

// Identity is who a request comes from, as far as the caller knows. Only
// fill APIKey and User once they are authenticated: a limit keyed by an
// unchecked header is escaped by sending a new value each time.
type Identity struct {
	APIKey string
	User   string
	IP     string // an address or IPv6 prefix, as from ClientIP.Group
}

// Key returns the key of the most specific identity present, API key before
// user before IP, so that one abuser cannot drain a bucket shared with
// others (a whole office behind one NAT address, say). It returns "" when
// the identity is empty.
func (id Identity) Key() string {
	switch {
	case id.APIKey != "":
		return APIKeyKey(id.APIKey)
	case id.User != "":
		return UserKey(id.User)
	case id.IP != "":
		return IPKey(id.IP)
	}
	return ""
}

// ClientIP finds the address of the client behind a request. The zero value
// trusts no proxy: it uses the connection's peer and ignores forwarding
// headers, which any client can forge.
type ClientIP struct {
	// TrustedProxies are the networks of proxies in front of this server
	// (load balancers, CDNs). X-Forwarded-For and Forwarded are honoured only
	// when they arrive from one of these, and only their hops are skipped.
	TrustedProxies []netip.Prefix
	// IPv6PrefixBits groups IPv6 clients by network, since one client
	// usually holds a whole /64; zero means 64, 128 means no grouping.
	IPv6PrefixBits int
}

// ParsePrefixes parses CIDRs or bare addresses ("10.0.0.0/8", "::1") for
// ClientIP.TrustedProxies.
func ParsePrefixes(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/") {
			addr, err := netip.ParseAddr(s)
			if err != nil {
				return nil, err
			}
			out = append(out, netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Addr returns the client's address, or the zero Addr if RemoteAddr is not
// an address (a Unix socket, say).
//
// Forwarding headers are read only from a trusted peer. The hops they list
// are walked right to left, nearest first, skipping trusted proxies; the
// first untrusted hop is the client, since every hop to its right was added
// by a proxy we trust, and everything to its left could be made up by the
// client. Forwarded (RFC 7239) is preferred over X-Forwarded-For when both
// are present.
func (c *ClientIP) Addr(r *http.Request) netip.Addr {
	peer := parseHost(r.RemoteAddr)
	if !peer.IsValid() || !c.trusted(peer) {
		return peer
	}
	hops := forwardedFor(r.Header)
	if len(hops) == 0 {
		hops = xForwardedFor(r.Header)
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		hop := parseHost(hops[i])
		if !hop.IsValid() {
			// Garbage (or "unknown"): nothing left of it can be trusted.
			break
		}
		client = hop
		if !c.trusted(hop) {
			break
		}
	}
	return client
}

// Group returns what is limited together for the request's client: its
// address, or its IPv6 prefix ("2001:db8::/64"). A RemoteAddr that is not an
// address is returned as it is.
func (c *ClientIP) Group(r *http.Request) string {
	addr := c.Addr(r)
	if !addr.IsValid() {
		return r.RemoteAddr
	}
	return c.group(addr)
}

// Key returns the rate-limit key of the request's client, IPKey(c.Group(r)).
func (c *ClientIP) Key(r *http.Request) string { return IPKey(c.Group(r)) }

// group returns addr as a string, IPv6 addresses reduced to their prefix.
func (c *ClientIP) group(addr netip.Addr) string {
	if addr.Is4() {
		return addr.String()
	}
	bits := c.IPv6PrefixBits
	if bits == 0 {
		bits = 64
	}
	if bits >= 128 {
		return addr.String()
	}
	p, err := addr.WithZone("").Prefix(bits)
	if err != nil {
		return addr.String()
	}
	return p.String()
}

func (c *ClientIP) trusted(addr netip.Addr) bool {
	for _, p := range c.TrustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// parseHost parses "1.2.3.4", "1.2.3.4:80", "::1", "[::1]:80" or "[::1]",
// unmapping IPv4-in-IPv6, or returns the zero Addr.
func parseHost(s string) netip.Addr {
	s = strings.TrimSpace(s)
	if addr, err := netip.ParseAddr(s); err == nil {
		return addr.Unmap()
	}
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	addr, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil {
		return netip.Addr{}
	}
	return addr.Unmap()
}

// xForwardedFor returns the hops of every X-Forwarded-For header, in order.
func xForwardedFor(h http.Header) []string {
	var hops []string
	for _, v := range h.Values("X-Forwarded-For") {
		for hop := range strings.SplitSeq(v, ",") {
			hops = append(hops, strings.TrimSpace(hop))
		}
	}
	return hops
}

// forwardedFor returns the for= values of every Forwarded header, in order:
// `for=192.0.2.60;proto=http, for="[2001:db8::17]:4711"`. An element
// without for= yields "" so that it still counts as a (garbage) hop.
func forwardedFor(h http.Header) []string {
	var hops []string
	for _, v := range h.Values("Forwarded") {
		for elem := range strings.SplitSeq(v, ",") {
			hop := ""
			for pair := range strings.SplitSeq(elem, ";") {
				name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if ok && strings.EqualFold(name, "for") {
					if u, err := strconv.Unquote(value); err == nil {
						value = u
					}
					hop = value
				}
			}
			hops = append(hops, hop)
		}
	}
	return hops
}

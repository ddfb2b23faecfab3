package main

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/floodgate/floodgate/ratelimit"
	"go.yaml.in/yaml/v3"
)

// A rules file, in the spirit of envoy's ratelimit service: a tree of
// descriptors, each matching one attribute of a request, the deepest
// matching descriptor with a rate_limit on each branch applying. See
// README.md for the whole format; rules.example.yaml is a complete one.
//
//	domain: api
//	api_keys: [sha256:5e88...]   # known keys, or their HashAPIKey digests
//	descriptors:
//	  - key: route
//	    value: /search
//	    rate_limit: {requests_per_unit: 10, unit: second}
//	    descriptors:
//	      - key: api_key
//	        rate_limit: {requests_per_unit: 100, unit: second, algorithm: sliding_window}
//	  - key: anonymous
//	    rate_limit: {requests_per_unit: 60, unit: minute}

// descriptorKinds are the request attributes a descriptor can match.
var descriptorKinds = map[string]string{
	"route":     "the URL path; value is a prefix",
	"method":    "the HTTP method",
	"header":    "the header named by name",
	"api_key":   "a known API key (one counter per key, named by its digest)",
	"user":      "the user_header set by a trusted proxy",
	"ip":        "the client address, IPv6 grouped by ipv6_prefix",
	"anonymous": "requests with neither a known API key nor a user, per client address",
}

var units = map[string]time.Duration{"second": time.Second, "minute": time.Minute, "hour": time.Hour, "day": 24 * time.Hour}

// ruleSet is a compiled rules file.
type ruleSet struct {
	domain       string
	apiKeys      map[string]bool // digests (ratelimit.HashAPIKey)
	apiKeyHeader string
	userHeader   string
	clientIP     *ratelimit.ClientIP
	roots        []*descriptor
	// limited lists every descriptor with a rate limit, for metrics.
	limited []*descriptor
	// headersRead names every request header matching reads (set by
	// gateway.setRules): the fasthttp front end copies only these into
	// the *http.Request the rules see.
	headersRead []string
}

// readHeaders lists the request headers rs's matching reads: the API key
// and user headers, those of header descriptors, and the forwarding
// headers when a trusted proxy may have set them.
func (rs *ruleSet) readHeaders() []string {
	var names []string
	add := func(name string) {
		if name = http.CanonicalHeaderKey(name); name != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	add(rs.apiKeyHeader)
	add(rs.userHeader)
	if len(rs.clientIP.TrustedProxies) > 0 {
		add("Forwarded")
		add("X-Forwarded-For")
	}
	var walk func([]*descriptor)
	walk = func(ds []*descriptor) {
		for _, d := range ds {
			if d.kind == "header" {
				add(d.header)
			}
			walk(d.children)
		}
	}
	walk(rs.roots)
	return names
}

// descriptor is one node of the tree.
type descriptor struct {
	kind   string
	header string // for kind "header", canonical
	value  string // "" matches any value, one counter per value
	prefix bool   // value matches as a prefix: route, or a trailing *

	name      string
	limit     *ratelimit.Limit
	algorithm ratelimit.Algorithm
	shadow    bool
	children  []*descriptor
	line      int
}

// match is one limit that applies to a request.
type match struct {
	d   *descriptor
	key string // the counter key, with the identity as hash tag
}

// loadRules reads and compiles a rules file; errors name the file and line.
func loadRules(path string, defaultAlgorithm ratelimit.Algorithm) (*ruleSet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rs, err := parseRules(data, defaultAlgorithm)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	return rs, nil
}

// lineError is an error at a line of the rules file: "12: ...".
func lineError(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%d: %s", n.Line, fmt.Sprintf(format, args...))
}

// fields returns a mapping node's values by key, refusing unknown keys and
// duplicates, so that a typo is an error and not a rule silently ignored.
func fields(n *yaml.Node, what string, allowed ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, lineError(n, "%s must be a mapping", what)
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(allowed, k.Value) {
			return nil, lineError(k, "unknown field %q in %s (known: %s)", k.Value, what, strings.Join(allowed, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, lineError(k, "%s given twice in %s", k.Value, what)
		}
		out[k.Value] = v
	}
	return out, nil
}

func scalar[T any](n *yaml.Node, what string) (T, error) {
	var v T
	if n.Kind != yaml.ScalarNode {
		return v, lineError(n, "%s must be a single value", what)
	}
	if err := n.Decode(&v); err != nil {
		return v, lineError(n, "%s: %q is not a %T", what, n.Value, v)
	}
	return v, nil
}

func list(n *yaml.Node, what string) ([]*yaml.Node, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, lineError(n, "%s must be a list", what)
	}
	return n.Content, nil
}

// parseRules compiles a rules file's text.
func parseRules(data []byte, defaultAlgorithm ratelimit.Algorithm) (*ruleSet, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// yaml's own errors read "yaml: line 3: ..."
		return nil, errors.New(strings.TrimPrefix(strings.TrimPrefix(err.Error(), "yaml: "), "line "))
	}
	if len(doc.Content) == 0 {
		return nil, errors.New("1: the rules file is empty")
	}
	top, err := fields(doc.Content[0], "the rules file", "domain", "api_keys", "api_key_header", "user_header",
		"trusted_proxies", "ipv6_prefix", "descriptors")
	if err != nil {
		return nil, err
	}
	rs := &ruleSet{apiKeys: map[string]bool{}, apiKeyHeader: "X-API-Key", clientIP: &ratelimit.ClientIP{}}
	if n := top["domain"]; n != nil {
		if rs.domain, err = scalar[string](n, "domain"); err != nil {
			return nil, err
		}
	}
	if rs.domain == "" || strings.ContainsAny(rs.domain, "{}: ") {
		line := doc.Content[0]
		if n := top["domain"]; n != nil {
			line = n
		}
		return nil, lineError(line, "domain must be set, without spaces, braces or colons: it prefixes every counter")
	}
	if n := top["api_keys"]; n != nil {
		keys, err := list(n, "api_keys")
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			key, err := scalar[string](k, "an API key")
			if err != nil {
				return nil, err
			}
			if err := addAPIKey(rs.apiKeys, key); err != nil {
				return nil, lineError(k, "%v", err)
			}
		}
	}
	for name, dst := range map[string]*string{"api_key_header": &rs.apiKeyHeader, "user_header": &rs.userHeader} {
		if n := top[name]; n != nil {
			if *dst, err = scalar[string](n, name); err != nil {
				return nil, err
			}
			*dst = http.CanonicalHeaderKey(*dst)
		}
	}
	if n := top["trusted_proxies"]; n != nil {
		items, err := list(n, "trusted_proxies")
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			s, err := scalar[string](item, "a trusted proxy")
			if err != nil {
				return nil, err
			}
			p, err := ratelimit.ParsePrefixes([]string{s})
			if err != nil {
				return nil, lineError(item, "trusted proxy %q is not an address or CIDR", s)
			}
			rs.clientIP.TrustedProxies = append(rs.clientIP.TrustedProxies, p...)
		}
	}
	if n := top["ipv6_prefix"]; n != nil {
		bits, err := scalar[int](n, "ipv6_prefix")
		if err != nil {
			return nil, err
		}
		if bits < 1 || bits > 128 {
			return nil, lineError(n, "ipv6_prefix must be 1 to 128, not %d", bits)
		}
		rs.clientIP.IPv6PrefixBits = bits
	}
	if rs.userHeader != "" && len(rs.clientIP.TrustedProxies) == 0 {
		return nil, lineError(top["user_header"], "user_header needs trusted_proxies: any client could set it otherwise")
	}
	n := top["descriptors"]
	if n == nil {
		return nil, lineError(doc.Content[0], "no descriptors: nothing would be limited")
	}
	names := map[string]int{}
	if rs.roots, err = rs.parseDescriptors(n, "", defaultAlgorithm, names); err != nil {
		return nil, err
	}
	if len(rs.limited) == 0 {
		return nil, lineError(n, "no descriptor has a rate_limit: nothing would be limited")
	}
	return rs, nil
}

// addAPIKey adds a key, or a digest written "sha256:<32 hex digits>", so
// that the file need not hold the keys themselves.
func addAPIKey(set map[string]bool, key string) error {
	key = strings.TrimSpace(key)
	if digest, ok := strings.CutPrefix(key, "sha256:"); ok {
		if len(digest) != 32 || strings.Trim(strings.ToLower(digest), "0123456789abcdef") != "" {
			return errors.New("an API key digest is sha256: and 32 hex digits (ratelimit.HashAPIKey)")
		}
		set[strings.ToLower(digest)] = true
		return nil
	}
	if key == "" {
		return errors.New("an empty API key")
	}
	set[ratelimit.HashAPIKey(key)] = true
	return nil
}

func (rs *ruleSet) parseDescriptors(n *yaml.Node, parent string, algo ratelimit.Algorithm, names map[string]int) ([]*descriptor, error) {
	items, err := list(n, "descriptors")
	if err != nil {
		return nil, err
	}
	var out []*descriptor
	for _, item := range items {
		f, err := fields(item, "a descriptor", "key", "name", "value", "rule", "rate_limit", "shadow_mode", "descriptors")
		if err != nil {
			return nil, err
		}
		d := &descriptor{line: item.Line, algorithm: algo}
		if f["key"] == nil {
			return nil, lineError(item, "a descriptor needs a key: one of %s", kindList())
		}
		if d.kind, err = scalar[string](f["key"], "key"); err != nil {
			return nil, err
		}
		if _, ok := descriptorKinds[d.kind]; !ok {
			return nil, lineError(f["key"], "unknown descriptor key %q: want one of %s", d.kind, kindList())
		}
		if n := f["name"]; n != nil {
			if d.kind != "header" {
				return nil, lineError(n, "name is the header's name, for key: header only")
			}
			if d.header, err = scalar[string](n, "name"); err != nil {
				return nil, err
			}
			d.header = http.CanonicalHeaderKey(d.header)
		}
		if d.kind == "header" && d.header == "" {
			return nil, lineError(item, "key: header needs name: the header's name")
		}
		if n := f["value"]; n != nil {
			if d.kind == "api_key" || d.kind == "anonymous" {
				return nil, lineError(n, "key: %s takes no value: each client has its own counter", d.kind)
			}
			if d.value, err = scalar[string](n, "value"); err != nil {
				return nil, err
			}
			if d.value == "" {
				return nil, lineError(n, "an empty value; leave value out to match any")
			}
			d.prefix = d.kind == "route"
			if v, ok := strings.CutSuffix(d.value, "*"); ok {
				d.value, d.prefix = v, true
			}
			if d.kind == "method" {
				d.value = strings.ToUpper(d.value)
			}
		}
		for _, sib := range out {
			if sib.kind == d.kind && sib.header == d.header && sib.value == d.value && sib.prefix == d.prefix {
				return nil, lineError(item, "the same match as the descriptor at line %d", sib.line)
			}
		}
		here := d.kind
		if d.header != "" {
			here += ":" + d.header
		}
		if d.value != "" {
			here += "=" + d.value
			if d.prefix && d.kind != "route" {
				here += "*"
			}
		}
		path := here
		if parent != "" {
			path = parent + "." + here
		}
		if n := f["rate_limit"]; n != nil {
			if err := d.parseLimit(n); err != nil {
				return nil, err
			}
			d.name = path
			if n := f["rule"]; n != nil {
				if d.name, err = scalar[string](n, "rule"); err != nil {
					return nil, err
				}
			}
			for i := 0; i < len(d.name); i++ {
				if d.name[i] < 0x21 || d.name[i] > 0x7e || d.name[i] == '"' || d.name[i] == '\\' || d.name[i] == '{' || d.name[i] == '}' {
					return nil, lineError(item, "rule name %q: printable ASCII without spaces, quotes, backslashes or braces", d.name)
				}
			}
			if first, dup := names[d.name]; dup {
				return nil, lineError(item, "rule name %q is used at line %d too", d.name, first)
			}
			names[d.name] = item.Line
			rs.limited = append(rs.limited, d)
		} else if f["rule"] != nil {
			return nil, lineError(f["rule"], "rule names a rate_limit, and this descriptor has none")
		}
		if n := f["shadow_mode"]; n != nil {
			if d.shadow, err = scalar[bool](n, "shadow_mode"); err != nil {
				return nil, err
			}
		}
		if n := f["descriptors"]; n != nil {
			if d.children, err = rs.parseDescriptors(n, path, d.algorithm, names); err != nil {
				return nil, err
			}
		}
		if d.limit == nil && len(d.children) == 0 {
			return nil, lineError(item, "a descriptor without rate_limit needs descriptors below it")
		}
		out = append(out, d)
	}
	return out, nil
}

func (d *descriptor) parseLimit(n *yaml.Node) error {
	f, err := fields(n, "rate_limit", "requests_per_unit", "unit", "burst", "algorithm")
	if err != nil {
		return err
	}
	if f["requests_per_unit"] == nil || f["unit"] == nil {
		return lineError(n, "rate_limit needs requests_per_unit and unit")
	}
	var l ratelimit.Limit
	if l.Rate, err = scalar[int](f["requests_per_unit"], "requests_per_unit"); err != nil {
		return err
	}
	if l.Rate < 1 {
		return lineError(f["requests_per_unit"], "requests_per_unit must be at least 1")
	}
	unit, err := scalar[string](f["unit"], "unit")
	if err != nil {
		return err
	}
	if l.Period = units[unit]; l.Period == 0 {
		return lineError(f["unit"], "unknown unit %q: want second, minute, hour or day", unit)
	}
	if n := f["burst"]; n != nil {
		if l.Burst, err = scalar[int](n, "burst"); err != nil {
			return err
		}
		if l.Burst < 1 {
			return lineError(n, "burst must be at least 1")
		}
	}
	if n := f["algorithm"]; n != nil {
		name, err := scalar[string](n, "algorithm")
		if err != nil {
			return err
		}
		var ok bool
		if d.algorithm, ok = algorithmNamed(name); !ok {
			return lineError(n, "unknown algorithm %q: want one of %s", name, algorithmList())
		}
	}
	if l.Burst != 0 && d.algorithm != ratelimit.GCRA && d.algorithm != ratelimit.TokenBucket {
		return lineError(f["burst"], "burst applies to gcra and token_bucket, not %s", d.algorithm)
	}
	d.limit = &l
	return nil
}

func kindList() string {
	kinds := make([]string, 0, len(descriptorKinds))
	for k := range descriptorKinds {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return strings.Join(kinds, ", ")
}

func algorithmList() string {
	var names []string
	for _, a := range ratelimit.Algorithms {
		names = append(names, a.String())
	}
	return strings.Join(names, ", ")
}

func algorithmNamed(name string) (ratelimit.Algorithm, bool) {
	for _, a := range ratelimit.Algorithms {
		if a.String() == name {
			return a, true
		}
	}
	return 0, false
}

// attributes are what descriptors match, read once per request.
type attributes struct {
	r      *http.Request
	apiKey string // digest of a known key, or ""
	user   string
	ip     string
}

func (rs *ruleSet) attributes(r *http.Request) attributes {
	a := attributes{r: r, ip: rs.clientIP.Group(r)}
	if k := r.Header.Get(rs.apiKeyHeader); k != "" {
		if digest := ratelimit.HashAPIKey(k); rs.apiKeys[digest] {
			a.apiKey = digest
		}
	}
	if rs.userHeader != "" && rs.fromTrustedProxy(r) {
		// Any client can send the header; only a proxy we trust vouches
		// for it.
		a.user = r.Header.Get(rs.userHeader)
	}
	return a
}

func (rs *ruleSet) fromTrustedProxy(r *http.Request) bool {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	for _, p := range rs.clientIP.TrustedProxies {
		if p.Contains(peer.Addr().Unmap()) {
			return true
		}
	}
	return false
}

// value returns the attribute a descriptor kind matches, false when the
// request has none (no known API key, no user).
func (a *attributes) value(d *descriptor) (string, bool) {
	switch d.kind {
	case "route":
		return a.r.URL.Path, true
	case "method":
		return a.r.Method, true
	case "header":
		v := a.r.Header.Get(d.header)
		return v, v != ""
	case "api_key":
		return a.apiKey, a.apiKey != ""
	case "user":
		return a.user, a.user != ""
	case "ip":
		return a.ip, true
	case "anonymous":
		return a.ip, a.apiKey == "" && a.user == ""
	}
	return "", false
}

// match returns the limits that apply to r, shortest period first (see
// ratelimit.Middleware.Wrap for why).
func (rs *ruleSet) match(r *http.Request) []match {
	a := rs.attributes(r)
	var out []match
	rs.walk(&a, rs.roots, nil, nil, &out)
	// Sibling branches below one limit each carry it up: count it once.
	seen := map[string]bool{}
	out = slices.DeleteFunc(out, func(m match) bool {
		dup := seen[m.key]
		seen[m.key] = true
		return dup
	})
	slices.SortStableFunc(out, func(x, y match) int { return cmp.Compare(x.d.limit.Period, y.d.limit.Period) })
	return out
}

// walk matches one level: among siblings of the same key, the best match
// (an exact value, then the longest prefix, then a descriptor without
// value); each such match is a branch, and a branch applies the deepest
// descriptor with a rate limit it reached.
func (rs *ruleSet) walk(a *attributes, level []*descriptor, parts []string, applying *match, out *[]match) {
	for i, d := range level {
		if slices.ContainsFunc(level[:i], func(p *descriptor) bool { return p.kind == d.kind && p.header == d.header }) {
			continue // this key's group was decided at its first member
		}
		v, ok := a.value(d)
		if !ok {
			continue
		}
		var best *descriptor
		bestScore := -1
		for _, c := range level[i:] {
			if c.kind != d.kind || c.header != d.header {
				continue
			}
			score := -1
			switch {
			case c.value == "":
				score = 0
			case !c.prefix && v == c.value:
				score = 1 << 30
			case c.prefix && strings.HasPrefix(v, c.value):
				score = 1 + len(c.value)
			}
			if score > bestScore {
				best, bestScore = c, score
			}
		}
		if best == nil {
			continue
		}
		part := best.kind
		if best.header != "" {
			part += ":" + best.header
		}
		if best.value != "" {
			part += "=" + best.value // a configured value: all matches share it
			if best.prefix && best.kind != "route" {
				part += "*"
			}
		} else {
			part += "=" + v // one counter per value
		}
		branch := append(slices.Clip(parts), part)
		next := applying
		if best.limit != nil {
			next = &match{d: best, key: "{rate:" + rs.domain + ":" + strings.Join(branch, "|") + "}:" + best.name}
		}
		if len(best.children) > 0 {
			before := len(*out)
			rs.walk(a, best.children, branch, next, out)
			if len(*out) > before {
				continue
			}
		}
		if next != nil {
			*out = append(*out, *next)
		}
	}
}

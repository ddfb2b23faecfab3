package tlsconf

import (
	"crypto/tls"
	"strings"
)

// openSSLSuites are the OpenSSL names of the TLS 1.2 (and older) suites
// crypto/tls implements. Go has no finite-field DHE, PSK, SRP or CCM
// suites; a list naming only those leaves nothing to serve with.
var openSSLSuites = map[string]uint16{
	"ECDHE-ECDSA-AES128-GCM-SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES128-GCM-SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-AES256-GCM-SHA384":   tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-CHACHA20-POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-AES128-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
	"ECDHE-RSA-AES128-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	"ECDHE-ECDSA-AES256-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	"ECDHE-RSA-AES256-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	"ECDHE-ECDSA-AES128-SHA256":     tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,
	"ECDHE-RSA-AES128-SHA256":       tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,
	"AES128-GCM-SHA256":             tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
	"AES256-GCM-SHA384":             tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
	"AES128-SHA":                    tls.TLS_RSA_WITH_AES_128_CBC_SHA,
	"AES256-SHA":                    tls.TLS_RSA_WITH_AES_256_CBC_SHA,
	"AES128-SHA256":                 tls.TLS_RSA_WITH_AES_128_CBC_SHA256,
}

// cipherGroups are the OpenSSL keywords that select a group of suites.
// The aliases of everything strong (DEFAULT, HIGH, ALL...) select Go's
// own default set, which is what OpenSSL's DEFAULT leaves of Go's suites.
var cipherGroups = map[string]func(id uint16) bool{
	"DEFAULT":             isDefault,
	"ALL":                 isDefault,
	"HIGH":                isDefault,
	"COMPLEMENTOFDEFAULT": func(uint16) bool { return false },
	"ECDHE":               func(id uint16) bool { return strings.Contains(tls.CipherSuiteName(id), "ECDHE") },
	"EECDH":               func(id uint16) bool { return strings.Contains(tls.CipherSuiteName(id), "ECDHE") },
	"kECDHE":              func(id uint16) bool { return strings.Contains(tls.CipherSuiteName(id), "ECDHE") },
	"kRSA":                func(id uint16) bool { return strings.HasPrefix(tls.CipherSuiteName(id), "TLS_RSA_") },
	"RSA":                 func(id uint16) bool { return strings.HasPrefix(tls.CipherSuiteName(id), "TLS_RSA_") },
	"aRSA":                func(id uint16) bool { return strings.Contains(tls.CipherSuiteName(id), "RSA") },
	"aECDSA":              func(id uint16) bool { return strings.Contains(tls.CipherSuiteName(id), "ECDSA") },
	"ECDSA":               func(id uint16) bool { return strings.Contains(tls.CipherSuiteName(id), "ECDSA") },
	"AESGCM":              func(id uint16) bool { return strings.Contains(tls.CipherSuiteName(id), "GCM") },
	"CHACHA20":            func(id uint16) bool { return strings.Contains(tls.CipherSuiteName(id), "CHACHA20") },
	"AES":                 func(id uint16) bool { return strings.Contains(tls.CipherSuiteName(id), "AES") },
	"AES128":              func(id uint16) bool { return strings.Contains(tls.CipherSuiteName(id), "AES_128") },
	"AES256":              func(id uint16) bool { return strings.Contains(tls.CipherSuiteName(id), "AES_256") },
	"SHA1":                func(id uint16) bool { return strings.HasSuffix(tls.CipherSuiteName(id), "_CBC_SHA") },
	"SHA":                 func(id uint16) bool { return strings.HasSuffix(tls.CipherSuiteName(id), "_CBC_SHA") },
	"SHA256":              func(id uint16) bool { return strings.HasSuffix(tls.CipherSuiteName(id), "SHA256") },
	"SHA384":              func(id uint16) bool { return strings.HasSuffix(tls.CipherSuiteName(id), "SHA384") },
}

func isDefault(id uint16) bool {
	for _, s := range tls.CipherSuites() {
		if s.ID == id {
			return true
		}
	}
	return false
}

// ParseCiphers reads an OpenSSL cipher list (tls-ciphers,
// SSL_CTX_set_cipher_list) into the TLS 1.2 suites it selects of those Go
// has: elements separated by ':', ',', ';' or spaces; a name or keyword
// adds, '!' and '-' remove, '+' (a reordering) and '@' directives change
// nothing Go's own ordering keeps; several keywords joined by '+' select
// their intersection. Unknown names are skipped, as OpenSSL skips them;
// an empty result is the caller's error.
func ParseCiphers(list string) []uint16 {
	var out []uint16
	has := map[uint16]bool{}
	all := append(tls.CipherSuites(), tls.InsecureCipherSuites()...)
	for _, elem := range strings.FieldsFunc(list, func(r rune) bool { return r == ':' || r == ',' || r == ';' || r == ' ' }) {
		op := byte(0)
		if elem[0] == '!' || elem[0] == '-' || elem[0] == '+' || elem[0] == '@' {
			op, elem = elem[0], elem[1:]
		}
		if op == '+' || op == '@' || elem == "" {
			continue
		}
		match := selector(elem)
		if match == nil {
			continue
		}
		for _, s := range all {
			if s.SupportedVersions[0] > tls.VersionTLS12 || !match(s.ID) {
				continue
			}
			switch {
			case op == 0 && !has[s.ID]:
				has[s.ID] = true
				out = append(out, s.ID)
			case op != 0 && has[s.ID]:
				delete(has, s.ID)
				for i, id := range out {
					if id == s.ID {
						out = append(out[:i], out[i+1:]...)
						break
					}
				}
			}
		}
	}
	return out
}

// selector is the suites one element selects; nil: none Go has.
func selector(elem string) func(uint16) bool {
	var parts []func(uint16) bool
	for _, word := range strings.Split(elem, "+") {
		if id, ok := openSSLSuites[word]; ok {
			parts = append(parts, func(x uint16) bool { return x == id })
		} else if g, ok := cipherGroups[word]; ok {
			parts = append(parts, g)
		} else {
			return nil
		}
	}
	return func(id uint16) bool {
		for _, p := range parts {
			if !p(id) {
				return false
			}
		}
		return true
	}
}

// goTLS13 are the TLS 1.3 suites crypto/tls always offers.
var goTLS13 = []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}

// coversGoTLS13 reports whether a tls-ciphersuites list allows every
// suite Go would negotiate: Go cannot restrict them, so a narrower list
// cannot be honoured and is refused.
func coversGoTLS13(list string) bool {
	named := map[string]bool{}
	for _, s := range strings.Split(list, ":") {
		named[s] = true
	}
	for _, s := range goTLS13 {
		if !named[s] {
			return false
		}
	}
	return true
}

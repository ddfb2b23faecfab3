package ratelimit

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// StoreOptions are what a store URL cannot carry: TLS files, and a password
// kept out of the URL (and so out of process listings and shell history).
type StoreOptions struct {
	// CAFile is a PEM bundle of the CAs that sign the store's certificate;
	// empty means the system pool. Setting it implies TLS.
	CAFile string
	// CertFile and KeyFile are a client certificate for stores that
	// require one (Redis's tls-auth-clients). Setting them implies TLS.
	CertFile, KeyFile string
	// ServerName is the name the store's certificate must carry when it
	// differs from the URL's host (an address, a tunnel). Implies TLS.
	ServerName string
	// Username and Password replace those of the URL when not empty.
	Username, Password string
}

// Store URL forms, beside a bare "host:port":
//
//	redis://[user:password@]host:port[/db][?dial_timeout=3s&...]
//	rediss://...                       TLS
//	unix:///path/to/redis.sock[?db=1]
//	redis+cluster://host:port?addr=host2:port2&addr=...     (rediss+cluster for TLS)
//	redis+sentinel://[suser:spw@]sentinel:26379?master_name=mymaster&addr=...&password=...
//	redis+ring://host:port?addr=host2:port2                 shards named shard0, shard1, ...
//
// The query parameters are go-redis's (ParseURL, ParseClusterURL,
// ParseFailoverURL): option names in snake case, unknown names an error.
const (
	schemeCluster  = "+cluster"
	schemeSentinel = "+sentinel"
	schemeRing     = "+ring"
)

// Defaults for store clients that NewStoreClient applies when the URL does
// not set them. A go-redis client otherwise ignores context deadlines and
// waits its 3 s ReadTimeout on a stuck store.
//
// go-redis dials a refused connection 5 times, 100ms apart, before it
// answers: past a rate limiter's timeout, so that every outage would read as
// "timeout" and never as its cause. A limiter has its own probes; one dial
// per call is enough.
const (
	storeDialTimeout   = 2 * time.Second
	storeDialerRetries = 1
	// storeMaxRetries retries a command once: enough for a pooled
	// connection the store closed, within the timeout.
	storeMaxRetries = 1
)

// ErrStoreURL is wrapped by every error about a store URL. The message
// never holds the URL's password.
var ErrStoreURL = errors.New("ratelimit: bad store URL")

// NewStoreClient returns a go-redis client for the store named by rawURL
// (see the forms above), with opts applied: a *redis.Client, a
// *redis.ClusterClient (Cluster), a failover *redis.Client (Sentinel) or a
// *redis.Ring. ContextTimeoutEnabled is always set, so the Limiter's timeout
// stops the client itself. It does not dial: Limiter.Check does.
func NewStoreClient(rawURL string, opts StoreOptions) (redis.UniversalClient, error) {
	base, kind, err := splitScheme(rawURL)
	if err != nil {
		return nil, err
	}
	tlsConfig, err := opts.tlsConfig()
	if err != nil {
		return nil, err
	}
	switch kind {
	case "":
		o, err := redis.ParseURL(base)
		if err != nil {
			return nil, urlError(rawURL, err)
		}
		o.Username, o.Password = override(o.Username, opts.Username), override(o.Password, opts.Password)
		o.TLSConfig = mergeTLS(o.TLSConfig, tlsConfig, hostOf(o.Addr))
		o.ContextTimeoutEnabled = true
		storeDefaults(base, &o.DialTimeout, &o.DialerRetries, &o.MaxRetries)
		return redis.NewClient(o), nil
	case schemeCluster, schemeRing:
		o, err := redis.ParseClusterURL(base)
		if err != nil {
			return nil, urlError(rawURL, err)
		}
		o.Username, o.Password = override(o.Username, opts.Username), override(o.Password, opts.Password)
		o.TLSConfig = mergeTLS(o.TLSConfig, tlsConfig, hostOf(o.Addrs[0]))
		o.ContextTimeoutEnabled = true
		storeDefaults(base, &o.DialTimeout, &o.DialerRetries, &o.MaxRetries)
		if kind == schemeCluster {
			return redis.NewClusterClient(o), nil
		}
		shards := map[string]string{}
		for i, addr := range o.Addrs {
			shards["shard"+strconv.Itoa(i)] = addr
		}
		return redis.NewRing(&redis.RingOptions{
			Addrs: shards, Username: o.Username, Password: o.Password, TLSConfig: o.TLSConfig,
			ContextTimeoutEnabled: true, DialTimeout: o.DialTimeout, ReadTimeout: o.ReadTimeout,
			WriteTimeout: o.WriteTimeout, PoolSize: o.PoolSize, MaxRetries: o.MaxRetries,
			ClientName: o.ClientName, Protocol: o.Protocol, DialerRetries: o.DialerRetries,
		}), nil
	default: // schemeSentinel
		o, err := redis.ParseFailoverURL(base)
		if err != nil {
			return nil, urlError(rawURL, err)
		}
		if o.MasterName == "" {
			return nil, fmt.Errorf("%w %s: a Sentinel URL needs master_name", ErrStoreURL, RedactURL(rawURL))
		}
		o.Username, o.Password = override(o.Username, opts.Username), override(o.Password, opts.Password)
		o.TLSConfig = mergeTLS(o.TLSConfig, tlsConfig, "")
		o.ContextTimeoutEnabled = true
		storeDefaults(base, &o.DialTimeout, &o.DialerRetries, &o.MaxRetries)
		return redis.NewFailoverClient(o), nil
	}
}

// storeDefaults sets the store's dial timeout and retries where the URL
// does not give them, for every client kind alike.
func storeDefaults(base string, dialTimeout *time.Duration, dialerRetries, maxRetries *int) {
	if !hasParam(base, "dial_timeout") {
		*dialTimeout = storeDialTimeout
	}
	if !hasParam(base, "dialer_retries") {
		*dialerRetries = storeDialerRetries
	}
	if !hasParam(base, "max_retries") {
		*maxRetries = storeMaxRetries
	}
}

// splitScheme turns "rediss+cluster://..." into "rediss://..." and
// "+cluster", and a bare "host:port" into "redis://host:port".
func splitScheme(rawURL string) (base, kind string, err error) {
	scheme, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		if strings.ContainsAny(rawURL, "@/?") || rawURL == "" {
			return "", "", fmt.Errorf("%w %s: want host:port or redis://host:port", ErrStoreURL, RedactURL(rawURL))
		}
		return "redis://" + rawURL, "", nil
	}
	tls, kind, _ := strings.Cut(scheme, "+")
	if kind != "" {
		kind = "+" + kind
	}
	switch {
	case scheme == "unix" || ((tls == "redis" || tls == "rediss") &&
		(kind == "" || kind == schemeCluster || kind == schemeSentinel || kind == schemeRing)):
		return tls + "://" + rest, kind, nil
	}
	return "", "", fmt.Errorf("%w %s: unknown scheme %q (redis, rediss, unix, or redis+cluster, redis+sentinel, redis+ring)",
		ErrStoreURL, RedactURL(rawURL), scheme)
}

// urlError reports a go-redis parse error without the URL's password: the
// errors of net/url quote the whole URL.
func urlError(rawURL string, err error) error {
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = ue.Err.Error()
	}
	if u, perr := url.Parse(rawURL); perr == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
	}
	return fmt.Errorf("%w %s: %s", ErrStoreURL, RedactURL(rawURL), msg)
}

// RedactURL returns rawURL with its password, and any password or
// sentinel_password parameter, replaced by "xxxxx": for logs.
func RedactURL(rawURL string) string {
	if !strings.Contains(rawURL, "://") {
		if strings.Contains(rawURL, "@") {
			return "xxxxx@" + rawURL[strings.LastIndexByte(rawURL, '@')+1:]
		}
		return rawURL
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		scheme, _, _ := strings.Cut(rawURL, "://")
		return scheme + "://(unparseable, not shown)"
	}
	q := u.Query()
	for _, name := range []string{"password", "sentinel_password"} {
		if q.Has(name) {
			q.Set(name, "xxxxx")
		}
	}
	if len(q) > 0 {
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

func hasParam(rawURL, name string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && u.Query().Get(name) != ""
}

func override(fromURL, given string) string {
	if given != "" {
		return given
	}
	return fromURL
}

func hostOf(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		return strings.Trim(addr[:i], "[]")
	}
	return addr
}

// tlsConfig builds the TLS settings opts ask for, or nil for none.
func (opts StoreOptions) tlsConfig() (*tls.Config, error) {
	if opts.CAFile == "" && opts.CertFile == "" && opts.KeyFile == "" && opts.ServerName == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: opts.ServerName}
	if opts.CAFile != "" {
		pem, err := os.ReadFile(opts.CAFile)
		if err != nil {
			return nil, fmt.Errorf("ratelimit: store CA: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ratelimit: store CA %s: no PEM certificate in it", opts.CAFile)
		}
	}
	if (opts.CertFile == "") != (opts.KeyFile == "") {
		return nil, errors.New("ratelimit: a store client certificate needs both CertFile and KeyFile")
	}
	if opts.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(opts.CertFile, opts.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("ratelimit: store client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// mergeTLS combines the URL's TLS (rediss://) with the options': either
// turns TLS on; the options' CA, certificate and name win.
func mergeTLS(fromURL, given *tls.Config, host string) *tls.Config {
	if given == nil {
		return fromURL
	}
	if given.ServerName == "" {
		if fromURL != nil && fromURL.ServerName != "" {
			given.ServerName = fromURL.ServerName
		} else {
			given.ServerName = host
		}
	}
	return given
}

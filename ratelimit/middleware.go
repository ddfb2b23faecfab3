package ratelimit

import (
	"cmp"
	"context"
	"math"
	"net/http"
	"slices"
	"time"
)

// Allower decides requests; *Limiter and *Local both are Allowers.
type Allower interface {
	AllowN(ctx context.Context, key string, limit Limit, n int) (Result, error)
}

// Rule is one limit a Middleware applies to every request.
type Rule struct {
	// Name keeps the rule's counters apart from other rules on the same
	// identity and names it in RateLimit headers; empty means Limit.String().
	Name  string
	Limit Limit
}

// Middleware limits HTTP requests by identity under one or more rules, such
// as a per-second burst and an hourly quota. Give each route its own
// Middleware for per-route limits. Its Wrap method is a standard
// func(http.Handler) http.Handler, so it plugs into net/http, chi and
// gorilla directly and into echo through echo.WrapMiddleware.
//
// Every response carries the fields Headers selects (by default
// X-RateLimit-Limit, -Remaining and -Reset as a Unix time, of the binding
// rule); a limited request gets 429 and Retry-After, and one refused because
// the store is down under FailClosed gets 503 and Retry-After.
type Middleware struct {
	Limiter Allower
	Rules   []Rule

	// Key returns the identity key of a request, for instance
	// Identity{...}.Key(); "" lets the request through unlimited. Nil
	// means the client address, trusting no proxy (see ClientIP).
	Key func(r *http.Request) string
	// Cost returns what a request costs; nil means 1.
	Cost func(r *http.Request) int
	// Headers selects the rate-limit fields of each response.
	Headers Headers
	// PolicyHeaders adds the IETF fields: Headers.Fields |= IETF.
	PolicyHeaders bool
	// ProblemJSON makes denials application/problem+json (RFC 9457) with
	// the draft's quota-exceeded problem type.
	ProblemJSON bool
	// Now is the clock X-RateLimit-Reset counts from; nil means time.Now.
	// Give it the Limiter's clock when that is not the wall clock.
	Now func() time.Time
	// Denied writes the response to a limited request once the headers are
	// set; nil is WriteDenied.
	Denied func(w http.ResponseWriter, r *http.Request, res Result)
	// Error writes the response when the Limiter returns an error (the
	// request's context ended, an invalid rule); nil writes 500.
	Error func(w http.ResponseWriter, r *http.Request, err error)
}

// Wrap returns next limited by m.
//
// Rules are checked from the shortest period up and checking stops at the
// first rule that denies. Rules are separate store calls, so rules checked
// before a denial have counted the request; going shortest first means a
// request refused by the per-second burst never eats into the hourly quota,
// while one refused by the quota only spends a per-second token that
// refills soon. When the RateLimit fields report every rule (IETF, Draft8),
// the rules after a denial are read at cost 0 for them.
func (m *Middleware) Wrap(next http.Handler) http.Handler {
	rules := slices.Clone(m.Rules)
	for i := range rules {
		if rules[i].Name == "" {
			rules[i].Name = rules[i].Limit.String()
		}
	}
	slices.SortStableFunc(rules, func(a, b Rule) int { return cmp.Compare(a.Limit.Period, b.Limit.Period) })
	headers := m.Headers
	if headers.Fields == 0 {
		headers.Fields = XRateLimit
	}
	if m.PolicyHeaders {
		headers.Fields |= IETF
	}
	reportAll := headers.Fields&(IETF|Draft8) != 0
	now := m.Now
	if now == nil {
		now = time.Now
	}
	keyOf := m.Key
	if keyOf == nil {
		var anyone ClientIP
		keyOf = anyone.Key
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := keyOf(r)
		if key == "" || len(rules) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		cost := 1
		if m.Cost != nil {
			cost = m.Cost(r)
		}
		decisions := make([]Decision, 0, len(rules))
		denied := false
		for _, rule := range rules {
			n := cost
			if denied {
				if !reportAll {
					break
				}
				n = 0
			}
			// The identity is the hash tag, so all rules of one client
			// share a Cluster slot.
			res, err := m.Limiter.AllowN(r.Context(), "{"+key+"}:"+rule.Name, rule.Limit, n)
			if err != nil {
				m.fail(w, r, err)
				return
			}
			if n == 0 {
				// A look, not a request: it must not read as a denial.
				res.Allowed = true
			}
			decisions = append(decisions, Decision{Policy: rule.Name, Limit: rule.Limit, Key: key, Result: res})
			if !res.Allowed {
				denied = true
				if res.Unavailable {
					break
				}
			}
		}
		headers.Set(w.Header(), now(), decisions)
		if !denied {
			next.ServeHTTP(w, r)
			return
		}
		if m.Denied != nil {
			m.Denied(w, r, decisions[Binding(decisions)].Result)
			return
		}
		WriteDenied(w, decisions, m.ProblemJSON)
	})
}

// stricter reports whether a leaves a client less room than b.
func stricter(a, b Result) bool {
	if a.Remaining != b.Remaining {
		return a.Remaining < b.Remaining
	}
	return a.ResetAfter > b.ResetAfter
}

func (m *Middleware) fail(w http.ResponseWriter, r *http.Request, err error) {
	if m.Error != nil {
		m.Error(w, r, err)
		return
	}
	http.Error(w, "rate limiter: "+err.Error(), http.StatusInternalServerError)
}

// seconds rounds d up to whole seconds, as HTTP headers count: a client
// that waits the advertised time must not be refused again.
func seconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64(math.Ceil(d.Seconds()))
}

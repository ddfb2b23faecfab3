package ratelimit

import (
	"cmp"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
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
// Every response carries X-RateLimit-Limit, X-RateLimit-Remaining and
// X-RateLimit-Reset (seconds until the limit is fully reset) of the
// strictest rule; a limited request gets 429 and Retry-After.
type Middleware struct {
	Limiter Allower
	Rules   []Rule

	// Key returns the identity key of a request, for instance
	// Identity{...}.Key(); "" lets the request through unlimited. Nil
	// means the client address, trusting no proxy (see ClientIP).
	Key func(r *http.Request) string
	// Cost returns what a request costs; nil means 1.
	Cost func(r *http.Request) int
	// PolicyHeaders adds the IETF RateLimit-Policy and RateLimit fields
	// (draft-ietf-httpapi-ratelimit-headers) beside the X-RateLimit ones.
	PolicyHeaders bool
	// Denied writes the response to a limited request once the headers are
	// set; nil writes 429 with a JSON body.
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
// refills soon.
func (m *Middleware) Wrap(next http.Handler) http.Handler {
	rules := slices.Clone(m.Rules)
	for i := range rules {
		if rules[i].Name == "" {
			rules[i].Name = rules[i].Limit.String()
		}
	}
	slices.SortStableFunc(rules, func(a, b Rule) int { return cmp.Compare(a.Limit.Period, b.Limit.Period) })
	policy := policyHeader(rules)
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
		var strictest Result
		var strictestRule string
		for i, rule := range rules {
			// The identity is the hash tag, so all rules of one client
			// share a Cluster slot.
			res, err := m.Limiter.AllowN(r.Context(), "{"+key+"}:"+rule.Name, rule.Limit, cost)
			if err != nil {
				m.fail(w, r, err)
				return
			}
			if i == 0 || !res.Allowed || stricter(res, strictest) {
				strictest, strictestRule = res, rule.Name
			}
			if !res.Allowed {
				break
			}
		}
		h := w.Header()
		h.Set("X-RateLimit-Limit", strconv.Itoa(strictest.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(strictest.Remaining))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(seconds(strictest.ResetAfter), 10))
		if m.PolicyHeaders {
			h.Set("RateLimit-Policy", policy)
			h.Set("RateLimit", strconv.Quote(strictestRule)+";r="+strconv.Itoa(strictest.Remaining)+";t="+strconv.FormatInt(seconds(strictest.ResetAfter), 10))
		}
		if strictest.Allowed {
			next.ServeHTTP(w, r)
			return
		}
		if strictest.RetryAfter >= 0 {
			h.Set("Retry-After", strconv.FormatInt(max(1, seconds(strictest.RetryAfter)), 10))
		}
		if m.Denied != nil {
			m.Denied(w, r, strictest)
			return
		}
		deny(w, strictest)
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

// deny writes the default 429 answer.
func deny(w http.ResponseWriter, res Result) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	body := struct {
		Error      string `json:"error"`
		RetryAfter int64  `json:"retry_after_seconds"`
	}{"rate limit exceeded", -1}
	if res.RetryAfter >= 0 {
		body.RetryAfter = max(1, seconds(res.RetryAfter))
	}
	json.NewEncoder(w).Encode(body)
}

// policyHeader formats the RateLimit-Policy field: one item per rule, with
// its quota q and window w in seconds.
func policyHeader(rules []Rule) string {
	items := make([]string, len(rules))
	for i, rule := range rules {
		items[i] = strconv.Quote(rule.Name) + ";q=" + strconv.Itoa(rule.Limit.Rate) + ";w=" + strconv.FormatInt(seconds(rule.Limit.Period), 10)
	}
	return strings.Join(items, ", ")
}

// seconds rounds d up to whole seconds, as HTTP headers count: a client
// that waits the advertised time must not be refused again.
func seconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64(math.Ceil(d.Seconds()))
}

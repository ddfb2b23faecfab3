package ratelimit

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// HeaderFields selects the families of rate-limit fields a response carries;
// combine X-RateLimit with at most one of the RateLimit ones.
type HeaderFields int

const (
	// XRateLimit is X-RateLimit-Limit, -Remaining and -Reset of the binding
	// policy, as GitHub, express-rate-limit (legacyHeaders) and
	// ulule/limiter send them.
	XRateLimit HeaderFields = 1 << iota
	// IETF is RateLimit-Policy and RateLimit of
	// draft-ietf-httpapi-ratelimit-headers-11, one list member per policy:
	//
	//	RateLimit-Policy: "burst";q=10;w=1, "hour";q=1000;w=3600
	//	RateLimit: "burst";r=9;t=1, "hour";r=999;t=3600
	IETF
	// Draft6 is express-rate-limit's standardHeaders: 'draft-6':
	// RateLimit-Policy: 100;w=60, RateLimit-Limit, RateLimit-Remaining and
	// RateLimit-Reset (seconds), of the binding policy.
	Draft6
	// Draft7 is express-rate-limit's 'draft-7': RateLimit-Policy: 100;w=60
	// and RateLimit: limit=100, remaining=99, reset=60.
	Draft7
	// Draft8 is express-rate-limit's 'draft-8', one field line per policy:
	// RateLimit-Policy: "name"; q=100; w=60; pk=:...: and
	// RateLimit: "name"; r=99; t=60.
	Draft8
)

// ResetStyle says what X-RateLimit-Reset counts.
type ResetStyle int

const (
	// ResetUnix, the default, sends the Unix time in seconds at which the
	// limit is full again, as GitHub, express-rate-limit and ulule/limiter
	// do.
	ResetUnix ResetStyle = iota
	// ResetSeconds sends the seconds from now until then.
	ResetSeconds
)

// Headers says which rate-limit fields to write. The zero value writes the
// X-RateLimit fields with a Unix-time Reset.
type Headers struct {
	Fields HeaderFields
	Reset  ResetStyle
	// PartitionKey adds pk, a digest of the client's key, to the IETF
	// fields (Draft8 always has it, as express-rate-limit sends it).
	PartitionKey bool
}

// Decision is one policy's answer to a request, as headers report it.
type Decision struct {
	// Policy names the policy in the RateLimit fields and in
	// violated-policies; it is sent as a structured-field string.
	Policy string
	Limit  Limit
	// Key is the client's counter key; only its digest is sent (pk).
	Key    string
	Result Result
}

// Binding returns the index of the decision that binds: the first denial,
// else the one leaving least room (fewest remaining, then longest reset).
// It returns -1 for no decisions.
func Binding(ds []Decision) int {
	best := -1
	for i, d := range ds {
		if !d.Result.Allowed {
			return i
		}
		if best < 0 || stricter(d.Result, ds[best].Result) {
			best = i
		}
	}
	return best
}

// Set writes the fields hs selects for ds into h, with Retry-After when the
// binding decision is a denial. now is the time X-RateLimit-Reset counts
// from in ResetUnix.
func (hs Headers) Set(h http.Header, now time.Time, ds []Decision) {
	b := Binding(ds)
	if b < 0 {
		return
	}
	bind := ds[b]
	retryAfter := int64(-1)
	if !bind.Result.Allowed && bind.Result.RetryAfter >= 0 {
		retryAfter = max(1, seconds(bind.Result.RetryAfter))
		h.Set("Retry-After", strconv.FormatInt(retryAfter, 10))
	}
	// reset is when the binding policy is full again, never sooner than a
	// client that obeys Retry-After may come back.
	reset := func(d Decision) int64 {
		r := d.Result
		s := seconds(r.ResetAfter)
		if !r.Allowed && r.RetryAfter >= 0 {
			s = max(s, seconds(r.RetryAfter), retryAfter)
		}
		return s
	}
	fields := hs.Fields
	if fields == 0 {
		fields = XRateLimit
	}
	if fields&XRateLimit != 0 {
		h.Set("X-RateLimit-Limit", strconv.Itoa(bind.Result.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(bind.Result.Remaining))
		if hs.Reset == ResetSeconds {
			h.Set("X-RateLimit-Reset", strconv.FormatInt(reset(bind), 10))
		} else {
			// Rounded up, as the relative form is: a client waiting until
			// then finds the limit full.
			at := now.Add(time.Duration(reset(bind)) * time.Second)
			unix := at.Unix()
			if at.Nanosecond() > 0 {
				unix++
			}
			h.Set("X-RateLimit-Reset", strconv.FormatInt(unix, 10))
		}
	}
	window := func(d Decision) string { return strconv.FormatInt(seconds(d.Limit.Period), 10) }
	switch {
	case fields&IETF != 0:
		policies := make([]string, len(ds))
		states := make([]string, len(ds))
		for i, d := range ds {
			pk := ""
			if hs.PartitionKey && d.Key != "" {
				pk = ";pk=:" + partitionKey(d.Key) + ":"
			}
			name := sfString(d.Policy)
			// q is the policy's quota per window, Rate per Period, even
			// where a burst lets more through at once (GCRA, TokenBucket).
			policies[i] = name + ";q=" + strconv.Itoa(d.Limit.Rate) + ";w=" + window(d) + pk
			states[i] = name + ";r=" + strconv.Itoa(d.Result.Remaining) + ";t=" + strconv.FormatInt(reset(d), 10) + pk
		}
		h.Set("RateLimit-Policy", strings.Join(policies, ", "))
		h.Set("RateLimit", strings.Join(states, ", "))
	case fields&Draft6 != 0:
		h.Set("RateLimit-Policy", strconv.Itoa(bind.Result.Limit)+";w="+window(bind))
		h.Set("RateLimit-Limit", strconv.Itoa(bind.Result.Limit))
		h.Set("RateLimit-Remaining", strconv.Itoa(bind.Result.Remaining))
		// express-rate-limit leaves RateLimit-Reset out when it is 0.
		if s := reset(bind); s > 0 {
			h.Set("RateLimit-Reset", strconv.FormatInt(s, 10))
		}
	case fields&Draft7 != 0:
		h.Set("RateLimit-Policy", strconv.Itoa(bind.Result.Limit)+";w="+window(bind))
		h.Set("RateLimit", "limit="+strconv.Itoa(bind.Result.Limit)+", remaining="+strconv.Itoa(bind.Result.Remaining)+
			", reset="+strconv.FormatInt(reset(bind), 10))
	case fields&Draft8 != 0:
		for _, d := range ds {
			name := sfString(d.Policy)
			h.Add("RateLimit-Policy", name+"; q="+strconv.Itoa(d.Result.Limit)+"; w="+window(d)+"; pk=:"+partitionKey(d.Key)+":")
			h.Add("RateLimit", name+"; r="+strconv.Itoa(d.Result.Remaining)+"; t="+strconv.FormatInt(reset(d), 10))
		}
	}
}

// partitionKey is express-rate-limit's draft-8 pk: the first 12 hex digits
// of the key's SHA-256, base64-encoded, so that the field identifies a
// client without showing its address or API key.
func partitionKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return base64.StdEncoding.EncodeToString([]byte(hex.EncodeToString(sum[:])[:12]))
}

// sfString serializes s as a structured-field String (RFC 8941 3.3.3):
// quoted, with \ and " escaped. A String holds printable ASCII only; any
// other byte becomes '?', so that a policy name can never make the whole
// field invalid (a parser must then drop it).
func sfString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c > 0x7e:
			b.WriteByte('?')
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Problem types of the denial bodies (RFC 9457).
const (
	// QuotaExceeded is the draft's problem type for a request over quota.
	QuotaExceeded = "https://iana.org/assignments/http-problem-types#quota-exceeded"
	quotaTitle    = "Request cannot be satisfied as assigned quota has been exceeded"
)

// WriteDenied writes the answer to a request the binding decision of ds
// denies, once Set has written the headers: 503 when the store could not be
// asked (Result.Unavailable), else 429. problem selects an
// application/problem+json body (the draft's quota-exceeded type, with
// violated-policies); otherwise the body is a small JSON object.
func WriteDenied(w http.ResponseWriter, ds []Decision, problem bool) {
	b := Binding(ds)
	if b < 0 {
		return
	}
	res := ds[b].Result
	retry := int64(-1)
	if res.RetryAfter >= 0 {
		retry = max(1, seconds(res.RetryAfter))
	}
	status := http.StatusTooManyRequests
	if res.Unavailable {
		status = http.StatusServiceUnavailable
	}
	var body any
	switch {
	case problem && res.Unavailable:
		w.Header().Set("Content-Type", "application/problem+json")
		body = struct {
			Type   string `json:"type"`
			Title  string `json:"title"`
			Status int    `json:"status"`
			Detail string `json:"detail"`
		}{"about:blank", "Service Unavailable", status, "the rate limiter's store does not answer"}
	case problem:
		w.Header().Set("Content-Type", "application/problem+json")
		var violated []string
		for _, d := range ds {
			if !d.Result.Allowed {
				violated = append(violated, d.Policy)
			}
		}
		body = struct {
			Type     string   `json:"type"`
			Title    string   `json:"title"`
			Status   int      `json:"status"`
			Violated []string `json:"violated-policies"`
		}{QuotaExceeded, quotaTitle, status, violated}
	default:
		w.Header().Set("Content-Type", "application/json")
		msg := "rate limit exceeded"
		if res.Unavailable {
			msg = "rate limiter unavailable"
		}
		body = struct {
			Error      string `json:"error"`
			RetryAfter int64  `json:"retry_after_seconds"`
		}{msg, retry}
	}
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

package server

// CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO, as Redis 7.0's
// clientCommand (networking.c); the tracking itself is tracking.go.
var trackingHandlers = map[string]Handler{
	"client|tracking":     cmdClientTracking,
	"client|caching":      cmdClientCaching,
	"client|getredir":     cmdClientGetRedir,
	"client|trackinginfo": cmdClientTrackingInfo,
}

const (
	errTrackingRedirectTwice  = "ERR A client can only redirect to a single other client"
	errTrackingNoRedirect     = "ERR The client ID you want redirect to does not exist"
	errTrackingPrefixNoBcast  = "ERR PREFIX option requires BCAST mode to be enabled"
	errTrackingSwitchBcast    = "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode."
	errTrackingBcastOpt       = "ERR OPTIN and OPTOUT are not compatible with BCAST"
	errTrackingOptinOptout    = "ERR You can't specify both OPTIN mode and OPTOUT mode"
	errTrackingSwitchOpt      = "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode."
	errCachingNotTracking     = "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled"
	errCachingYesNeedsOptin   = "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode."
	errCachingNoNeedsOptout   = "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."
	prefixOverlapExistingText = "ERR Prefix '%s' overlaps with an existing prefix '%s'. Prefixes for a single client must not overlap."
	prefixOverlapGivenText    = "ERR Prefix '%s' overlaps with another provided prefix '%s'. Prefixes for a single client must not overlap."
)

// cmdClientTracking is CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...]
// [BCAST] [OPTIN] [OPTOUT] [NOLOOP]. Options are parsed first (REDIRECT's
// id must name a connected client then), ON|OFF checked after them, and
// the option checks made in Redis's order.
func cmdClientTracking(c *Client, args [][]byte) {
	var redirect int64
	var redir *Client
	var opt clientTracking
	var prefixes [][]byte
	for j := 3; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case eqFold(args[j], "redirect") && more > 0:
			j++
			if redirect != 0 {
				c.w.Error(errTrackingRedirectTwice)
				return
			}
			id, ok := intArg(c, args[j])
			if !ok {
				return
			}
			redirect = id
			if redir = c.srv.clientByID(id); redir == nil {
				c.w.Error(errTrackingNoRedirect)
				return
			}
		case eqFold(args[j], "bcast"):
			opt.bcast = true
		case eqFold(args[j], "optin"):
			opt.optin = true
		case eqFold(args[j], "optout"):
			opt.optout = true
		case eqFold(args[j], "noloop"):
			opt.noloop = true
		case eqFold(args[j], "prefix") && more > 0:
			j++
			prefixes = append(prefixes, args[j])
		default:
			c.w.Error(errSyntax)
			return
		}
	}
	switch {
	case eqFold(args[2], "on"):
	case eqFold(args[2], "off"):
		c.srv.disableTracking(c)
		c.w.Status("OK")
		return
	default:
		c.w.Error(errSyntax)
		return
	}
	t := c.tracking
	on := c.tracked()
	switch {
	case !opt.bcast && len(prefixes) > 0:
		c.w.Error(errTrackingPrefixNoBcast)
		return
	case on && t.bcast != opt.bcast:
		c.w.Error(errTrackingSwitchBcast)
		return
	case opt.bcast && (opt.optin || opt.optout):
		c.w.Error(errTrackingBcastOpt)
		return
	case opt.optin && opt.optout:
		c.w.Error(errTrackingOptinOptout)
		return
	case on && (opt.optin && t.optout || opt.optout && t.optin):
		c.w.Error(errTrackingSwitchOpt)
		return
	}
	if opt.bcast && !prefixesAllowed(c, prefixes) {
		return
	}
	c.srv.enableTracking(c, redirect, redir, opt, prefixes)
	c.w.Status("OK")
}

// prefixesAllowed is checkPrefixCollisionsOrReply: no prefix may overlap
// one the client has or another given. Redis 7.0 returns the index of the
// prefix that overlaps a later one given, so an overlap found for any but
// the first is answered with the error and then, tracking turned on
// anyway, with OK: two replies, kept here byte for byte.
func prefixesAllowed(c *Client, prefixes [][]byte) bool {
	var existing []string
	if c.tracking != nil {
		existing = c.tracking.prefixes
	}
	for i, p := range prefixes {
		for _, e := range existing {
			if prefixOverlap(e, string(p)) {
				c.errorf(prefixOverlapExistingText, sanitizeError(string(p)), sanitizeError(e))
				return false
			}
		}
		for _, q := range prefixes[i+1:] {
			if prefixOverlap(string(p), string(q)) {
				c.errorf(prefixOverlapGivenText, sanitizeError(string(p)), sanitizeError(string(q)))
				return i != 0
			}
		}
	}
	return true
}

// cmdClientCaching is CLIENT CACHING YES|NO, for the next command (or
// transaction) of an OPTIN or OPTOUT client.
func cmdClientCaching(c *Client, args [][]byte) {
	if !c.tracked() {
		c.w.Error(errCachingNotTracking)
		return
	}
	t := c.tracking
	switch {
	case eqFold(args[2], "yes"):
		if !t.optin {
			c.w.Error(errCachingYesNeedsOptin)
			return
		}
	case eqFold(args[2], "no"):
		if !t.optout {
			c.w.Error(errCachingNoNeedsOptout)
			return
		}
	default:
		c.w.Error(errSyntax)
		return
	}
	t.caching = true
	c.w.Status("OK")
}

func cmdClientGetRedir(c *Client, args [][]byte) { c.w.Int(c.trackingRedirect()) }

// cmdClientTrackingInfo is CLIENT TRACKINGINFO: the flags (a set in
// RESP3), the redirect and the BCAST prefixes.
func cmdClientTrackingInfo(c *Client, args [][]byte) {
	t := c.tracking
	if t == nil {
		t = &clientTracking{}
	}
	flags := []string{"off"}
	if t.on {
		flags[0] = "on"
	}
	if t.bcast {
		flags = append(flags, "bcast")
	}
	if t.optin {
		flags = append(flags, "optin")
		if t.caching {
			flags = append(flags, "caching-yes")
		}
	}
	if t.optout {
		flags = append(flags, "optout")
		if t.caching {
			flags = append(flags, "caching-no")
		}
	}
	if t.noloop {
		flags = append(flags, "noloop")
	}
	if t.brokenRedir {
		flags = append(flags, "broken_redirect")
	}
	c.w.Map(3)
	c.w.BulkString("flags")
	c.w.Set(len(flags))
	for _, f := range flags {
		c.w.BulkString(f)
	}
	c.w.BulkString("redirect")
	c.w.Int(c.trackingRedirect())
	c.w.BulkString("prefixes")
	c.w.Array(len(t.prefixes))
	for _, p := range t.prefixes {
		c.w.BulkString(p)
	}
}

package ratelimit

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// StoreInfo is what Check found.
type StoreInfo struct {
	// Version is the store's redis_version from INFO server ("7.0.15");
	// empty when the store's ACL user may not run INFO.
	Version string
	// Mode is its redis_mode: "standalone", "cluster" or "sentinel"; empty
	// as Version is.
	Mode string
	// Native is whether GCRA runs as the store's CL.THROTTLE.
	Native bool
	// Latency is the round trip of one decision, cold: dial and script load
	// included.
	Latency time.Duration
}

// Check dials the store and makes one decision of cost 0 on a key of its
// own, so that a start-up learns at once whether the store is there, lets
// it in (NOAUTH, WRONGPASS, NOPERM) and runs the algorithm's script, and
// later requests find a connection and the script loaded. Its error keeps
// the store's own, so that Cause names it. A success makes the Limiter
// healthy; a failure does not change its state.
func (l *Limiter) Check(ctx context.Context) (StoreInfo, error) {
	var info StoreInfo
	if l.coldTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, max(l.coldTimeout, l.timeout))
		defer cancel()
	}
	start := time.Now()
	// INFO is @dangerous in Redis's ACL categories, so a least-privilege
	// limiter user may not run it: NOPERM here leaves Version and Mode
	// empty (the connection did log in), and the decision below is the check.
	text, err := l.rdb.Info(ctx, "server").Result()
	if err != nil && !strings.HasPrefix(err.Error(), "NOPERM") {
		return info, fmt.Errorf("ratelimit: store check: INFO: %w", err)
	}
	for line := range strings.SplitSeq(text, "\n") {
		name, value, _ := strings.Cut(strings.TrimSpace(line), ":")
		switch name {
		case "redis_version":
			info.Version = value
		case "redis_mode":
			info.Mode = value
		}
	}
	if _, err := l.eval(ctx, "ratelimit:check", PerSecond(1), 0); err != nil {
		return info, fmt.Errorf("ratelimit: store check: running the %s script: %w", l.algo, err)
	}
	info.Latency = time.Since(start)
	info.Native = l.Native(ctx)
	l.storeAnswered()
	return info, nil
}

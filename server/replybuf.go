package server

import (
	"sync/atomic"
	"time"

	"github.com/floodgate/floodgate/internal/jemalloc"
)

// replyBufStats is Redis 7.0's accounting of a client's static reply
// buffer (c->buf), for CLIENT LIST's rbs (its size), rbp (the most it held
// since the last peak reset) and obl (what it holds), and INFO's
// reply_buffer_shrinks/expands. floodgate's output is 16 KB blocks
// whatever these say; the figures follow Redis's rules so that a client
// library or an operator reading them sees what Redis would show: 16 KB
// and a peak of 16 KB for a new client, shrunk by the clients cron once an
// idle client's peak, reset every 5 s, is under half the size, and grown
// back when a peak fills it (clientsCronResizeOutputBuffer).
type replyBufStats struct {
	size, peak atomic.Int64 // read by CLIENT LIST, raised by the transport
	// peakReset is when the peak was last reset, in unix milliseconds;
	// the clients cron's, under the execution lock.
	peakReset int64
}

const (
	replyBufMax      = 16 << 10 // PROTO_REPLY_CHUNK_BYTES
	replyBufMin      = 1 << 10  // PROTO_REPLY_MIN_BYTES
	replyBufPeakTime = 5000     // REPLY_BUFFER_DEFAULT_PEAK_RESET_TIME, ms (DEBUG REPLYBUFFER PEAK-RESET-TIME changes it)
)

func (r *replyBufStats) init(now time.Time) {
	r.size.Store(replyBufMax)
	r.peak.Store(replyBufMax) // createClient: buf_peak = buf_usable_size
	// createClient sets buf_peak_last_reset_time to server.unixtime, in
	// seconds, which the cron compares with milliseconds: a new client's
	// peak is reset at the cron's first visit, so an idle client is down
	// to 1 KB within two visits (a few hundred ms), not after 5 s.
	r.peakReset = now.Unix()
}

// held is what the static buffer would hold with pending bytes of replies
// not yet written: Redis fills it first and puts the rest in the list.
func (r *replyBufStats) held(pending int) int64 { return min(int64(pending), r.size.Load()) }

// written notes the pending bytes about to be written to the socket, the
// most the buffer held since the last write.
func (r *replyBufStats) written(pending int) {
	b := r.held(pending)
	for {
		p := r.peak.Load()
		if b <= p || r.peak.CompareAndSwap(p, b) {
			return
		}
	}
}

// cron is clientsCronResizeOutputBuffer for one client: it returns +1 for
// a shrink, -1 for an expand, 0 otherwise. The buffer of a client between
// events holds nothing (its replies went out), so the reset peak is 0.
// The peak is reset every peakReset ms (never when negative).
func (r *replyBufStats) cron(nowMs, peakReset int64) int {
	size, peak := r.size.Load(), r.peak.Load()
	var newSize int64
	resized := 0
	switch {
	case size/2 >= replyBufMin && peak < size/2:
		newSize, resized = max(replyBufMin, peak+1), 1
	case size*2 < replyBufMax*2 && peak == size:
		newSize, resized = min(replyBufMax, size*2), -1
	}
	if peakReset >= 0 && nowMs-r.peakReset >= peakReset {
		r.peak.Store(0)
		r.peakReset = nowMs
	}
	if newSize > 0 {
		r.size.Store(jemallocUsable(newSize))
	}
	return resized
}

// jemallocUsable is the usable size jemalloc (Redis's allocator) gives a
// request of n bytes, for 1 KB <= n <= 16 KB: four size classes per
// doubling (1024, 1280, 1536, 1792, 2048, 2560, ...).
func jemallocUsable(n int64) int64 {
	return int64(jemalloc.Size(int(max(n, replyBufMin))))
}

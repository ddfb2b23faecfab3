package server

import "testing"

// TestReplyBufCron follows clientsCronResizeOutputBuffer's steps: the size
// shrinks to the peak's jemalloc size class and doubles back while the
// peak fills it.
func TestReplyBufCron(t *testing.T) {
	var r replyBufStats
	r.size.Store(replyBufMax)
	r.peak.Store(1500)
	r.peakReset = 1 << 62 // no reset
	steps := []struct {
		peak     int64
		resized  int
		wantSize int64
	}{
		{1500, 1, 1536}, // max(1024, 1501) in jemalloc's class
		{1536, -1, 3072},
		{3072, -1, 6144},
		{5000, 0, 6144}, // neither under half nor full
		{6144, -1, 12288},
		{12288, -1, 16384}, // capped at PROTO_REPLY_CHUNK_BYTES
		{16384, 0, 16384},
		{0, 1, 1024},
	}
	for i, s := range steps {
		r.peak.Store(s.peak)
		if got := r.cron(0, replyBufPeakTime); got != s.resized || r.size.Load() != s.wantSize {
			t.Errorf("step %d: resized %d size %d, want %d %d", i, got, r.size.Load(), s.resized, s.wantSize)
		}
	}
}

// TestReplyBufPeakResetTime: DEBUG REPLYBUFFER PEAK-RESET-TIME's period
// resets the peak once that much time has passed; a negative one
// (NEVER) keeps it, so a busy client's buffer never shrinks.
func TestReplyBufPeakResetTime(t *testing.T) {
	for _, tc := range []struct {
		period, now int64
		wantPeak    int64
	}{
		{100, 99, replyBufMax}, {100, 100, 0}, {-1, 1 << 40, replyBufMax}, {0, 0, 0},
	} {
		var r replyBufStats
		r.size.Store(replyBufMax)
		r.peak.Store(replyBufMax)
		r.cron(tc.now, tc.period)
		if got := r.peak.Load(); got != tc.wantPeak {
			t.Errorf("period %d at %d ms: peak %d, want %d", tc.period, tc.now, got, tc.wantPeak)
		}
	}
}

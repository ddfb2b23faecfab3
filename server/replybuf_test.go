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
		if got := r.cron(0); got != s.resized || r.size.Load() != s.wantSize {
			t.Errorf("step %d: resized %d size %d, want %d %d", i, got, r.size.Load(), s.resized, s.wantSize)
		}
	}
}

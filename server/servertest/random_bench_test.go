package servertest_test

import (
	"strconv"
	"testing"

	"github.com/floodgate/floodgate/server/servertest"
)

// The random commands through Call: what drawing from the server's own
// generator (Seed) costs against Go's global one. cpu-ns/op as in
// BenchmarkStartClose.
func BenchmarkRandomPicks(b *testing.B) {
	s := servertest.RunT(b)
	for i := range 1000 {
		n := strconv.Itoa(i)
		s.SAdd("s", "m"+n)
		s.HSet("h", "f"+n, n)
		s.ZAdd("z", float64(i), "m"+n)
		s.Set("k"+n, n)
	}
	for _, cmd := range [][]string{
		{"srandmember", "s"},
		{"srandmember", "s", "10"},
		{"srandmember", "s", "-10"},
		{"hrandfield", "h", "10"},
		{"zrandmember", "z", "-10"},
		{"randomkey"},
		{"spop", "s"}, // then sadd back, so the set keeps its size
	} {
		b.Run(cmd[0]+"/"+strconv.Itoa(len(cmd)), func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				reply, err := s.Call(0, cmd...)
				if err != nil {
					b.Fatal(err)
				}
				if cmd[0] == "spop" {
					s.SAdd("s", reply.(string))
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

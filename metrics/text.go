package metrics

import (
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// exposition writes samples straight in the Prometheus text format (0.0.4),
// grouped by family. Building a client_golang const metric per series and
// letting the registry gather, check and sort them was 9-15 ms of CPU and
// 39,000 allocations per scrape with the limiter's prefix table full
// (BenchmarkScrape); appending the lines is a tenth of that, and the
// buffers are kept for the next scrape. The registry still serves the Go
// runtime's and the process's metrics (Handler).
type exposition struct {
	fams map[string]*family
	list []*family // in first-use order; sorted by name when written

	// Reused from scrape to scrape by collect.
	totals    map[string]cmdTotals
	quantiles []quantile
}

type family struct {
	name, typ string
	body      []byte
	used      bool // has a sample in this scrape
}

func newExposition() *exposition { return &exposition{fams: map[string]*family{}} }

// reset empties every family but keeps its buffer.
func (x *exposition) reset() {
	for _, f := range x.list {
		f.body, f.used = f.body[:0], false
	}
}

// family returns name's family, typed on its first use; a name always
// has the same type and label names.
func (x *exposition) family(name, typ string) *family {
	f, ok := x.fams[name]
	if !ok {
		f = &family{name: name, typ: typ}
		x.fams[name] = f
		x.list = append(x.list, f)
	}
	f.used = true
	return f
}

// line appends one sample: name+suffix{labels="values",extra} v.
// extraLabel/extraValue are a summary's quantile or a histogram's le.
func (f *family) line(suffix string, labels, values []string, extraLabel, extraValue string, v float64) {
	b := append(f.body, f.name...)
	b = append(b, suffix...)
	if len(labels) > 0 || extraLabel != "" {
		b = append(b, '{')
		for i, l := range labels {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendLabel(b, l, values[i])
		}
		if extraLabel != "" {
			if len(labels) > 0 {
				b = append(b, ',')
			}
			b = appendLabel(b, extraLabel, extraValue)
		}
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = appendFloat(b, v)
	f.body = append(b, '\n')
}

// sample is a gauge's or a counter's one value.
func (x *exposition) sample(name, typ string, v float64, labels []string, values ...string) {
	if len(values) != len(labels) {
		return
	}
	x.family(name, typ).line("", labels, values, "", "", v)
}

func (x *exposition) gauge(name string, v float64, labels []string, values ...string) {
	x.sample(name, "gauge", v, labels, values...)
}

func (x *exposition) counter(name string, v float64, labels []string, values ...string) {
	x.sample(name, "counter", v, labels, values...)
}

// quantile is one of a summary's.
type quantile struct{ q, v float64 }

// summary writes the quantiles (in ascending order, as the registry sorts
// them), _sum and _count.
func (x *exposition) summary(name string, count uint64, sum float64, qs []quantile, labels []string, values ...string) {
	f := x.family(name, "summary")
	sort.Slice(qs, func(i, j int) bool { return qs[i].q < qs[j].q })
	var num []byte
	for _, q := range qs {
		num = appendFloat(num[:0], q.q)
		f.line("", labels, values, "quantile", string(num), q.v)
	}
	f.line("_sum", labels, values, "", "", sum)
	f.line("_count", labels, values, "", "", float64(count))
}

// histogram writes h's buckets at bounds (ascending), +Inf, _sum and
// _count.
func (x *exposition) histogram(name string, h *Histogram, bounds []float64, labels []string, values ...string) {
	f := x.family(name, "histogram")
	var num []byte
	for _, le := range bounds {
		num = appendFloat(num[:0], le)
		f.line("_bucket", labels, values, "le", string(num), float64(h.Buckets[le]))
	}
	f.line("_bucket", labels, values, "le", "+Inf", float64(h.Count))
	f.line("_sum", labels, values, "", "", h.Sum)
	f.line("_count", labels, values, "", "", float64(h.Count))
}

// writeTo appends the families that have samples, sorted by name, each
// with its HELP and TYPE lines.
func (x *exposition) writeTo(buf *bytes.Buffer) {
	sort.Slice(x.list, func(i, j int) bool { return x.list[i].name < x.list[j].name })
	for _, f := range x.list {
		if !f.used {
			continue
		}
		buf.WriteString("# HELP ")
		buf.WriteString(f.name)
		buf.WriteByte(' ')
		buf.Write(appendEscaped(buf.AvailableBuffer(), helpText(f.name), false))
		buf.WriteString("\n# TYPE ")
		buf.WriteString(f.name)
		buf.WriteByte(' ')
		buf.WriteString(f.typ)
		buf.WriteByte('\n')
		buf.Write(f.body)
	}
}

// appendLabel appends name="value", the value escaped as the text format
// wants and made valid UTF-8 (the format allows nothing else; a prefix or
// an error code may hold any bytes).
func appendLabel(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, '=', '"')
	if !utf8.ValidString(value) {
		value = strings.ToValidUTF8(value, "\uFFFD")
	}
	return append(appendEscaped(b, value, true), '"')
}

// appendEscaped escapes backslashes and newlines, as HELP texts and label
// values have them, and double quotes too in a label value.
func appendEscaped(b []byte, s string, quotes bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '"' && quotes:
			b = append(b, '\\', '"')
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendFloat formats v as the text format's encoder does.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case v == 1:
		return append(b, '1')
	case v == 0:
		return append(b, '0')
	case v == -1:
		return append(b, '-', '1')
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, +1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

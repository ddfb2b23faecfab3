package metrics

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// collector turns one Snapshot per scrape into metrics. It describes
// nothing in advance (an unchecked collector): which series exist depends
// on what the server has seen, as with redis_exporter.
type collector struct {
	src Source
	// descs holds each metric's description, made at its first scrape:
	// made anew for every series, they were a sixth of a scrape's time
	// (BenchmarkScrape). A name always has the same label names.
	descs sync.Map // name → *prometheus.Desc
}

func (*collector) Describe(chan<- *prometheus.Desc) {}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	snap := c.src.Snapshot()
	e := emitter{ch: ch, descs: &c.descs}
	e.info(snap)
	e.config(snap.Config)
	e.slowlog(snap.Slowlog)
	for _, ev := range snap.Latency {
		e.gauge("redis_latency_spike_last", float64(ev.Time), []string{"event_name"}, ev.Name)
		e.gauge("redis_latency_spike_duration_seconds", float64(ev.LatestMsec)/1e3, []string{"event_name"}, ev.Name)
	}
	e.gauge("redis_up", 1, nil)
	e.floodgate(snap)
}

// emitter sends const metrics, with descriptions made on the way (a
// scrape's few hundred, cheap next to the INFO text they come from).
type emitter struct {
	ch    chan<- prometheus.Metric
	descs *sync.Map
}

// desc returns name's description, with these label names.
func (e emitter) desc(name string, labels []string) *prometheus.Desc {
	if d, ok := e.descs.Load(name); ok {
		return d.(*prometheus.Desc)
	}
	d, _ := e.descs.LoadOrStore(name, prometheus.NewDesc(name, helpText(name), labels, nil))
	return d.(*prometheus.Desc)
}

func (e emitter) emit(name string, t prometheus.ValueType, v float64, labels []string, values ...string) {
	if m, err := prometheus.NewConstMetric(e.desc(name, labels), t, v, values...); err == nil {
		e.ch <- m
	}
}

func (e emitter) gauge(name string, v float64, labels []string, values ...string) {
	e.emit(name, prometheus.GaugeValue, v, labels, values...)
}

func (e emitter) counter(name string, v float64, labels []string, values ...string) {
	e.emit(name, prometheus.CounterValue, v, labels, values...)
}

func helpText(name string) string {
	if h, ok := help[strings.TrimPrefix(name, "redis_")]; ok {
		return h
	}
	if h, ok := floodgateHelp[name]; ok {
		return h
	}
	return strings.TrimPrefix(name, "redis_") + " metric"
}

var (
	reMasterHost       = regexp.MustCompile(`^master(_[0-9]+)?_host`)
	reMasterPort       = regexp.MustCompile(`^master(_[0-9]+)?_port`)
	reMasterLinkStatus = regexp.MustCompile(`^master(_[0-9]+)?_link_status`)
	reMasterDirect     = regexp.MustCompile(`^(master(_[0-9]+)?_(last_io_seconds_ago|sync_in_progress)|slave_repl_offset)`)
	reSlave            = regexp.MustCompile(`^slave\d+`)
	reMetricName       = regexp.MustCompile(`[^a-zA-Z0-9_]`)
)

var (
	labelsCmd    = []string{"cmd"}
	labelsMaster = []string{"master_host", "master_port"}
	labelsSlave  = []string{"slave_ip", "slave_port", "slave_state"}
	labelsDB     = []string{"db"}
)

// info reads INFO as redis_exporter's extractInfoMetrics does.
func (e emitter) info(snap *Snapshot) {
	fields := map[string]string{}
	handledDBs := map[string]bool{}
	type cmdTotals struct {
		calls uint64
		usec  float64
	}
	totals := map[string]cmdTotals{}
	percentiles := map[string]map[float64]float64{}
	var cmdOrder []string
	section, masterHost, masterPort := "", "", ""
	for _, line := range strings.Split(snap.Info, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "# ") {
			section = line[2:]
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if len(line) < 2 || !ok {
			continue
		}
		fields[key] = value
		if reMasterHost.MatchString(key) {
			masterHost = value
		}
		if reMasterPort.MatchString(key) {
			masterPort = value
		}
		switch section {
		case "Replication":
			if e.replication(masterHost, masterPort, key, value) {
				continue
			}
		case "Server":
			if key == "uptime_in_seconds" {
				if up, err := strconv.ParseFloat(value, 64); err == nil {
					e.gauge("redis_start_time_seconds", float64(time.Now().Unix())-up, nil)
				}
			}
		case "Commandstats":
			if cmd, ok := strings.CutPrefix(key, "cmdstat_"); ok {
				kv := kvList(value)
				calls, usec := kv["calls"], kv["usec"]
				e.counter("redis_commands_total", calls, labelsCmd, cmd)
				e.counter("redis_commands_duration_seconds_total", usec/1e6, labelsCmd, cmd)
				if _, ok := kv["failed_calls"]; ok {
					e.counter("redis_commands_rejected_calls_total", kv["rejected_calls"], labelsCmd, cmd)
					e.counter("redis_commands_failed_calls_total", kv["failed_calls"], labelsCmd, cmd)
				}
				totals[cmd] = cmdTotals{uint64(calls), usec}
			}
			continue
		case "Latencystats":
			if cmd, ok := strings.CutPrefix(key, "latency_percentiles_usec_"); ok {
				q := map[float64]float64{}
				for _, kv := range strings.Split(value, ",") {
					p, v, ok := strings.Cut(kv, "=")
					if !ok || len(p) < 2 {
						continue
					}
					pf, err1 := strconv.ParseFloat(p[1:], 64)
					vf, err2 := strconv.ParseFloat(v, 64)
					if err1 == nil && err2 == nil {
						q[pf] = vf
					}
				}
				percentiles[cmd] = q
				cmdOrder = append(cmdOrder, cmd)
			}
			continue
		case "Errorstats":
			if prefix, ok := strings.CutPrefix(key, "errorstat_"); ok {
				e.counter("redis_errors_total", kvList(value)["count"], []string{"err"}, prefix)
			}
			continue
		case "Keyspace":
			if strings.HasPrefix(key, "db") {
				kv := kvList(value)
				if _, ok := kv["keys"]; ok {
					e.gauge("redis_db_keys", kv["keys"], labelsDB, key)
					e.gauge("redis_db_keys_expiring", kv["expires"], labelsDB, key)
					if v, ok := kv["cached_keys"]; ok {
						e.gauge("redis_db_keys_cached", v, labelsDB, key)
					}
					if v, ok := kv["avg_ttl"]; ok {
						e.gauge("redis_db_avg_ttl_seconds", v/1000, labelsDB, key)
					}
					handledDBs[key] = true
					continue
				}
			}
		}
		e.infoField(key, value)
	}
	// The summary of each command's latency: the percentiles of
	// Latencystats with the count and sum (µs, as the exporter has it) of
	// Commandstats.
	for _, cmd := range cmdOrder {
		if t, ok := totals[cmd]; ok {
			if m, err := prometheus.NewConstSummary(e.desc("redis_latency_percentiles_usec", labelsCmd), t.calls, t.usec, percentiles[cmd], cmd); err == nil {
				e.ch <- m
			}
		}
	}
	dbs := 16
	if n, err := strconv.Atoi(snap.Config["databases"]); err == nil {
		dbs = n
	}
	for i := 0; i < dbs; i++ {
		if db := "db" + strconv.Itoa(i); !handledDBs[db] {
			e.gauge("redis_db_keys", 0, labelsDB, db)
			e.gauge("redis_db_keys_expiring", 0, labelsDB, db)
		}
	}
	e.gauge("redis_instance_info", 1,
		[]string{"role", "redis_version", "redis_build_id", "redis_mode", "os", "maxmemory_policy", "tcp_port", "run_id", "process_id"},
		fields["role"], fields["redis_version"], fields["redis_build_id"], fields["redis_mode"], fields["os"],
		fields["maxmemory_policy"], fields["tcp_port"], fields["run_id"], fields["process_id"])
	if fields["role"] == "slave" {
		e.gauge("redis_slave_info", 1, []string{"master_host", "master_port", "read_only"},
			fields["master_host"], fields["master_port"], fields["slave_read_only"])
	}
}

// infoField is the exporter's includeMetric and parseAndRegisterConstMetric:
// a mapped field under its name, db* and cluster_* under their own, as a
// gauge unless the exporter counts it as a counter.
func (e emitter) infoField(key, value string) {
	name, ok := infoGauges[key]
	counter := false
	if !ok {
		if name, counter = infoCounters[key]; !counter {
			if !strings.HasPrefix(key, "db") && !strings.HasPrefix(key, "cluster_") {
				return
			}
			name = reMetricName.ReplaceAllString(key, "_")
		}
	}
	var v float64
	switch value {
	case "ok", "true":
		v = 1
	case "err", "fail", "false":
		v = 0
	default:
		v, _ = strconv.ParseFloat(value, 64) // as the exporter: 0 if not a number
	}
	if name == "latest_fork_usec" {
		name, v = "latest_fork_seconds", v/1e6
	}
	if counter {
		e.counter("redis_"+name, v, nil)
	} else {
		e.gauge("redis_"+name, v, nil)
	}
}

// replication is the exporter's handleMetricsReplication: a replica's
// link to its master and a master's replicas, with labels.
func (e emitter) replication(masterHost, masterPort, key, value string) bool {
	if reMasterLinkStatus.MatchString(key) {
		up := 0.0
		if value == "up" {
			up = 1
		}
		e.gauge("redis_master_link_up", up, labelsMaster, masterHost, masterPort)
		return true
	}
	if reMasterDirect.MatchString(key) {
		if strings.HasSuffix(key, "last_io_seconds_ago") {
			key = "master_last_io_seconds_ago"
		} else if strings.HasSuffix(key, "sync_in_progress") {
			key = "master_sync_in_progress"
		}
		n, _ := strconv.Atoi(value)
		e.gauge("redis_"+key, float64(n), labelsMaster, masterHost, masterPort)
		return true
	}
	if !reSlave.MatchString(key) {
		return false
	}
	kv := map[string]string{}
	for _, part := range strings.Split(value, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return false
		}
		kv[k] = v
	}
	offset, err := strconv.ParseFloat(kv["offset"], 64)
	if err != nil {
		return false
	}
	e.gauge("redis_connected_slave_offset_bytes", offset, labelsSlave, kv["ip"], kv["port"], kv["state"])
	if lag, err := strconv.ParseFloat(kv["lag"], 64); err == nil {
		e.gauge("redis_connected_slave_lag_seconds", lag, labelsSlave, kv["ip"], kv["port"], kv["state"])
	}
	return true
}

// kvList reads INFO's "k=v,k=v" values, numbers only.
func kvList(s string) map[string]float64 {
	out := map[string]float64{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			out[k] = f
		}
	}
	return out
}

// config is the exporter's redis_config_* gauges.
func (e emitter) config(cfg map[string]string) {
	for _, key := range []string{"io-threads", "maxclients", "maxmemory"} {
		if v, err := strconv.ParseFloat(cfg[key], 64); err == nil {
			e.gauge("redis_config_"+strings.ReplaceAll(key, "-", "_"), v, nil)
		}
	}
}

func (e emitter) slowlog(sl Slowlog) {
	e.gauge("redis_slowlog_length", float64(sl.Len), nil)
	e.gauge("redis_slowlog_last_id", float64(sl.LastID), nil)
	e.gauge("redis_last_slow_execution_duration_seconds", float64(sl.LastMicros)/1e6, nil)
}

var floodgateHelp = map[string]string{
	"floodgate_limiter_decisions_total":           "Decisions of CL.THROTTLE, GCRA and INCREX by command, key prefix and outcome",
	"floodgate_limiter_untracked_decisions_total": "Decisions for key prefixes past floodgate_limiter_prefixes_max, by command and outcome",
	"floodgate_limiter_prefixes":                  "Key prefixes whose limiter decisions are counted apart",
	"floodgate_limiter_prefixes_max":              "The most key prefixes counted apart",
	"floodgate_script_calls_total":                "Script calls by command",
	"floodgate_script_duration_seconds":           "Script durations by command, from the latency-tracking histograms",
	"floodgate_script_busy_total":                 "Scripts that ran past busy-reply-threshold, while other clients got BUSY",
	"floodgate_script_busy":                       "1 while a script runs past busy-reply-threshold",
	"floodgate_evicted_keys_total":                "Keys evicted by maxmemory-policy",
}

var (
	labelsLimiter   = []string{"command", "prefix", "outcome"}
	labelsUntracked = []string{"command", "outcome"}
	labelsKind      = []string{"kind"}
)

func (e emitter) floodgate(snap *Snapshot) {
	l := &snap.Limiter
	for _, d := range l.Decisions {
		e.counter("floodgate_limiter_decisions_total", float64(d.Allowed), labelsLimiter, d.Command, d.Prefix, "allowed")
		e.counter("floodgate_limiter_decisions_total", float64(d.Limited), labelsLimiter, d.Command, d.Prefix, "limited")
	}
	for _, d := range l.Untracked {
		e.counter("floodgate_limiter_untracked_decisions_total", float64(d.Allowed), labelsUntracked, d.Command, "allowed")
		e.counter("floodgate_limiter_untracked_decisions_total", float64(d.Limited), labelsUntracked, d.Command, "limited")
	}
	e.gauge("floodgate_limiter_prefixes", float64(l.Prefixes), nil)
	e.gauge("floodgate_limiter_prefixes_max", float64(l.PrefixesMax), nil)
	for _, sc := range snap.Scripts {
		e.counter("floodgate_script_calls_total", float64(sc.Calls), labelsKind, sc.Kind)
		if h := sc.Durations; h != nil {
			if m, err := prometheus.NewConstHistogram(e.desc("floodgate_script_duration_seconds", labelsKind), h.Count, h.Sum, h.Buckets, sc.Kind); err == nil {
				e.ch <- m
			}
		}
	}
	e.counter("floodgate_script_busy_total", float64(snap.BusyScripts), nil)
	busy := 0.0
	if snap.Busy {
		busy = 1
	}
	e.gauge("floodgate_script_busy", busy, nil)
	for policy, n := range snap.Evicted {
		e.counter("floodgate_evicted_keys_total", float64(n), []string{"policy"}, policy)
	}
}

package metrics

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// collect writes one Snapshot's metrics: INFO read as redis_exporter reads
// it, the few figures the exporter takes from other commands, and
// floodgate's own.
func (x *exposition) collect(snap *Snapshot) {
	x.info(snap)
	x.config(snap.Config)
	x.slowlog(snap.Slowlog)
	for _, ev := range snap.Latency {
		x.gauge("redis_latency_spike_last", float64(ev.Time), labelsEvent, ev.Name)
		x.gauge("redis_latency_spike_duration_seconds", float64(ev.LatestMsec)/1e3, labelsEvent, ev.Name)
	}
	x.gauge("redis_up", 1, nil)
	x.floodgate(snap)
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
	labelsErr    = []string{"err"}
	labelsEvent  = []string{"event_name"}

	labelsInstance  = []string{"role", "redis_version", "redis_build_id", "redis_mode", "os", "maxmemory_policy", "tcp_port", "run_id", "process_id"}
	labelsSlaveInfo = []string{"master_host", "master_port", "read_only"}
)

// cmdTotals is a command's commandstats, which its latencystats line's
// summary takes its count and sum from.
type cmdTotals struct {
	calls uint64
	usec  float64
}

// info reads INFO as redis_exporter's extractInfoMetrics does. It cuts
// the text in place (no line or k=v list is copied) and reads a master's
// or a replica's fields with the exporter's patterns only in the
// Replication section, the only one that has them.
func (x *exposition) info(snap *Snapshot) {
	var inst struct{ role, version, buildID, mode, os, policy, port, runID, pid, masterHost, masterPort, readOnly string }
	handledDBs := 0 // bit i: db<i> had a Keyspace line
	if x.totals == nil {
		x.totals = map[string]cmdTotals{}
	}
	section, masterHost, masterPort := "", "", ""
	for rest := snap.Info; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "# ") {
			section = line[2:]
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if len(line) < 2 || !ok {
			continue
		}
		switch key {
		case "role":
			inst.role = value
		case "redis_version":
			inst.version = value
		case "redis_build_id":
			inst.buildID = value
		case "redis_mode":
			inst.mode = value
		case "os":
			inst.os = value
		case "maxmemory_policy":
			inst.policy = value
		case "tcp_port":
			inst.port = value
		case "run_id":
			inst.runID = value
		case "process_id":
			inst.pid = value
		case "master_host":
			inst.masterHost = value
		case "master_port":
			inst.masterPort = value
		case "slave_read_only":
			inst.readOnly = value
		}
		switch section {
		case "Replication":
			if reMasterHost.MatchString(key) {
				masterHost = value
			}
			if reMasterPort.MatchString(key) {
				masterPort = value
			}
			if x.replication(masterHost, masterPort, key, value) {
				continue
			}
		case "Server":
			if key == "uptime_in_seconds" {
				if up, err := strconv.ParseFloat(value, 64); err == nil {
					x.gauge("redis_start_time_seconds", float64(time.Now().Unix())-up, nil)
				}
			}
		case "Commandstats":
			if cmd, ok := strings.CutPrefix(key, "cmdstat_"); ok {
				calls, usec := kvNumber(value, "calls"), kvNumber(value, "usec")
				x.counter("redis_commands_total", calls, labelsCmd, cmd)
				x.counter("redis_commands_duration_seconds_total", usec/1e6, labelsCmd, cmd)
				if strings.Contains(value, "failed_calls=") {
					x.counter("redis_commands_rejected_calls_total", kvNumber(value, "rejected_calls"), labelsCmd, cmd)
					x.counter("redis_commands_failed_calls_total", kvNumber(value, "failed_calls"), labelsCmd, cmd)
				}
				x.totals[cmd] = cmdTotals{uint64(calls), usec}
			}
			continue
		case "Latencystats":
			// The summary of each command's latency: these percentiles
			// with the count and sum (µs, as the exporter has it) of
			// Commandstats, which comes first.
			if cmd, ok := strings.CutPrefix(key, "latency_percentiles_usec_"); ok {
				if t, ok := x.totals[cmd]; ok {
					x.summary("redis_latency_percentiles_usec", t.calls, t.usec, x.percentiles(value), labelsCmd, cmd)
				}
			}
			continue
		case "Errorstats":
			if prefix, ok := strings.CutPrefix(key, "errorstat_"); ok {
				x.counter("redis_errors_total", kvNumber(value, "count"), labelsErr, prefix)
			}
			continue
		case "Keyspace":
			if strings.HasPrefix(key, "db") && strings.Contains(value, "keys=") {
				x.gauge("redis_db_keys", kvNumber(value, "keys"), labelsDB, key)
				x.gauge("redis_db_keys_expiring", kvNumber(value, "expires"), labelsDB, key)
				if v, ok := kvLookup(value, "cached_keys"); ok {
					x.gauge("redis_db_keys_cached", v, labelsDB, key)
				}
				if v, ok := kvLookup(value, "avg_ttl"); ok {
					x.gauge("redis_db_avg_ttl_seconds", v/1000, labelsDB, key)
				}
				if n, err := strconv.Atoi(key[2:]); err == nil && n < 64 {
					handledDBs |= 1 << n
				}
				continue
			}
		}
		x.infoField(key, value)
	}
	clear(x.totals) // its keys point into this snapshot's text
	dbs := 16
	if n, err := strconv.Atoi(snap.Config["databases"]); err == nil {
		dbs = n
	}
	for i := 0; i < dbs; i++ {
		if i >= 64 || handledDBs&(1<<i) == 0 {
			db := "db" + strconv.Itoa(i)
			x.gauge("redis_db_keys", 0, labelsDB, db)
			x.gauge("redis_db_keys_expiring", 0, labelsDB, db)
		}
	}
	x.gauge("redis_instance_info", 1, labelsInstance,
		inst.role, inst.version, inst.buildID, inst.mode, inst.os, inst.policy, inst.port, inst.runID, inst.pid)
	if inst.role == "slave" {
		x.gauge("redis_slave_info", 1, labelsSlaveInfo, inst.masterHost, inst.masterPort, inst.readOnly)
	}
}

// percentiles reads a latencystats value, "p50=1.003,p99=2.007", into
// the exposition's reused slice.
func (x *exposition) percentiles(value string) []quantile {
	x.quantiles = x.quantiles[:0]
	for rest := value; rest != ""; {
		var kv string
		kv, rest, _ = strings.Cut(rest, ",")
		p, v, ok := strings.Cut(kv, "=")
		if !ok || len(p) < 2 {
			continue
		}
		pf, err1 := strconv.ParseFloat(p[1:], 64)
		vf, err2 := strconv.ParseFloat(v, 64)
		if err1 == nil && err2 == nil {
			x.quantiles = append(x.quantiles, quantile{pf, vf})
		}
	}
	return x.quantiles
}

// infoField is the exporter's includeMetric and parseAndRegisterConstMetric:
// a mapped field under its name, db* and cluster_* under their own, as a
// gauge unless the exporter counts it as a counter.
func (x *exposition) infoField(key, value string) {
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
		x.counter("redis_"+name, v, nil)
	} else {
		x.gauge("redis_"+name, v, nil)
	}
}

// replication is the exporter's handleMetricsReplication: a replica's
// link to its master and a master's replicas, with labels.
func (x *exposition) replication(masterHost, masterPort, key, value string) bool {
	if reMasterLinkStatus.MatchString(key) {
		up := 0.0
		if value == "up" {
			up = 1
		}
		x.gauge("redis_master_link_up", up, labelsMaster, masterHost, masterPort)
		return true
	}
	if reMasterDirect.MatchString(key) {
		if strings.HasSuffix(key, "last_io_seconds_ago") {
			key = "master_last_io_seconds_ago"
		} else if strings.HasSuffix(key, "sync_in_progress") {
			key = "master_sync_in_progress"
		}
		n, _ := strconv.Atoi(value)
		x.gauge("redis_"+key, float64(n), labelsMaster, masterHost, masterPort)
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
	x.gauge("redis_connected_slave_offset_bytes", offset, labelsSlave, kv["ip"], kv["port"], kv["state"])
	if lag, err := strconv.ParseFloat(kv["lag"], 64); err == nil {
		x.gauge("redis_connected_slave_lag_seconds", lag, labelsSlave, kv["ip"], kv["port"], kv["state"])
	}
	return true
}

// kvLookup reads one number of INFO's "k=v,k=v" values.
func kvLookup(s, key string) (float64, bool) {
	for s != "" {
		var kv string
		kv, s, _ = strings.Cut(s, ",")
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// kvNumber is kvLookup's number, 0 when missing.
func kvNumber(s, key string) float64 {
	f, _ := kvLookup(s, key)
	return f
}

// config is the exporter's redis_config_* gauges.
func (x *exposition) config(cfg map[string]string) {
	for _, key := range []string{"io-threads", "maxclients", "maxmemory"} {
		if v, err := strconv.ParseFloat(cfg[key], 64); err == nil {
			x.gauge("redis_config_"+strings.ReplaceAll(key, "-", "_"), v, nil)
		}
	}
}

func (x *exposition) slowlog(sl Slowlog) {
	x.gauge("redis_slowlog_length", float64(sl.Len), nil)
	x.gauge("redis_slowlog_last_id", float64(sl.LastID), nil)
	x.gauge("redis_last_slow_execution_duration_seconds", float64(sl.LastMicros)/1e6, nil)
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
	labelsPolicy    = []string{"policy"}
)

// limiterSeries sorts the decisions by prefix and command, so that the
// series come in the same order in every scrape, with prefixes that are
// not valid UTF-8 (a label may hold nothing else) made so, and any two
// that became the same label summed into one series.
func limiterSeries(ds []LimiterDecisions) []LimiterDecisions {
	for i := range ds {
		if !utf8.ValidString(ds[i].Prefix) {
			ds[i].Prefix = strings.ToValidUTF8(ds[i].Prefix, "\uFFFD")
		}
	}
	// slices.SortFunc: sort.Slice's reflection was a tenth of a scrape.
	slices.SortFunc(ds, func(a, b LimiterDecisions) int {
		if c := strings.Compare(a.Prefix, b.Prefix); c != 0 {
			return c
		}
		return strings.Compare(a.Command, b.Command)
	})
	out := ds[:0]
	for _, d := range ds {
		if n := len(out); n > 0 && out[n-1].Prefix == d.Prefix && out[n-1].Command == d.Command {
			out[n-1].Allowed += d.Allowed
			out[n-1].Limited += d.Limited
			continue
		}
		out = append(out, d)
	}
	return out
}

func (x *exposition) floodgate(snap *Snapshot) {
	l := &snap.Limiter
	for _, d := range limiterSeries(l.Decisions) {
		x.counter("floodgate_limiter_decisions_total", float64(d.Allowed), labelsLimiter, d.Command, d.Prefix, "allowed")
		x.counter("floodgate_limiter_decisions_total", float64(d.Limited), labelsLimiter, d.Command, d.Prefix, "limited")
	}
	for _, d := range l.Untracked {
		x.counter("floodgate_limiter_untracked_decisions_total", float64(d.Allowed), labelsUntracked, d.Command, "allowed")
		x.counter("floodgate_limiter_untracked_decisions_total", float64(d.Limited), labelsUntracked, d.Command, "limited")
	}
	x.gauge("floodgate_limiter_prefixes", float64(l.Prefixes), nil)
	x.gauge("floodgate_limiter_prefixes_max", float64(l.PrefixesMax), nil)
	for _, sc := range snap.Scripts {
		x.counter("floodgate_script_calls_total", float64(sc.Calls), labelsKind, sc.Kind)
		if h := sc.Durations; h != nil {
			x.histogram("floodgate_script_duration_seconds", h, ScriptBuckets, labelsKind, sc.Kind)
		}
	}
	x.counter("floodgate_script_busy_total", float64(snap.BusyScripts), nil)
	busy := 0.0
	if snap.Busy {
		busy = 1
	}
	x.gauge("floodgate_script_busy", busy, nil)
	for policy, n := range snap.Evicted {
		x.counter("floodgate_evicted_keys_total", float64(n), labelsPolicy, policy)
	}
}

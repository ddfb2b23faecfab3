# measure.sh: the per-request measurement bench-ab.sh and bench-ceiling.sh
# share, sourced by them (never run). Needs N, the requests a run.

# server_cpu PID: the server's on-CPU time in µs, from
# /proc/PID/task/*/schedstat (ns; /proc/PID/stat counts 10 ms ticks).
server_cpu() { cat /proc/"$1"/task/*/schedstat | awk '{s += $1} END {printf "%.0f", s / 1000}'; }

# per_request PORT PID PIPELINE ARGS...: FLUSHALL, then N requests of ARGS
# by redis-benchmark (50 clients, random keys) -> "ops/s cpu_us_per_request".
# With FILL=PREFIX set, every one of the 100,000 random keys (PREFIX plus
# redis-benchmark's 12 digits) is first SET to 1, outside the measurement.
per_request() {
  local p=$1 pid=$2 pipe=$3; shift 3
  redis-cli -p "$p" FLUSHALL >/dev/null
  if [ -n "${FILL:-}" ]; then
    awk -v k="$FILL" 'BEGIN { for (i = 0; i < 100000; i++) printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s%012d\r\n$1\r\n1\r\n", length(k) + 12, k, i }' |
      redis-cli -p "$p" --pipe >/dev/null
  fi
  local b o a; b=$(server_cpu "$pid")
  o=$(redis-benchmark -p "$p" -c 50 -n "$N" -r 100000 -P "$pipe" -q "$@" 2>/dev/null | tr '\r' '\n' |
      awk '/requests per second/ {for (i=2;i<=NF;i++) if ($i == "requests") v = $(i-1)} END {print v}')
  a=$(server_cpu "$pid")
  awk -v o="$o" -v t=$((a - b)) -v n="$N" 'BEGIN {printf "%.0f %.3f", o, t / n}'
}

# medians FILE: FILE's "name ops cpu" lines -> one "name ops cpu" line per
# name, each the median of its runs, sorted by name.
medians() {
  sort "$1" | awk '
    { if ($1 != k && k != "") flush(); k = $1; o[++n] = $2; c[n] = $3 }
    END { flush() }
    function med(a, m,   i, j, t) { for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((m + 1) / 2)] }
    function flush() { print k, med(o, n), med(c, n); n = 0 }'
}

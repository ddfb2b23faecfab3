# measure.sh: the per-request measurement bench-ab.sh and bench-ceiling.sh
# share, sourced by them (never run). Needs N, the requests a run.

# server_cpu PID: the server's on-CPU time in µs, from
# /proc/PID/task/*/schedstat (ns; /proc/PID/stat counts 10 ms ticks).
server_cpu() { cat /proc/"$1"/task/*/schedstat | awk '{s += $1} END {printf "%.0f", s / 1000}'; }

# per_request PORT PID PIPELINE ARGS...: FLUSHALL, then N requests of ARGS
# by redis-benchmark (50 clients, random keys) -> "ops/s cpu_us_per_request".
per_request() {
  local p=$1 pid=$2 pipe=$3; shift 3
  redis-cli -p "$p" FLUSHALL >/dev/null
  local b o a; b=$(server_cpu "$pid")
  o=$(redis-benchmark -p "$p" -c 50 -n "$N" -r 100000 -P "$pipe" -q "$@" 2>/dev/null | tr '\r' '\n' |
      awk '/requests per second/ {for (i=2;i<=NF;i++) if ($i == "requests") v = $(i-1)} END {print v}')
  a=$(server_cpu "$pid")
  awk -v o="$o" -v t=$((a - b)) -v n="$N" 'BEGIN {printf "%.0f %.3f", o, t / n}'
}

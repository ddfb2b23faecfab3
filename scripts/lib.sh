# lib.sh: what the measuring scripts share, sourced by them (never run).
# Sourcing it makes a scratch directory, $dir, and the EXIT trap that
# stops the servers started in it (their pids are $dir/<name>.pid) and
# removes it.

# start_redis PORT [ARG ...]: a redis-server on 127.0.0.1:PORT with
# persistence off, daemonized, its log in $dir/redis.log.
start_redis() {
	local port=$1
	shift
	redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize yes \
		--pidfile "$dir/redis.pid" --logfile "$dir/redis.log" "$@" >/dev/null
}

# start_floodgate PORT: floodgate built from this tree, on PORT, persistence
# off like redis-server's (it would load and save a dump.rdb in the tree).
start_floodgate() {
	go build -o "$dir/floodgate" ./cmd/floodgate
	"$dir/floodgate" --port "$1" --save "" --appendonly no --dir "$dir" >"$dir/floodgate.log" 2>&1 &
	echo $! >"$dir/floodgate.pid"
}

# start_pair RPORT FPORT: redis-server and floodgate side by side, each
# answering PING; their pids in $RPID and $FPID.
start_pair() {
	start_redis "$1"
	start_floodgate "$2"
	wait_ping "$1" "$2"
	RPID=$(cat "$dir/redis.pid")
	FPID=$(cat "$dir/floodgate.pid")
}

# stop_servers: the EXIT trap; stops what start_* started and removes $dir.
stop_servers() {
	local f
	for f in "$dir"/redis.pid "$dir"/floodgate.pid; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	sleep 0.5
	rm -rf "$dir"
}

# wait_ping PORT ...: until each server answers PING (5 s at most).
wait_ping() {
	local p
	for p in "$@"; do
		for _ in $(seq 50); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done
	done
}

# used PORT: INFO's used_memory, in bytes.
used() { redis-cli -p "$1" info memory | awk -F: '$1 == "used_memory" {print $2 + 0}'; }

# rss PID: the process's resident set, in bytes.
rss() { awk '/^VmRSS:/ {print $2 * 1024}' "/proc/$1/status"; }

# mb BYTES: "12.3 MB".
mb() { awk -v b="$1" 'BEGIN {printf "%.1f MB", b / 1048576}'; }

# settled PORT: used_memory once it stops moving (two reads 200 ms apart
# agree, 5 s at most). Right after a fill the keyspace dict may still be
# rehashing, its old bucket array counted too, until serverCron finishes
# it: 10,000 keys of 10 integers read 12.4 B/member then, 11.7 at rest.
# The Go benchmarks measure at rest too (store's settledHeap).
settled() {
	local port=$1 prev now
	prev=$(used "$port")
	for _ in $(seq 25); do
		sleep 0.2
		now=$(used "$port")
		[ "$now" = "$prev" ] && break
		prev=$now
	done
	echo "$prev"
}

# measure PORT SIZE GENERATOR [LABEL]: the bytes per element of about
# 100,000 elements in keys k0, k1, ... of SIZE elements each (10 keys at
# least), written by the command lines "GENERATOR KEYS SIZE" prints, as a
# table row: [LABEL] size keys elements bytes-per-element k0's-encoding,
# both used_memory readings at rest (settled). The keys are written once
# and flushed before the measured fill: a fresh server's first fill also
# allocates about 70 KB that FLUSHALL keeps, which would count as 0.7 B
# an element against whichever row came first.
measure() {
	local port=$1 size=$2 generator=$3 label=${4:-}
	local keys=$((100000 / size))
	[ "$keys" -lt 10 ] && keys=10
	"$generator" "$keys" "$size" | redis-cli -p "$port" >/dev/null
	redis-cli -p "$port" flushall >/dev/null
	local before after elements
	before=$(settled "$port")
	"$generator" "$keys" "$size" | redis-cli -p "$port" >/dev/null
	after=$(settled "$port")
	elements=$((keys * size))
	printf '%s%-8s %-8s %-10s %-14s %s\n' "$label" "$size" "$keys" "$elements" \
		"$(awk -v d=$((after - before)) -v m="$elements" 'BEGIN {printf "%.1f", d / m}')" \
		"$(redis-cli -p "$port" object encoding "${KEY0:-k0}")"
}

dir=$(mktemp -d)
trap stop_servers EXIT
trap 'exit 1' INT TERM # so that the EXIT trap runs then too

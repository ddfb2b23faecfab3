#!/bin/bash
# INCR throughput and server CPU with the AOF off and under each appendfsync
# policy, floodgate beside redis-server (BENCHMARKS.md, "AOF"). Builds
# floodgate into a temporary directory; each server gets a fresh --dir.
set -u
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
go build -o "$WORK/fg" ./cmd/floodgate || exit 1
free() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
run() {
  label=$1; shift
  P=$(free); D=$(mktemp -d $WORK/b.XXXX)
  "$@" --port $P --dir $D >$D/log 2>&1 &
  pid=$!
  for i in $(seq 50); do redis-cli -p $P ping >/dev/null 2>&1 && break; sleep 0.1; done
  redis-benchmark -p $P -t incr -n 20000 -c 50 -q >/dev/null 2>&1
  t0=$(awk '{print $14+$15}' /proc/$pid/stat)
  out=$(redis-benchmark -p $P -t incr -n 300000 -c 50 -q 2>/dev/null | tr '\r' '\n' | grep "INCR:" | tail -1)
  t1=$(awk '{print $14+$15}' /proc/$pid/stat)
  rps=$(echo "$out" | sed -E 's/.*INCR: ([0-9.]+) requests.*/\1/')
  cpu=$(python3 -c "print(round(($t1-$t0)*10000/300000, 2))")
  size=$(du -sh $D | cut -f1)
  echo "$label rps=$rps cpu_us_per_op=$cpu dir=$size"
  kill $pid; wait $pid 2>/dev/null; rm -rf $D
}
FG=$WORK/fg
run "floodgate appendonly=no      " $FG --appendonly no
run "floodgate appendfsync=no     " $FG --appendonly yes --appendfsync no
run "floodgate appendfsync=everysec" $FG --appendonly yes --appendfsync everysec
run "floodgate appendfsync=always " $FG --appendonly yes --appendfsync always
run "redis     appendonly=no      " redis-server --save '' --appendonly no
run "redis     appendfsync=no     " redis-server --save '' --appendonly yes --appendfsync no
run "redis     appendfsync=everysec" redis-server --save '' --appendonly yes --appendfsync everysec
run "redis     appendfsync=always " redis-server --save '' --appendonly yes --appendfsync always

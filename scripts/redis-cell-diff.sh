#!/usr/bin/env bash
# Differential check of floodgate's CL.THROTTLE against the real redis-cell
# module loaded into redis-server: the same command lines, one by one, on
# fresh keys, compared reply for reply. The lines avoid rates where the
# microseconds between two calls could change an answer.
#
#   CELL_SO=/path/to/libredis_cell.so scripts/redis-cell-diff.sh
#
# CELL_SO is a redis-cell module you have built yourself; this project
# does not ship or build it.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CELL_SO:?set CELL_SO to libredis_cell.so}"
RPORT=${RPORT:-17395}
FPORT=${FPORT:-17396}
FG_BIN=${FG_BIN:-bin/floodgate}
go build -o "$FG_BIN" ./cmd/floodgate

tmp=$(mktemp -d)
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --dir "$tmp" --logfile "$tmp/redis.log" --loadmodule "$CELL_SO" &
RPID=$!
"$FG_BIN" --port "$FPORT" --loglevel warning &
FPID=$!
trap 'kill $RPID $FPID 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for p in "$RPORT" "$FPORT"; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done

lines=(
  "CL.THROTTLE a 15 30 60" "CL.THROTTLE a 15 30 60" "CL.THROTTLE a 15 30 60 0" "CL.THROTTLE a 15 30 60 10"
  "CL.THROTTLE a 15 30 60 10" "CL.THROTTLE a 15 30 60 17"
  "CL.THROTTLE b 4 1 1 6" "CL.THROTTLE b 4 1 1 1" "CL.THROTTLE b 4 1 1 1" "CL.THROTTLE b 4 1 1 1"
  "CL.THROTTLE b 4 1 1 1" "CL.THROTTLE b 4 1 1 1" "CL.THROTTLE b 4 1 1 1" "CL.THROTTLE b 4 1 1 5"
  "CL.THROTTLE c 0 1 2 1" "CL.THROTTLE c 0 1 2 1"
  "CL.THROTTLE d 5 5 3600" "CL.THROTTLE d 5 5 3600 3" "CL.THROTTLE d 5 5 3600 3"
  "CL.THROTTLE e 0 1 1 0" "CL.THROTTLE e 0 1 86400 1"
  "CL.THROTTLE f 100 3 7" "CL.THROTTLE f 100 3 7 50" "CL.THROTTLE f 100 3 7 60"
  "CL.THROTTLE h 007 +30 60 +1" "TYPE a" "TTL d"
  "CL.THROTTLE g 1 30.5 60" "CL.THROTTLE g 1 30 60 1.0" 'CL.THROTTLE g 1 "" 60' 'CL.THROTTLE g 1 " 3" 60'
  "CL.THROTTLE g 9223372036854775808 1 1" "CL.THROTTLE g 1 0 0" "CL.THROTTLE g x y z w" "CL.THROTTLE g 1 1 1 x"
  "CL.THROTTLE g 0 2000000000 1" "EXISTS g"
)
diffs=0
for line in "${lines[@]}"; do
  a=$(eval redis-cli -p "$RPORT" "$line" 2>&1 | tr '\n' ' ')
  b=$(eval redis-cli -p "$FPORT" "$line" 2>&1 | tr '\n' ' ')
  if [ "$a" == "$b" ]; then
    echo "same  $line => $a"
  else
    echo "DIFF  $line"; echo "   redis-cell: $a"; echo "   floodgate:  $b"; diffs=$((diffs + 1))
  fi
done
echo "$diffs differences in ${#lines[@]} lines"
[ "$diffs" -eq 0 ]

#!/usr/bin/env bash
# loadgen-vs-wrk.sh: how hard loadgen drives a server compared with wrk.
# A trivial server (cmd/bareserver) on one CPU; `loadgen -k -c 50 -d 5s` and
# `wrk -t1 -c50 -d5s` take turns on the other CPU; the ratio of their median
# request rates is printed. Loopback only.
# Usage: scripts/loadgen-vs-wrk.sh [ROUNDS] [DURATION] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
rounds=${1:-5} duration=${2:-5s} conns=${3:-50}
cpus
need_pkg wrk wrk
go build -o bin/loadgen ./cmd/loadgen
go build -o bin/bareserver ./cmd/bareserver
trap stop_all EXIT
background taskset -c $server_cpu bin/bareserver -addr 127.0.0.1:19593 -body testdata/golden/post.data.json
wait_http http://127.0.0.1:19593/

url=http://127.0.0.1:19593/
echo "warming up" >&2
wrk_rate "$url" -t1 -c"$conns" -d2s >/dev/null
loadgen_rate "$url" -k -c "$conns" -d "$duration" >/dev/null
l=() w=()
for r in $(seq "$rounds"); do
  w+=("$(wrk_rate "$url" -t1 -c"$conns" -d"$duration")")
  l+=("$(loadgen_rate "$url" -k -c "$conns" -d "$duration")")
  echo "round $r: wrk ${w[-1]} req/s, loadgen ${l[-1]} req/s" >&2
done
ml=$(median "${l[@]}") mw=$(median "${w[@]}")
echo
echo "bareserver on CPU $server_cpu; on CPU $load_cpu: wrk -t1 -c$conns -d$duration vs loadgen -k -c $conns -d $duration; medians of $rounds alternating rounds:"
printf '  %-8s %10s req/s\n' wrk "$mw" loadgen "$ml"
awk -v a="$ml" -v b="$mw" 'BEGIN {printf "  loadgen / wrk = %.2f\n", a/b}'

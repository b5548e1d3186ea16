#!/usr/bin/env bash
# loadgen-vs-wrk.sh: how hard loadgen drives a server compared with wrk, on
# both Go ceilings: a trivial server (cmd/bareserver) on net/http and on
# fasthttp, each on one CPU; `loadgen -k -c 50 -d 5s` and `wrk -t1 -c50 -d5s`
# take turns on the other CPU; the ratio of their median request rates is
# printed per server. A ratio under 0.95 means loadgen, not the server, is
# the limit at that rate: figures above it are taken with wrk instead.
# Loopback only. Usage: scripts/loadgen-vs-wrk.sh [ROUNDS] [DURATION] [CONNECTIONS]
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
background taskset -c $server_cpu bin/bareserver -http fasthttp -addr 127.0.0.1:19594 -body testdata/golden/post.data.json
wait_http http://127.0.0.1:19593/
wait_http http://127.0.0.1:19594/

names=("bare net/http" "bare fasthttp")
urls=(http://127.0.0.1:19593/ http://127.0.0.1:19594/)
echo "warming up" >&2
for url in "${urls[@]}"; do
  wrk_rate "$url" -t1 -c"$conns" -d2s >/dev/null
  loadgen_rate "$url" -k -c "$conns" -d 2s >/dev/null
done
declare -A l w
for r in $(seq "$rounds"); do
  for i in 0 1; do
    a=$(wrk_rate "${urls[$i]}" -t1 -c"$conns" -d"$duration")
    b=$(loadgen_rate "${urls[$i]}" -k -c "$conns" -d "$duration")
    w[$i]+="$a " l[$i]+="$b "
    echo "round $r, ${names[$i]}: wrk $a req/s, loadgen $b req/s" >&2
  done
done
echo
echo "bareserver on CPU $server_cpu; on CPU $load_cpu: wrk -t1 -c$conns -d$duration vs loadgen -k -c $conns -d $duration; medians of $rounds alternating rounds:"
for i in 0 1; do
  # shellcheck disable=SC2086
  mw=$(median ${w[$i]}) ml=$(median ${l[$i]})
  awk -v n="${names[$i]}" -v a="$ml" -v b="$mw" \
    'BEGIN {printf "  %-14s wrk %10.0f req/s   loadgen %10.0f req/s   loadgen / wrk = %.2f\n", n, b, a, a/b}'
done

#!/usr/bin/env bash
# rate.sh: the request rate of dspd next to a bare net/http server returning
# the same bytes, measured in one run: both servers pinned to one CPU, wrk
# pinned to the other, alternating rounds so that machine drift hits both
# alike. Loopback only. Usage: scripts/rate.sh [ROUNDS] [DURATION] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
rounds=${1:-3} duration=${2:-5s} conns=${3:-50}
cpus
need_pkg wrk wrk
go build -o bin/dspd ./cmd/dspd
go build -o bin/bareserver ./cmd/bareserver
tmp=$(mktemp -d)
trap 'stop_all; rm -rf "$tmp"' EXIT

background taskset -c $server_cpu bin/dspd -addr 127.0.0.1:19591 -admin 127.0.0.1:16591 -log-level warn "${testdata_clock[@]}"
wait_http http://127.0.0.1:16591/readyz
# the bare server answers with the very bytes dspd gives post.data
curl -fsS -o "$tmp/response.json" -H 'Content-Type: application/x-www-form-urlencoded' \
  --data-binary @testdata/post.data http://127.0.0.1:19591/dsp/recbid
background taskset -c $server_cpu bin/bareserver -addr 127.0.0.1:19592 -body "$tmp/response.json"
wait_http http://127.0.0.1:19592/ x

args=(-t1 -c"$conns" -d"$duration" -s scripts/wrk-post.lua)
echo "warming up" >&2
wrk_rate http://127.0.0.1:19591/dsp/recbid "${args[@]}" >/dev/null
wrk_rate http://127.0.0.1:19592/ "${args[@]}" >/dev/null
d=() b=()
for r in $(seq "$rounds"); do
  d+=("$(wrk_rate http://127.0.0.1:19591/dsp/recbid "${args[@]}")")
  b+=("$(wrk_rate http://127.0.0.1:19592/ "${args[@]}")")
  echo "round $r: dspd ${d[-1]} req/s, bare net/http ${b[-1]} req/s" >&2
done
md=$(median "${d[@]}") mb=$(median "${b[@]}")
echo
echo "wrk -t1 -c$conns -d$duration, keep-alive, POST testdata/post.data ($(wc -c <testdata/post.data) bytes) -> $(wc -c <"$tmp/response.json")-byte answer"
echo "servers on CPU $server_cpu (GOMAXPROCS 1), wrk on CPU $load_cpu, $rounds alternating rounds, medians:"
printf '  %-22s %10s req/s\n' "dspd /dsp/recbid" "$md" "bare net/http handler" "$mb"
awk -v a="$md" -v b="$mb" 'BEGIN {printf "  dspd / bare = %.2f\n", a/b}'

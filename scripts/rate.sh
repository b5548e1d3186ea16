#!/usr/bin/env bash
# rate.sh: the request rate of dspd next to a bare server returning the same
# bytes, for each front end, measured in one run: dspd -http chi next to a
# bare net/http handler, dspd -http fasthttp next to a bare fasthttp handler
# (both dspd on the memory state), and dspd (chi) on its
# default disk state (bid records written within -bid-window 2ms, win
# notices durable before 204), dspd on disk with -bid-window 0 (every bid's
# record durable before it is answered), all pinned to one CPU, wrk pinned to the other,
# alternating rounds so that machine drift hits them alike. Then the latency
# group commit adds: both dspd open loop at half the disk state's rate.
# Loopback only. Usage: scripts/rate.sh [ROUNDS] [DURATION] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
rounds=${1:-3} duration=${2:-5s} conns=${3:-50}
cpus
need_pkg wrk wrk
go build -o bin/dspd ./cmd/dspd
go build -o bin/bareserver ./cmd/bareserver
go build -o bin/loadgen ./cmd/loadgen
tmp=$(mktemp -d)
trap 'stop_all; rm -rf "$tmp"' EXIT

background taskset -c $server_cpu bin/dspd -addr 127.0.0.1:19591 -admin 127.0.0.1:16591 -log-level warn "${testdata_clock[@]}" -state memory
background taskset -c $server_cpu bin/dspd -addr 127.0.0.1:19593 -admin 127.0.0.1:16593 -log-level warn "${testdata_clock[@]}" -state "disk:$tmp/data"
background taskset -c $server_cpu bin/dspd -addr 127.0.0.1:19594 -admin 127.0.0.1:16594 -log-level warn "${testdata_clock[@]}" -state "disk:$tmp/data-sync" -bid-window 0
wait_http http://127.0.0.1:16591/readyz
wait_http http://127.0.0.1:16593/readyz
wait_http http://127.0.0.1:16594/readyz
# the bare server answers with the very bytes dspd gives post.data
curl -fsS -o "$tmp/response.json" -H 'Content-Type: application/x-www-form-urlencoded' \
  --data-binary @testdata/post.data http://127.0.0.1:19591/dsp/recbid
background taskset -c $server_cpu bin/bareserver -addr 127.0.0.1:19592 -body "$tmp/response.json"
background taskset -c $server_cpu bin/dspd -http fasthttp -addr 127.0.0.1:19595 -admin 127.0.0.1:16595 -log-level warn "${testdata_clock[@]}" -state memory
background taskset -c $server_cpu bin/bareserver -http fasthttp -addr 127.0.0.1:19596 -body "$tmp/response.json"
wait_http http://127.0.0.1:19592/ x
wait_http http://127.0.0.1:16595/readyz
wait_http http://127.0.0.1:19596/ x

args=(-t1 -c"$conns" -d"$duration" -s scripts/wrk-post.lua)
echo "warming up" >&2
wrk_rate http://127.0.0.1:19591/dsp/recbid "${args[@]}" >/dev/null
wrk_rate http://127.0.0.1:19593/dsp/recbid "${args[@]}" >/dev/null
wrk_rate http://127.0.0.1:19594/dsp/recbid "${args[@]}" >/dev/null
wrk_rate http://127.0.0.1:19592/ "${args[@]}" >/dev/null
wrk_rate http://127.0.0.1:19595/dsp/recbid "${args[@]}" >/dev/null
wrk_rate http://127.0.0.1:19596/ "${args[@]}" >/dev/null
d=() k=() s=() b=() f=() fb=()
for r in $(seq "$rounds"); do
  d+=("$(wrk_rate http://127.0.0.1:19591/dsp/recbid "${args[@]}")")
  k+=("$(wrk_rate http://127.0.0.1:19593/dsp/recbid "${args[@]}")")
  s+=("$(wrk_rate http://127.0.0.1:19594/dsp/recbid "${args[@]}")")
  b+=("$(wrk_rate http://127.0.0.1:19592/ "${args[@]}")")
  f+=("$(wrk_rate http://127.0.0.1:19595/dsp/recbid "${args[@]}")")
  fb+=("$(wrk_rate http://127.0.0.1:19596/ "${args[@]}")")
  echo "round $r: dspd memory ${d[-1]}, disk ${k[-1]}, disk -bid-window 0 ${s[-1]}, bare net/http ${b[-1]}," \
    "dspd -http fasthttp ${f[-1]}, bare fasthttp ${fb[-1]} req/s" >&2
done
md=$(median "${d[@]}") mk=$(median "${k[@]}") ms=$(median "${s[@]}") mb=$(median "${b[@]}")
mf=$(median "${f[@]}") mfb=$(median "${fb[@]}")

# Open loop at half the slowest rate (disk with -bid-window 0): the latency
# group commit adds. loadgen schedules each request and counts its latency
# from its scheduled time.
half=$(awk -v r="$ms" 'BEGIN {printf "%d", r/2}')
latency() { # URL -> "p50 p99" in ms
  taskset -c "$load_cpu" bin/loadgen -q -k -c "$conns" -rate "$half" -d "$duration" -p testdata/post.data \
    -T application/x-www-form-urlencoded "$1" | awk '$1 == "50%" {a=$2} $1 == "99%" {b=$2} END {print a, b}'
}
m50=() m99=() k50=() k99=() s50=() s99=()
for r in $(seq "$rounds"); do
  read -r a b < <(latency http://127.0.0.1:19591/dsp/recbid); m50+=("$a") m99+=("$b")
  read -r a b < <(latency http://127.0.0.1:19593/dsp/recbid); k50+=("$a") k99+=("$b")
  read -r a b < <(latency http://127.0.0.1:19594/dsp/recbid); s50+=("$a") s99+=("$b")
  echo "open loop round $r at $half req/s, p50/p99 ms: memory ${m50[-1]}/${m99[-1]}, disk ${k50[-1]}/${k99[-1]}, disk -bid-window 0 ${s50[-1]}/${s99[-1]}" >&2
done
echo
echo "wrk -t1 -c$conns -d$duration, keep-alive, POST testdata/post.data ($(wc -c <testdata/post.data) bytes) -> $(wc -c <"$tmp/response.json")-byte answer"
echo "servers on CPU $server_cpu (GOMAXPROCS 1; 2 with the disk state, docs/operations.md), wrk on CPU $load_cpu, $rounds alternating rounds, medians:"
printf '  %-34s %10s req/s\n' "dspd /dsp/recbid, memory" "$md" "dspd /dsp/recbid, disk" "$mk" \
  "dspd /dsp/recbid, disk -bid-window 0" "$ms" "bare net/http handler" "$mb" \
  "dspd -http fasthttp, memory" "$mf" "bare fasthttp handler" "$mfb"
awk -v a="$md" -v b="$mb" 'BEGIN {printf "  dspd chi (memory) / bare net/http = %.2f\n", a/b}'
awk -v a="$mf" -v b="$mfb" 'BEGIN {printf "  dspd fasthttp (memory) / bare fasthttp = %.2f\n", a/b}'
awk -v a="$mf" -v b="$md" 'BEGIN {printf "  dspd fasthttp / dspd chi       = %.2f\n", a/b}'
awk -v a="$mk" -v b="$md" 'BEGIN {printf "  dspd disk / memory             = %.2f\n", a/b}'
awk -v a="$ms" -v b="$md" 'BEGIN {printf "  dspd disk -bid-window 0 / memory = %.2f\n", a/b}'
echo "open loop at $half req/s (half the -bid-window 0 rate), loadgen -c$conns, latency from each scheduled send (coordinated omission corrected), medians of p50 / p99:"
printf '  %-34s %8s / %8s ms\n' "memory" "$(median "${m50[@]}")" "$(median "${m99[@]}")" \
  "disk" "$(median "${k50[@]}")" "$(median "${k99[@]}")" \
  "disk -bid-window 0" "$(median "${s50[@]}")" "$(median "${s99[@]}")"

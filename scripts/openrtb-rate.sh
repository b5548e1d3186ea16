#!/usr/bin/env bash
# openrtb-rate.sh: dspd's request rate on OpenRTB next to the form protocol,
# in one run: dspd on one CPU, loadgen on the other, alternating rounds, for
# the single request (post.data / openrtb/post.json) and the corpora
# (requests.txt / openrtb/requests.jsonl, the same requests both ways).
# Loopback only. Usage: scripts/openrtb-rate.sh [ROUNDS] [DURATION] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
rounds=${1:-3} duration=${2:-5s} conns=${3:-50}
cpus
go build -o bin/dspd ./cmd/dspd
go build -o bin/loadgen ./cmd/loadgen
trap stop_all EXIT
background taskset -c $server_cpu bin/dspd -addr 127.0.0.1:19599 -admin 127.0.0.1:16599 -log-level warn "${testdata_clock[@]}" -state memory
wait_http http://127.0.0.1:16599/readyz

rate() { loadgen_rate "http://127.0.0.1:19599$1" -k -c "$conns" -d "$duration" -T "$2" "${@:3}"; }
form=application/x-www-form-urlencoded json=application/json
for pair in "-p testdata/post.data|-p testdata/openrtb/post.json" "-corpus testdata/requests.txt|-corpus testdata/openrtb/requests.jsonl"; do
  f=${pair%%|*} o=${pair##*|}
  # shellcheck disable=SC2086
  rate /dsp/recbid $form $f >/dev/null # warm-up
  # shellcheck disable=SC2086
  rate /openrtb2/bid $json $o >/dev/null
  a=() b=()
  for i in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    a+=("$(rate /dsp/recbid $form $f)")
    # shellcheck disable=SC2086
    b+=("$(rate /openrtb2/bid $json $o)")
    echo "round $i: recbid ($f) ${a[-1]} req/s, openrtb ($o) ${b[-1]} req/s" >&2
  done
  ma=$(median "${a[@]}") mb=$(median "${b[@]}")
  printf '%-36s recbid %10s req/s   %-44s openrtb %10s req/s   openrtb/recbid %s\n' "$f" "$ma" "$o" "$mb" \
    "$(awk -v x="$mb" -v y="$ma" 'BEGIN {printf "%.2f", x/y}')"
done
echo "dspd on CPU $server_cpu (GOMAXPROCS 1), loadgen -k -c $conns -d $duration on CPU $load_cpu, medians of $rounds alternating rounds"

#!/usr/bin/env bash
# redis-rate.sh: the request rate of dspd with its state in Redis next to
# dspd with its state in memory, in one run: the servers (and redis-server)
# pinned to one CPU, loadgen on the other, alternating rounds. Loopback only.
# Usage: scripts/redis-rate.sh [ROUNDS] [DURATION] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
rounds=${1:-3} duration=${2:-5s} conns=${3:-50}
cpus
need_pkg redis-server redis-server
go build -o bin/dspd ./cmd/dspd
go build -o bin/loadgen ./cmd/loadgen
trap stop_all EXIT
background taskset -c $server_cpu redis-server --port 16380 --bind 127.0.0.1 --save '' --appendonly no --loglevel warning --logfile /dev/null
for _ in $(seq 50); do redis-cli -p 16380 ping >/dev/null 2>&1 && break; sleep 0.1; done
background taskset -c $server_cpu bin/dspd -addr 127.0.0.1:19596 -admin 127.0.0.1:16596 -log-level warn "${testdata_clock[@]}" -state memory
background taskset -c $server_cpu bin/dspd -addr 127.0.0.1:19597 -admin 127.0.0.1:16597 -log-level warn "${testdata_clock[@]}" -state redis://127.0.0.1:16380/0
wait_http http://127.0.0.1:16596/readyz
wait_http http://127.0.0.1:16597/readyz

rate() { loadgen_rate "$1" -k -c "$conns" -d "$duration" -T application/x-www-form-urlencoded "${@:2}"; }
for load in "-p testdata/post.data" "-corpus testdata/requests.txt"; do
  # shellcheck disable=SC2086
  rate http://127.0.0.1:19596/dsp/recbid $load >/dev/null # warm-up
  # shellcheck disable=SC2086
  rate http://127.0.0.1:19597/dsp/recbid $load >/dev/null
  m=() r=()
  for i in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    m+=("$(rate http://127.0.0.1:19596/dsp/recbid $load)")
    # shellcheck disable=SC2086
    r+=("$(rate http://127.0.0.1:19597/dsp/recbid $load)")
    echo "$load round $i: memory ${m[-1]} req/s, redis ${r[-1]} req/s" >&2
  done
  mm=$(median "${m[@]}") mr=$(median "${r[@]}")
  printf '%-32s memory %10s req/s   redis %10s req/s   redis/memory %s\n' "$load" "$mm" "$mr" \
    "$(awk -v a="$mr" -v b="$mm" 'BEGIN {printf "%.2f", a/b}')"
done
echo "dspd and redis-server on CPU $server_cpu (GOMAXPROCS 1), loadgen -k -c $conns -d $duration on CPU $load_cpu, medians of $rounds alternating rounds"

#!/usr/bin/env bash
# multicore.sh: what a second core costs or saves dspd per request, on each
# front end. This machine has two CPUs and the load needs one, so it measures
# efficiency, not scaling: dspd's CPU time per request (user + system, from
# /proc) at the same open-loop rate with GOMAXPROCS=1 (pinned to one CPU) and
# with GOMAXPROCS=2 (free to use both; loadgen stays on the second). A rise
# with 2 is the price of running in parallel: contention on shared locks and
# counters, cache lines moving between cores, more scheduler work.
# Loopback only. Usage: scripts/multicore.sh [ROUNDS] [DURATION] [RATE]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
rounds=${1:-3} duration=${2:-10s} rate=${3:-15000}
cpus
go build -o bin/dspd ./cmd/dspd
go build -o bin/loadgen ./cmd/loadgen
trap 'stop_all' EXIT
tck=$(getconf CLK_TCK)

port=19600
declare -A url pid
for front in chi fasthttp; do
  for procs in 1 2; do
    port=$((port + 1))
    cpuset=$server_cpu
    [ "$procs" = 2 ] && cpuset="$server_cpu,$load_cpu"
    GOMAXPROCS=$procs background taskset -c "$cpuset" bin/dspd -http "$front" -addr "127.0.0.1:$port" \
      -admin "127.0.0.1:$((port + 1000))" -log-level warn "${testdata_clock[@]}" -state memory
    pid[$front/$procs]=${pids[-1]}
    url[$front/$procs]="http://127.0.0.1:$port/dsp/recbid"
    wait_http "http://127.0.0.1:$((port + 1000))/readyz"
  done
done

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# run KEY: one open-loop run; prints "µs/request p99-ms"
run() {
  local before after out n p99
  before=$(cpu_ticks "${pid[$1]}")
  out=$(loadgen_out "${url[$1]}" -k -c 100 -rate "$rate" -d "$duration" -p testdata/post.data \
    -T application/x-www-form-urlencoded) || return 1
  after=$(cpu_ticks "${pid[$1]}")
  n=$(awk '/^Complete requests:/ {print $3}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  awk -v t=$((after - before)) -v hz="$tck" -v n="$n" -v p="$p99" 'BEGIN {printf "%.2f %s\n", t / hz * 1e6 / n, p}'
}

keys=(chi/1 chi/2 fasthttp/1 fasthttp/2)
echo "warming up" >&2
for k in "${keys[@]}"; do run "$k" >/dev/null; done
declare -A us p99
for r in $(seq "$rounds"); do
  line="round $r:"
  for k in "${keys[@]}"; do
    read -r a b < <(run "$k")
    us[$k]+="$a " p99[$k]+="$b "
    line+=" $k ${a} µs p99 ${b} ms;"
  done
  echo "$line" >&2
done
echo
echo "open loop at $rate req/s, loadgen -k -c100 -d$duration on CPU $load_cpu, POST testdata/post.data, $rounds alternating rounds, medians"
echo "dspd CPU time (user + system) per request; GOMAXPROCS=1 pinned to CPU $server_cpu, GOMAXPROCS=2 on CPUs $server_cpu,$load_cpu:"
for front in chi fasthttp; do
  # shellcheck disable=SC2086
  one=$(median ${us[$front/1]}) two=$(median ${us[$front/2]}) p1=$(median ${p99[$front/1]}) p2=$(median ${p99[$front/2]})
  awk -v f="$front" -v a="$one" -v b="$two" -v p="$p1" -v q="$p2" \
    'BEGIN {printf "  %-9s GOMAXPROCS=1 %6.2f µs (p99 %s ms)   GOMAXPROCS=2 %6.2f µs (p99 %s ms)   2/1 = %.2f\n", f, a, p, b, q, b/a}'
done

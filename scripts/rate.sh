#!/usr/bin/env bash
# rate.sh: the request rate of dspd next to a bare net/http server returning
# the same bytes, measured in one run: both servers pinned to CPU 0, wrk
# pinned to CPU 1, alternating rounds so that machine drift hits both alike.
# Loopback only. Usage: scripts/rate.sh [ROUNDS] [DURATION] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3} duration=${2:-5s} conns=${3:-50}
server_cpu=0 load_cpu=1
if [ "$(nproc)" -lt 2 ]; then server_cpu=0 load_cpu=0; echo "one CPU: server and load share it" >&2; fi

if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq wrk >/dev/null
  else echo "wrk is missing: apt-get install wrk" >&2; exit 1; fi
fi
go build -o bin/dspd ./cmd/dspd
go build -o bin/bareserver ./cmd/bareserver

tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

taskset -c $server_cpu bin/dspd -addr 127.0.0.1:19090 -admin 127.0.0.1:16060 -log-level warn &
pids+=($!)
for _ in $(seq 100); do curl -fsS -o /dev/null http://127.0.0.1:16060/readyz 2>/dev/null && break; sleep 0.1; done
# the bare server answers with the very bytes dspd gives post.data
curl -fsS -o "$tmp/response.json" -H 'Content-Type: application/x-www-form-urlencoded' \
  --data-binary @testdata/post.data http://127.0.0.1:19090/dsp/recbid
taskset -c $server_cpu bin/bareserver -addr 127.0.0.1:19191 -body "$tmp/response.json" &
pids+=($!)
for _ in $(seq 100); do curl -fsS -o /dev/null -d x http://127.0.0.1:19191/ 2>/dev/null && break; sleep 0.1; done

load() { # url -> requests/s; fails on any non-2xx or socket error
  local out
  out=$(taskset -c $load_cpu wrk -t1 -c"$conns" -d"$duration" -s scripts/wrk-post.lua "$1")
  if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then echo "$out" >&2; return 1; fi
  awk '/Requests\/sec/ {print $2}' <<<"$out"
}
echo "warming up" >&2
load http://127.0.0.1:19090/dsp/recbid >/dev/null
load http://127.0.0.1:19191/ >/dev/null
d=() b=()
for r in $(seq "$rounds"); do
  d+=("$(load http://127.0.0.1:19090/dsp/recbid)")
  b+=("$(load http://127.0.0.1:19191/)")
  echo "round $r: dspd ${d[-1]} req/s, bare net/http ${b[-1]} req/s" >&2
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
md=$(median "${d[@]}") mb=$(median "${b[@]}")
echo
echo "wrk -t1 -c$conns -d$duration, keep-alive, POST testdata/post.data ($(wc -c <testdata/post.data) bytes) -> $(wc -c <"$tmp/response.json")-byte answer"
echo "servers on CPU $server_cpu (GOMAXPROCS 1), wrk on CPU $load_cpu, $rounds alternating rounds, medians:"
printf '  %-22s %10s req/s\n' "dspd /dsp/recbid" "$md" "bare net/http handler" "$mb"
awk -v a="$md" -v b="$mb" 'BEGIN {printf "  dspd / bare = %.2f\n", a/b}'

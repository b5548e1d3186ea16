#!/usr/bin/env bash
# exchange-rate.sh: dspd's request rate on an exchange's own path, with an
# allow list and a bearer token to check on every request, next to the bare
# path of the open default exchange, in one run: dspd pinned to one CPU,
# wrk to the other, alternating rounds. Loopback only.
# Usage: scripts/exchange-rate.sh [ROUNDS] [DURATION] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
rounds=${1:-3} duration=${2:-5s} conns=${3:-50}
cpus
need_pkg wrk wrk
go build -o bin/dspd ./cmd/dspd
tmp=$(mktemp -d)
trap 'stop_all; rm -rf "$tmp"' EXIT

token=rate-test-token-0123456789
cat >"$tmp/exchanges.json" <<JSON
{"exchanges":[
  {"id":"default","price":{"encoding":"clear"}},
  {"id":"adx","allow":["127.0.0.1/32"],"token":"$token",
   "price":{"encoding":"hmac-sha1","e_key":"sIxwz7yw62yrfoLGt12lIHKuYrK_S5kLuApI2BQe7Ac=",
            "i_key":"v3fsVcMBMMHYzRhi7SpM0sdqwzvAxM6KPTu9OtVod5I=","unit":"cpm_micros"}}
]}
JSON
background taskset -c $server_cpu bin/dspd -addr 127.0.0.1:19598 -admin 127.0.0.1:16598 -log-level warn \
  -exchanges "$tmp/exchanges.json" "${testdata_clock[@]}" -state memory
wait_http http://127.0.0.1:16598/readyz

args=(-t1 -c"$conns" -d"$duration" -s scripts/wrk-post.lua)
auth=(-H "Authorization: Bearer $token")
echo "warming up" >&2
wrk_rate http://127.0.0.1:19598/dsp/recbid "${args[@]}" >/dev/null
wrk_rate http://127.0.0.1:19598/dsp/recbid/adx "${args[@]}" "${auth[@]}" >/dev/null
b=() x=()
for r in $(seq "$rounds"); do
  b+=("$(wrk_rate http://127.0.0.1:19598/dsp/recbid "${args[@]}")")
  x+=("$(wrk_rate http://127.0.0.1:19598/dsp/recbid/adx "${args[@]}" "${auth[@]}")")
  echo "round $r: bare path ${b[-1]} req/s, exchange path ${x[-1]} req/s" >&2
done
mb=$(median "${b[@]}") mx=$(median "${x[@]}")
echo
echo "wrk -t1 -c$conns -d$duration, keep-alive, POST testdata/post.data"
echo "dspd on CPU $server_cpu, wrk on CPU $load_cpu, $rounds alternating rounds, medians:"
printf '  %-46s %10s req/s\n' "/dsp/recbid (default: open, clear prices)" "$mb" \
  "/dsp/recbid/adx (allow list, bearer token)" "$mx"
awk -v a="$mx" -v b="$mb" 'BEGIN {printf "  exchange / bare = %.2f\n", a/b}'

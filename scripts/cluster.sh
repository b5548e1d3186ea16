#!/usr/bin/env bash
# cluster.sh: three dspd replicas sharing their state through Redis, behind
# nginx, all on loopback. `start` (make cluster) installs redis-server and
# nginx from Debian when missing (as root) and starts everything in the
# background; `stop` (make cluster-stop) stops it. Files in out/cluster/.
# With CLUSTER=1 (make cluster CLUSTER=1) the state is a Redis Cluster of
# three masters instead of one redis-server.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
dir=$PWD/out/cluster
redis_port=16379 front=19600
cluster_ports=(16381 16382 16383)
replicas=(19601 19602 19603)

stop_cluster() {
  [ -f "$dir/nginx.pid" ] && nginx -p "$dir/" -c "$dir/nginx.conf" -s quit 2>/dev/null || true
  for f in "$dir"/dspd-*.pid; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
  done
  for f in "$dir"/redis*.pid; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
  done
  rm -f "$dir"/nodes-*.conf
}

case "${1:-start}" in
stop)
  stop_cluster
  echo "cluster stopped"
  exit 0
  ;;
start) ;;
*) echo "usage: $0 [start|stop]" >&2; exit 2 ;;
esac

need_pkg redis-server redis-server
need_pkg nginx nginx
mkdir -p "$dir/logs"
stop_cluster
go build -o bin/dspd ./cmd/dspd
go build -o bin/loadgen ./cmd/loadgen

if [ "${CLUSTER:-0}" = 1 ]; then
  seeds=()
  for p in "${cluster_ports[@]}"; do
    redis-server --port "$p" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync always --dir "$dir" --appendfilename "redis-$p.aof" --appenddirname "aof-$p" --daemonize yes \
      --cluster-enabled yes --cluster-config-file "$dir/nodes-$p.conf" \
      --pidfile "$dir/redis-$p.pid" --logfile "$dir/redis-$p.log"
    for _ in $(seq 50); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done
    seeds+=("127.0.0.1:$p")
  done
  redis-cli --cluster create "${seeds[@]}" --cluster-replicas 0 --cluster-yes >"$dir/cluster-create.log"
  for p in "${cluster_ports[@]}"; do
    for _ in $(seq 100); do redis-cli -p "$p" cluster info | grep -q cluster_state:ok && break; sleep 0.1; done
  done
  state="redis-cluster://127.0.0.1:${cluster_ports[0]}?addr=127.0.0.1:${cluster_ports[1]}&addr=127.0.0.1:${cluster_ports[2]}"
  where="a Redis Cluster of three masters on ${cluster_ports[*]}"
else
  redis-server --port $redis_port --bind 127.0.0.1 --save '' --appendonly yes --appendfsync always --dir "$dir" --daemonize yes \
    --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
  for _ in $(seq 50); do redis-cli -p $redis_port ping >/dev/null 2>&1 && break; sleep 0.1; done
  state="redis://127.0.0.1:$redis_port/0"
  where="Redis on 127.0.0.1:$redis_port"
fi

for i in "${!replicas[@]}"; do
  port=${replicas[$i]} admin=$((16701 + i))
  nohup bin/dspd -addr 127.0.0.1:$port -admin 127.0.0.1:$admin -state "$state" \
    -public-url http://127.0.0.1:$front -campaigns testdata/campaigns.json "${testdata_clock[@]}" >"$dir/dspd-$port.log" 2>&1 &
  echo $! >"$dir/dspd-$port.pid"
  wait_http http://127.0.0.1:$admin/readyz
done

{
  echo "worker_processes 1;"
  echo "pid $dir/nginx.pid;"
  echo "error_log $dir/logs/error.log warn;"
  echo "events { worker_connections 4096; }"
  echo "http {"
  echo "  access_log off;"
  echo "  upstream dspd {"
  for port in "${replicas[@]}"; do echo "    server 127.0.0.1:$port;"; done
  echo "    keepalive 128;"
  echo "  }"
  echo "  server {"
  echo "    listen 127.0.0.1:$front;"
  echo "    location / {"
  echo "      proxy_pass http://dspd;"
  echo "      proxy_http_version 1.1;"
  echo "      proxy_set_header Connection \"\";"
  echo "    }"
  echo "  }"
  echo "}"
} >"$dir/nginx.conf"
nginx -p "$dir/" -c "$dir/nginx.conf"
wait_http "http://127.0.0.1:$front/dsp/recbid" >/dev/null 2>&1 || true

cat <<MSG
cluster up: nginx on 127.0.0.1:$front in front of dspd on ${replicas[*]}
(admin 127.0.0.1:16701-16703), state in $where.

  bin/loadgen -k -c 100 -d 10s -p testdata/post.data -T application/x-www-form-urlencoded http://127.0.0.1:$front/dsp/recbid
  curl -s 'http://127.0.0.1:16701/admin/stats?campaign=c-0790&day=2026-11-04'   # any replica sees every replica's books

Win notices (nurl) go to the front too, so they can land on any replica.
Logs and pid files in out/cluster/; make cluster-stop stops it all.
MSG

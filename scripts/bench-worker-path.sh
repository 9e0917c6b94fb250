#!/usr/bin/env bash
# What the gateway -> worker hop adds, with a real store behind the gateways: `bench-gateway --worker-model` on a
# throwaway PostgreSQL (Debian's, fsync on, on a free port) holding keys, usage and the worker registry, with the
# rate limit buckets in PostgreSQL (`postgres`) or in a throwaway redis-server (`redis`, `--redis`).
# Prints serve alone, one gateway -> worker and two gateways -> worker: p50, p99 and requests/s, then the same as
# table rows for docs/hosted.md.
# Usage: scripts/bench-worker-path.sh postgres|redis [bench-gateway options, e.g. --requests 1000 --rounds 3]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
backend="${1:-}"
case "$backend" in
  postgres|redis) shift ;;
  *) echo "usage: scripts/bench-worker-path.sh postgres|redis [bench-gateway options]" >&2; exit 2 ;;
esac
model="${INFERD_BENCH_MODEL:-../shared/fixtures/models/stories260K.gguf}"
[ -f "$model" ] || { echo "no $model: set INFERD_BENCH_MODEL to a small .gguf file" >&2; exit 1; }

pg_bin="$(dirname "$(command -v initdb 2>/dev/null || ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | tail -1)")"
[ -x "$pg_bin/initdb" ] || { echo "PostgreSQL's initdb is missing: apt-get install postgresql" >&2; exit 1; }
# PostgreSQL refuses to run as root: its files and process then belong to the postgres user.
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

work="$(mktemp -d)"
redis_pid=""
cleanup() {
  as_postgres "$pg_bin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
if [ "$(id -u)" = 0 ]; then chown postgres "$work"; fi

pg_port="$(free_port)"
as_postgres "$pg_bin/initdb" -D "$work/pg" -U inferd --auth=trust -E UTF8 >"$work/initdb.log" 2>&1 \
  || { cat "$work/initdb.log" >&2; exit 1; }
as_postgres "$pg_bin/pg_ctl" -D "$work/pg" -l "$work/pg/server.log" -w \
  -o "-p $pg_port -k $work -c listen_addresses=127.0.0.1" start >/dev/null
database="jdbc:postgresql://127.0.0.1:$pg_port/postgres?user=inferd"

args=(--database "$database")
if [ "$backend" = redis ]; then
  redis="$(scripts/test-redis.sh)"
  redis_port="$(free_port)"
  "$redis" --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$redis_port") 2>/dev/null; then break; fi
    sleep 0.1
  done
  args+=(--redis "redis://127.0.0.1:$redis_port")
fi
echo "== $("$pg_bin/postgres" --version), limits in $backend"
./inferd bench-gateway --worker-model "$model" "${args[@]}" "$@"

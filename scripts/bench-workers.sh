#!/usr/bin/env bash
# Aggregate tokens/s of two synthetic models (smollm2-135m shapes, Q8_0, random weights) through one gateway:
# both models on one worker, then one model on each of two workers. Every process runs on this machine, so two
# workers share its cores: the figures show the routing's cost and balance, not a second machine's capacity.
# The last lines compare the two phases' aggregate tokens/s per concurrency, as rows of docs/hosted.md's table.
# Usage: scripts/bench-workers.sh [bench-serve options, e.g. --concurrency 4,8 --max-tokens 32]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
await_health() {
  for _ in $(seq 1 600); do
    if curl -fs "http://127.0.0.1:$1/health" >/dev/null; then return 0; fi
    sleep 0.2
  done
  echo "port $1 never answered" >&2; exit 1
}
await_ready() {
  for _ in $(seq 1 600); do
    if curl -fs "http://127.0.0.1:$1/ready" >/dev/null; then return 0; fi
    sleep 0.2
  done
  echo "port $1 never became ready" >&2; exit 1
}

export INFERD_HOME="$work" INFERD_WORKER_SECRET="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export INFERD_OPERATOR_TOKEN="bench-operator-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
db="jdbc:sqlite:$work/inferd.db"
./inferd bench --write-synthetic smollm2-135m:Q8_0 "$work/a.gguf" >/dev/null
./inferd bench --write-synthetic smollm2-135m:Q8_0 "$work/b.gguf" >/dev/null
./inferd accounts create bench --database "$db" >/dev/null
export BENCH_KEY="$(./inferd keys create --account bench --name bench --database "$db" | sed -n 2p)"

gateway_port="$(free_port)"
./inferd gateway --database "$db" --port "$gateway_port" --worker-ttl 3s >"$work/gateway.log" 2>&1 &
pids+=($!)

start_worker() { # name; sets $worker_pid
  local port; port="$(free_port)"
  ./inferd worker --database "$db" --port "$port" --worker-id "$1" --heartbeat 500ms --offline >"$work/$1.log" 2>&1 &
  worker_pid=$!
  pids+=("$worker_pid")
  await_ready "$port"
}
warm() { # model: one request, so that it is loaded before the measurement
  curl -fs -o /dev/null -H "Authorization: Bearer $BENCH_KEY" -H 'Content-Type: application/json' \
    -d "{\"model\":\"$1\",\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}" \
    "http://127.0.0.1:$gateway_port/v1/chat/completions"
}

await_health "$gateway_port"
# the catalog first: a worker reads it when it starts
for m in a b; do
  curl -fs -o /dev/null -H "Authorization: Bearer $INFERD_OPERATOR_TOKEN" -H 'Content-Type: application/json' \
    -d "{\"id\":\"synth-$m\",\"file\":\"$work/$m.gguf\"}" "http://127.0.0.1:$gateway_port/admin/v1/models"
done
start_worker w1
w1="$worker_pid"
await_ready "$gateway_port"
warm synth-a; warm synth-b
echo "== one worker, both models"
./inferd bench-serve --url "http://127.0.0.1:$gateway_port/v1" --model synth-a,synth-b --api-key-env BENCH_KEY "$@" | tee "$work/one.txt"

kill "$w1"; wait "$w1" 2>/dev/null || true
sleep 4 # the gateway drops the stopped worker
start_worker w2
await_ready "$gateway_port" # the gateway has read the registry since
warm synth-a
sleep 2 # the registry shows synth-a on w2, so the next load goes to the worker with the most free budget
start_worker w3
sleep 2 # the gateway reads the registry a few times per --worker-ttl
warm synth-b
echo "== two workers, one model each"
./inferd bench-serve --url "http://127.0.0.1:$gateway_port/v1" --model synth-a,synth-b --api-key-env BENCH_KEY "$@" | tee "$work/two.txt"

# bench-serve's rows: concurrency, requests, errors, tokens, aggregate tokens/s, ...
echo
echo "| concurrency | one worker, both models (tokens/s) | two workers, one model each (tokens/s) | two / one |"
awk 'FNR == 1 { phase++ }
     $1 ~ /^[0-9]+$/ { tps[phase, $1] = $5; errors[phase, $1] = $3; if (phase == 1) order[++n] = $1 }
     END {
       for (i = 1; i <= n; i++) {
         c = order[i]; a = tps[1, c]; b = tps[2, c]
         note = (errors[1, c] + errors[2, c] > 0) ? sprintf(" (errors: %d / %d)", errors[1, c], errors[2, c]) : ""
         printf "| %s | %s | %s | %.2f%s |\n", c, a, b, (a > 0 ? b / a : 0), note
       }
     }' "$work/one.txt" "$work/two.txt"

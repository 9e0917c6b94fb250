#!/usr/bin/env bash
# Cold start: the time from the command to the port answering and to the first chat answer, for
# `inferd serve` and, given its path, llama-server on the same GGUF file; and under `inferd cloud`, the
# time from a request for a model not loaded yet to its answer. Runs alternate between the servers (the
# order reversed every other round) and the medians are printed with the load average.
#
#   scripts/cold-start.sh [--runs N] [--cold] [--llama-server PATH [--llama-arg ARG]...] [--compare-with LAUNCHER] [--no-cloud] [--max-tokens N] FILE.gguf
#
# --compare-with runs `serve` from another build's launcher (e.g. a copy of ./inferd beside its jar and
# jvm.options) in the same alternating rounds: before and after a change, on a machine too busy for
# absolute figures.
#
# --cold drops the page cache before every start (root only; it slows every process on the machine for
# a moment): the model file and the decode copies are then read from disk. Without it the file is in
# the page cache, as after a restart. inferd uses its copy cache ($INFERD_HOME/copies) either way; the
# first start on a new file builds the copies, so run the script once before measuring.
#
# Besides the times from the command, every run prints how long the first answered request itself took
# and the same request sent right after it (the first must run at full speed: about the same), and the
# CPU seconds the server process had used by its first answer, a figure a busy machine disturbs far less
# than the times.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

runs=3 cold=false llama="" other="" cloud=true max_tokens=8 llama_args=()
while [ $# -gt 1 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --cold) cold=true; shift ;;
    --llama-server) llama=$2; shift 2 ;;
    --llama-arg) llama_args+=("$2"); shift 2 ;; # e.g. -nr where the CPU's AMX tiles trap under a VM
    --compare-with) other=$2; shift 2 ;;
    --no-cloud) cloud=false; shift ;;
    --max-tokens) max_tokens=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] && [ -f "$1" ] || { sed -n 7p "$0" | cut -c3- >&2; exit 2; }
file="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
id="$(basename "$file" .gguf)"
work="$(mktemp -d /tmp/inferd-cold-start.XXXXXX)"
pid=""
cleanup() { if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi; rm -rf "$work"; }
trap cleanup EXIT

now() { date +%s.%N; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
drop_caches() { if $cold; then sync; echo 3 > /proc/sys/vm/drop_caches; fi; }
body() { printf '{"model":"%s","messages":[{"role":"user","content":"Hello there"}],"max_tokens":%d,"temperature":0,"stream":true}' "$1" "$max_tokens"; }

# CPU seconds process $1 has used so far (its threads, those ended included).
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / hz}' "/proc/$1/stat"; }

# Polls GET /v1/models until the server answers at all (any status), then a chat completion until it
# answers 200; prints "port_seconds answer_seconds first_request_seconds first_tokens_per_second
# next_request_seconds next_tokens_per_second cpu_seconds": the first two since $1, then how long the answered
# request took and how fast it generated, the same for the same request sent right after it (its prompt then
# comes from the prefix cache, so it takes less time; its generation must not be faster), then the server's
# CPU seconds at its first answer. Until the server listens curl gets no answer (000); while the model loads
# and warms up, 503.
until_answer() {
  local start=$1 url=$2 model=$3 auth=${4:-} listening code took rate
  until [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 300 "$url/v1/models" || true)" != 000 ]; do sleep 0.02; done
  listening=$(now)
  for _ in $(seq 1 30000); do
    read -r code took rate <<<"$(chat "$url" "$model" "$auth")"
    if [ "$code" = 200 ]; then
      local end cpu next; end=$(now); cpu=$(cpu_seconds "$pid")
      next=$(chat "$url" "$model" "$auth")
      echo "$(echo "$listening - $start" | bc) $(echo "$end - $start" | bc) $took $rate ${next#* } $cpu"
      return 0
    fi
    case "$code" in 000|503) sleep 0.02 ;; *) echo "unexpected HTTP $code: $(cat "$work/out")" >&2; return 1 ;; esac
  done
  echo "no answer" >&2; return 1
}

# One streamed chat completion; prints "status seconds tokens_per_second", the last from the arrival times of
# its content chunks (one a token): how fast it generated, its prompt left out.
chat() {
  local t0=$EPOCHREALTIME t1 code rate
  { curl -sN --max-time 300 -X POST "$1/v1/chat/completions" -H 'Content-Type: application/json' \
      ${3:+-H "Authorization: Bearer $3"} -d "$(body "$2")" -w '\nstatus %{http_code}\n' || true; } \
    | while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done >"$work/out"
  t1=$EPOCHREALTIME
  code=$(awk '$2 == "status" {c = $3} END {print c ? c : "000"}' "$work/out")
  rate=$(awk '$2 == "data:" && $0 ~ /"content":"[^"]/ {n++; if (n == 1) f = $1; l = $1}
              END {if (n > 1 && l > f) printf "%.2f", (n - 1) / (l - f); else print "-"}' "$work/out")
  echo "$code $(echo "$t1 - $t0" | bc) $rate"
}

stop_server() { kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=""; }

# `serve` from launcher $1 (this checkout's by default), its output in $work/$2.log
run_inferd() {
  local launcher=${1:-$here/inferd} name=${2:-inferd}
  local port; port=$(free_port); drop_caches
  local start; start=$(now)
  "$launcher" serve --model "$file" --port "$port" --offline --parallel 1 --ctx 4096 >"$work/$name.log" 2>&1 &
  pid=$!
  until_answer "$start" "http://127.0.0.1:$port" "$id" || { cat "$work/$name.log" >&2; exit 1; }
  stop_server
}

run_llama() {
  local port; port=$(free_port); drop_caches
  local start; start=$(now)
  "$llama" -m "$file" --port "$port" -np 1 -c 4096 "${llama_args[@]}" >"$work/llama.log" 2>&1 &
  pid=$!
  until_answer "$start" "http://127.0.0.1:$port" "$id" || { tail -5 "$work/llama.log" >&2; exit 1; }
  stop_server
}

# A fresh cloud process whose catalog lists the file; once /ready answers, the first request for it.
run_cloud() {
  local port; port=$(free_port)
  "$here/inferd" cloud --config "$work/cloud.json" --port "$port" --offline --parallel 1 --ctx 4096 \
    --load-wait 300s >"$work/cloud.log" 2>&1 &
  pid=$!
  until curl -sf -o /dev/null "http://127.0.0.1:$port/ready"; do sleep 0.05; done
  drop_caches
  local start; start=$(now)
  until_answer "$start" "http://127.0.0.1:$port" cold-start-model "$key" | cut -d' ' -f2- || { cat "$work/cloud.log" >&2; exit 1; }
  stop_server
}

median() { sort -g | awk '{a[NR]=$1} END {printf "%.2f\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

if $cloud; then
  printf '{"database": "jdbc:sqlite:%s/cloud.db", "models": [{"id": "cold-start-model", "file": "%s"}]}\n' "$work" "$file" >"$work/cloud.json"
  "$here/inferd" accounts create --config "$work/cloud.json" cold-start >/dev/null 2>&1
  key=$("$here/inferd" keys create --config "$work/cloud.json" --account cold-start 2>/dev/null | grep -o 'sk-[A-Za-z0-9_-]*' | head -1)
fi

echo "file $file, $runs runs, $($cold && echo 'page cache dropped before every start' || echo 'file in the page cache')"
echo "columns: server, port answering (s), first answer (s), that request (s) and its tokens/s, the next request (s) and its"
echo "  tokens/s, CPU by the first answer (s); for cloud: request to answer (s), that request (s) and its tokens/s, the next (s)"
echo "  and its tokens/s, CPU of the process by then (s); load average before the run"
# an unmeasured start first: the launcher's class archive, the copy cache and the page cache
run_inferd >/dev/null
if [ -n "$other" ]; then run_inferd "$other" other >/dev/null; fi
for r in $(seq 1 "$runs"); do
  order="inferd other llama"; [ $((r % 2)) -eq 0 ] && order="llama other inferd"
  for which in $order; do
    case $which in
      inferd) l=$(load); t=$(run_inferd); echo "inferd-serve $t  (load $l)"; echo "$t" >>"$work/inferd.t"
              grep -o 'warm-up in .*' "$work/inferd.log" | sed 's/^/  /' || true ;;
      other) [ -n "$other" ] || continue
             l=$(load); t=$(run_inferd "$other" other); echo "compared-serve $t  (load $l)"; echo "$t" >>"$work/other.t"
             grep -o 'warm-up in .*' "$work/other.log" | sed 's/^/  /' || true ;;
      llama) [ -n "$llama" ] || continue
             l=$(load); t=$(run_llama); echo "llama-server $t  (load $l)"; echo "$t" >>"$work/llama.t" ;;
    esac
  done
  if $cloud; then l=$(load); t=$(run_cloud); echo "inferd-cloud request-to-answer $t  (load $l)"; echo "$t" >>"$work/cloud.t"; fi
done

col() { cut -d' ' -f"$1" "$2" | median; }
# the medians of the columns from $2 on of file $1: that request, its tokens/s, the next, its tokens/s, CPU
requests() {
  local c=$2
  echo "that request $(col "$c" "$1") s at $(col $((c + 1)) "$1") tokens/s, the next $(col $((c + 2)) "$1") s at" \
    "$(col $((c + 3)) "$1") tokens/s; CPU $(col $((c + 4)) "$1") s"
}
echo "medians:"
mi=$(col 2 "$work/inferd.t")
echo "  inferd serve: port $(col 1 "$work/inferd.t") s, first answer $mi s; $(requests "$work/inferd.t" 3)"
if [ -n "$other" ]; then
  mo=$(col 2 "$work/other.t")
  echo "  compared serve ($other): port $(col 1 "$work/other.t") s, first answer $mo s; $(requests "$work/other.t" 3)"
  echo "  ratio inferd / compared (first answer): $(echo "scale=2; $mi / $mo" | bc)," \
    "(CPU): $(echo "scale=2; $(col 7 "$work/inferd.t") / $(col 7 "$work/other.t")" | bc)"
fi
if [ -n "$llama" ]; then
  ml=$(col 2 "$work/llama.t")
  echo "  llama-server: port $(col 1 "$work/llama.t") s, first answer $ml s; $(requests "$work/llama.t" 3)"
  echo "  ratio inferd / llama-server (first answer): $(echo "scale=2; $mi / $ml" | bc)"
fi
if $cloud; then
  mc=$(col 1 "$work/cloud.t")
  echo "  inferd cloud, request for an unloaded model to its answer: $mc s; $(requests "$work/cloud.t" 2)"
  [ -n "$llama" ] && echo "  ratio cloud / llama-server (command to first answer): $(echo "scale=2; $mc / $ml" | bc)"
fi
echo "load average at the end: $(load)"

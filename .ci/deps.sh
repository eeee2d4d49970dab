#!/usr/bin/env bash
# Installs, with apt, the Debian packages the tests need that are missing.
# Idempotent: a machine that has them all is left alone (no apt-get update).
set -euo pipefail

# command:package pairs; a package is needed when its command is missing.
cmds=(gcc:gcc make:make node:nodejs xdotool:xdotool brotli:brotli parallel:parallel qemu-aarch64:qemu-user)
# package-only entries, checked with dpkg: cgo headers for ebiten's desktop
# build, Xvfb for the window tests, Chromium for the page test. (xdotool, a
# command above, types keys into the window; brotli compresses the page in
# `make web`; GNU parallel runs the scale-out recipe's test; qemu-aarch64
# runs the arm64 golden tests of `make test-arm64`.)
pkgs=(libc6-dev libgl1-mesa-dev libx11-dev libxcursor-dev libxi-dev libxinerama-dev
  libxrandr-dev libxxf86vm-dev xvfb xauth chromium)

need=()
for pair in "${cmds[@]}"; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair#*:}")
done
for pkg in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || need+=("$pkg")
done
if [ "${#need[@]}" -eq 0 ]; then
  exit 0
fi
echo "installing: ${need[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
# Seen on these machines: a package's scripts can leave /dev/null a plain
# file, which breaks cgo builds. Put the device back.
if [ ! -c /dev/null ]; then
  $SUDO rm -f /dev/null
  $SUDO mknod -m 666 /dev/null c 1 3
fi

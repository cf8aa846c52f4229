#!/usr/bin/env bash
# Installs every Debian 12 package mroce-cts needs to build, test and run (idempotent).
set -euo pipefail
pkgs=(
  build-essential cmake ninja-build pkg-config git clang libclang-rt-14-dev
  libgtest-dev libgmock-dev zlib1g-dev libpcap-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
  pybind11-dev python3-dev python3-scapy python3-pytest python3-jinja2 python3-matplotlib
  libssl-dev libarchive-dev zstd tshark dpdk-dev libdpdk-dev iproute2 chromium stress-ng libxml2-utils python3-yaml
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
# tshark asks whether non-root users may capture; answer no without a prompt.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"

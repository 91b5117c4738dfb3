#!/usr/bin/env bash
# Installs the Debian 12 packages Endstop builds and tests with, if any is missing (needs root).
set -euo pipefail
packages=(cmake ninja-build g++ qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqcustomplot-dev libsundials-dev
          libsuitesparse-dev libboost-graph-dev libsimdjson-dev xvfb xauth imagemagick
          pybind11-dev python3-dev python3-numpy python3-distributed slurm-wlm munge)
packages+=("$@")   # what a caller needs besides (bench/run.sh: python3-scipy, for SciPy's LSODA)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

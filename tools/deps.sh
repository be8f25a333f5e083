#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages the project needs, only the missing ones.
# As root it runs apt-get; otherwise it prints the exact command and fails.
# With every package installed it does nothing, as any user.
# `deps.sh fuzz` installs what make fuzz needs besides: clang with libFuzzer and the sanitizers'
# runtimes (libclang-rt-14-dev), and llvm-symbolizer (llvm-14) for their reports.
set -euo pipefail
packages=(g++ cmake make ninja-build verilator yosys iverilog libfmt-dev nlohmann-json3-dev
          libgtest-dev libbenchmark-dev libcli11-dev libyaml-cpp-dev gnuplot-nox jq ccache
          qflow-tech-osu018 opensta qflow)
case "${1:-}" in
  "") ;;
  fuzz) packages=(clang-14 libclang-rt-14-dev llvm-14) ;;
  *) echo "deps: unknown group '$1'; allowed: fuzz (or nothing: the project's packages)" >&2
     exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "deps: missing Debian packages: ${missing[*]}" >&2
  echo "deps: install them as root, then run make again:" >&2
  echo "  sudo sh -c '$cmd'" >&2
  exit 1
fi
echo "deps: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Orizuru against the plain top-k baseline at the same N and k: cycles per token,
# comparators and comparisons from the manifest, Yosys generic cells and flip-flops with the
# hierarchy kept. Runs oasis-bench-orizuru of BUILD_DIR (sim/tools/oasis-bench.cpp, which
# says what it measures; `BUILD_DIR/oasis-bench-orizuru --help`).
# usage: tools/bench_orizuru.sh BUILD_DIR [N ...]   (default N: 64 256 1024 4096)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: tools/bench_orizuru.sh BUILD_DIR [N ...]" >&2; exit 2; }
build=$1
shift
exec "$(dirname "$0")/build_command.sh" oasis-bench-orizuru --build "$build" "$@"

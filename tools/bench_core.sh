#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The generated core at a paper-size config in Verilator (configs/paper.json unless CONFIG is
# given), LINES PE lines (default: the config's): every cycle and output checked; build time,
# GEMM phase against docs/spec.md's bound (at most +2 %), simulated cycles a second. Runs
# oasis-bench-core of BUILD_DIR (sim/tools/oasis-bench.cpp; `BUILD_DIR/oasis-bench-core
# --help`).
# usage: tools/bench_core.sh BUILD_DIR [LINES] [CONFIG]
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 3 ] ||
  { echo "usage: tools/bench_core.sh BUILD_DIR [LINES] [CONFIG]" >&2; exit 2; }
args=(--build "$1")
[ -z "${2:-}" ] || args+=(--lines "$2")
[ -z "${3:-}" ] || args+=(--config "$3")
exec "$(dirname "$0")/build_command.sh" oasis-bench-core "${args[@]}"

#!/usr/bin/env bash
# The generated core at the paper's parameters (configs/paper.json) in
# Verilator: builds it with LINES PE lines (default 16, the paper's), runs one
# token of 256 * LINES rows (256 groups, as a 1 x 4096 x 4096 GEMM on 16
# lines) checked against the cycle model and the golden model, and prints the
# build time, the token's pre-processing and GEMM phase against docs/spec.md
# section 6's bound, and the simulated cycles a second. The lines work in lock-step,
# so the GEMM phase depends on the number of groups only: fewer lines give the
# same figures on a machine too small for sixteen.
# usage: tools/bench_core.sh BUILD_DIR [LINES]
set -euo pipefail
build=${1:?usage: tools/bench_core.sh BUILD_DIR [LINES]}
lines=${2:-16}
case "$lines" in
  ''|*[!0-9]*) echo "bench_core: LINES must be a positive number of PE lines, not '$lines'" >&2; exit 2 ;;
esac
[ "$lines" -ge 1 ] || { echo "bench_core: LINES must be at least 1" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
label="paper_p$lines"
sets=()
[ "$lines" = 16 ] && label=paper || sets=(--set "pe_lines=$lines")
start=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! CORE_BENCH_ROWS=$((256 * lines)) "$root/sim/vltest" --build "$build" --block core \
    --config "$root/configs/paper.json" --label "$label" "${sets[@]}" >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "bench_core: the run failed (build folder: $build/vl/core/$label)" >&2
  exit 1
fi
end=$(date +%s)
echo "== core, paper parameters, $lines PE line(s), K = 4096, $((256 * lines)) rows"
echo "build and run: $((end - start)) s wall (Verilator build of $build/vl/core/$label plus the run)"
grep -E '^(measured|simulated|PASS)' "$log"

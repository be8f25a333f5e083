#!/usr/bin/env bash
# The generated core at a paper-size config in Verilator (configs/paper.json unless
# CONFIG is given): builds it with LINES PE lines (default: the config's), runs the
# directed tokens and one token of a seeded synthetic LLM-like layer of K * LINES / P
# rows (K / P groups: at the paper's config one 1 x 4096 x 4096 GEMM on 16 lines), every
# cycle checked against the cycle model and every output against the golden model, and
# prints the build time, the token's pre-processing and GEMM phase against docs/spec.md
# section 6's bound, and the simulated cycles a second. The lines work in lock-step, so
# the GEMM phase depends on the number of groups only: fewer lines give the same
# figures on a machine too small for all of them. Large designs are built
# hierarchically and in their behavioural form (sim/vltest, docs/core.md).
# Fails when the run fails or the GEMM phase is more than 2 % above the bound.
# usage: tools/bench_core.sh BUILD_DIR [LINES] [CONFIG]
set -euo pipefail
usage="usage: tools/bench_core.sh BUILD_DIR [LINES] [CONFIG]"
build=${1:?$usage}
lines=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
config=${3:-$root/configs/paper.json}
[ -f "$config" ] || { echo "bench_core: no config file '$config'" >&2; exit 2; }
query() { "$build/oasis-gen" --query "$config" "$1"; }
name=$(query name)
k=$(query channels)
p=$(query pe_lines)
lines=${lines:-$p}
case "$lines" in
  ''|*[!0-9]*) echo "bench_core: LINES must be a positive number of PE lines, not '$lines'" >&2; exit 2 ;;
esac
[ "$lines" -ge 1 ] || { echo "bench_core: LINES must be at least 1" >&2; exit 2; }
rows=$(( (k + p - 1) / p * lines ))
label=$name
sets=()
[ "$lines" = "$p" ] || { label="${name}_p$lines"; sets=(--set "pe_lines=$lines"); }
start=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! CORE_BENCH_ROWS=$rows "$root/sim/vltest" --build "$build" --block core \
    --config "$config" --label "$label" "${sets[@]}" >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "bench_core: the run failed (build folder: $build/vl/core/$label)" >&2
  exit 1
fi
end=$(date +%s)
echo "== core, config $name, $lines PE line(s), K = $k, $rows rows"
echo "build and run: $((end - start)) s wall (Verilator build of $build/vl/core/$label plus the run)"
grep -E '^(measured|simulated|PASS)' "$log"
# The GEMM phase against the bound, as the testbench printed it: "lower bound B (+x.xx %)".
over=$(sed -n 's/^measured: .*lower bound [0-9]* (\([-+][0-9.]*\) %).*/\1/p' "$log")
[ -n "$over" ] || { echo "bench_core: the testbench printed no GEMM phase" >&2; exit 1; }
awk -v o="$over" 'BEGIN { exit !(o <= 2.0) }' ||
  { echo "bench_core: GEMM phase ${over} % above the bound; allowed: at most +2 %" >&2; exit 1; }

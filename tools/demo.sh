#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make demo: the product's main job on one config, in minutes. The golden
# model's analytic figures for the config and its output error against FP32 on
# synthetic data (INT4, NU4, NU4 with outliers); then oasis-gen writes its RTL,
# Verilator lints the core, and the whole core runs in Verilator
# on a seeded synthetic LLM-like layer quantized by the model, every output and
# every cycle compared with the model, while Yosys synthesizes the core for its
# area. Prints a summary: the core bit-exact or not, its cycles against the
# cycle lower bound, its output error against FP32 next to INT4, its Yosys
# area. The per-block Verilator checks and the Yosys check of every block are
# make test's.
# usage: tools/demo.sh BUILD_DIR CONFIG_JSON
set -euo pipefail
build=${1:?usage: tools/demo.sh BUILD_DIR CONFIG_JSON}
config=${2:?usage: tools/demo.sh BUILD_DIR CONFIG_JSON}
root=$(cd "$(dirname "$0")/.." && pwd)
label=$(basename "$config" .json)
out="$build/$label/rtl"
start=$(date +%s)
echo "== golden model: the paper's analytic figures for this config"
"$build/oasis-model" analyze --config "$config"
echo
echo "== golden model: output error against FP32 on synthetic LLM-like data"
"$build/oasis-model" report --config "$config" --seed "${SEED:-1}"
echo
echo "== oasis-gen: $config -> $out"
"$build/oasis-gen" --config "$config" --out "$out"
# Yosys on the core (about two CPU minutes for the default config) runs beside the lint and
# the Verilator run, on the other core.
# Its logs go beside the generated folder, which holds only what oasis-gen wrote.
mkdir -p "$out.yosys"
yosys_log="$out.yosys/yosys_core.demo.out"
"$build/oasis-synthcheck" --rtl "$out" core >"$yosys_log" 2>&1 &
yosys_pid=$!
trap 'kill "$yosys_pid" 2>/dev/null || true' EXIT
# The core is every module of the design but the baselines and the FP units' stand-alone
# wrappers; make lint and make test's Verilator builds lint every block.
echo "== lint: the core"
"$root/tools/lint.sh" "$out" core
echo
echo "== the core in Verilator on a seeded synthetic LLM-like layer, quantized by the model:" \
  "4 tokens x 64 rows"
core_log=$(CORE_BENCH_ROWS=64 CORE_BENCH_TOKENS=4 "$root/sim/vltest" --build "$build" --block core \
  --config "$config" --label "demo_$label") || { echo "$core_log"; exit 1; }
echo "$core_log" | grep -E '^(measured|simulated|error|PASS|FAIL)'
echo
echo "== yosys: the core"
yosys_ok=1
wait "$yosys_pid" || yosys_ok=0
trap - EXIT
cat "$yosys_log"
cells="" ffs=""
if [ $yosys_ok = 1 ]; then
  cells=$(grep -E '^ +Number of cells: +[0-9]+' "$out.yosys/yosys_core.log" | tail -n 1 | awk '{print $4}')
  ffs=$(awk '/design hierarchy/{h=1; n=0} h && /\$_S?DFF/{n+=$2} END{print n+0}' "$out.yosys/yosys_core.log")
fi
echo
echo "== summary for config '$label' (seed ${SEED:-1})"
pass=$(echo "$core_log" | grep -E '^PASS' || true)
echo "  core, bit-exact against the golden model: $([ -n "$pass" ] && echo yes || echo NO) ($(echo "$core_log" | sed -n 's/.*measured:.*, \([0-9]*\) outputs checked.*/\1/p') outputs compared, of four directed tokens and the synthetic layer, every cycle against the cycle model)"
echo "  core cycles: $(echo "$core_log" | sed -n 's/^measured: //p')"
echo "  core output error: $(echo "$core_log" | sed -n 's/^error against FP32 //p')"
if [ $yosys_ok = 1 ]; then
  echo "  core area (Yosys generic cells, hierarchy kept): ${cells:-?} cells, ${ffs} flip-flops"
else
  echo "  core area: Yosys FAILED (log: $out.yosys/yosys_core.log)"
fi
echo "  generated files: $(grep -vc '^//' "$out/files.f") sources in $out"
echo "  this script: $(( $(date +%s) - start )) s (the per-block checks are make test's)"
[ -n "$pass" ] && [ $yosys_ok = 1 ]

#!/usr/bin/env bash
# make demo: the golden model's analytic figures and output error for a
# config, then generate its RTL, lint it, synthesize it, run the Verilator
# checks of its blocks against the model, and run the whole core on a seeded
# synthetic LLM-like layer quantized by the model; print a short summary: the
# core bit-exact or not, its cycles against docs/spec.md section 6's bound, its output
# error against FP32 next to INT4, its Yosys area.
# usage: tools/demo.sh BUILD_DIR CONFIG_JSON
set -euo pipefail
build=${1:?usage: tools/demo.sh BUILD_DIR CONFIG_JSON}
config=${2:?usage: tools/demo.sh BUILD_DIR CONFIG_JSON}
root=$(cd "$(dirname "$0")/.." && pwd)
label=$(basename "$config" .json)
out="$build/$label/rtl"
echo "== golden model: the paper's analytic figures for this config"
"$build/oasis-model" analyze --config "$config"
echo
echo "== golden model: output error against FP32 on synthetic LLM-like data"
"$build/oasis-model" report --config "$config" --seed "${SEED:-1}"
echo
echo "== oasis-gen: $config -> $out"
rm -f "$out"/yosys_*.log   # left inside by older versions of tools/yosys_check.sh
"$build/oasis-gen" --config "$config" --out "$out"
echo "== lint"
"$root/tools/lint.sh" "$out"
echo "== yosys"
"$root/tools/yosys_check.sh" "$out"
echo "== Verilator checks against the model"
summary=()
for sweep in "$root"/sim/sweeps/*.txt; do
  name=$(basename "$sweep" .txt)
  case "$name" in *.*) continue ;; esac   # regress / exhaustive sweeps are not the demo
  line=$("$root/sim/vltest" --build "$build" --block "$name" --config "$config" --label "demo_$label" | tail -n 1)
  echo "$line"
  summary+=("$line")
done
echo
echo "== the core on a seeded synthetic LLM-like layer, quantized by the model: 4 tokens x 64 rows"
core_log=$(CORE_BENCH_ROWS=64 CORE_BENCH_TOKENS=4 "$root/sim/vltest" --build "$build" --block core \
  --config "$config" --label "demo_$label")
echo "$core_log" | grep -E '^(measured|simulated|error|PASS|FAIL)'
cells=$(grep -E '^ +Number of cells: +[0-9]+' "$out.yosys/yosys_core.log" | tail -n 1 | awk '{print $4}')
ffs=$(awk '/design hierarchy/{h=1; n=0} h && /\$_S?DFF/{n+=$2} END{print n+0}' "$out.yosys/yosys_core.log")
echo
echo "== summary for config '$label' (seed ${SEED:-1})"
printf '  %s\n' "${summary[@]}"
pass=$(echo "$core_log" | grep -E '^PASS' || true)
echo "  core, bit-exact against the golden model: $([ -n "$pass" ] && echo yes || echo NO) ($(echo "$core_log" | sed -n 's/.*measured:.*, \([0-9]*\) outputs checked.*/\1/p') outputs of the synthetic layer compared, every cycle against the cycle model)"
echo "  core cycles: $(echo "$core_log" | sed -n 's/^measured: //p')"
echo "  core output error: $(echo "$core_log" | sed -n 's/^error against FP32 //p')"
echo "  core area (Yosys generic cells, hierarchy kept): ${cells:-?} cells, ${ffs} flip-flops"
echo "  generated files: $(grep -vc '^//' "$out/files.f") sources in $out"

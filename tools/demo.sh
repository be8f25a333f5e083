#!/usr/bin/env bash
# make demo: the golden model's analytic figures and output error for a
# config, then generate its RTL, lint it, synthesize it, and run the Verilator
# checks of its blocks against the model; print a short summary.
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
echo "== summary for config '$label' (seed ${SEED:-1})"
printf '  %s\n' "${summary[@]}"
echo "  generated files: $(grep -vc '^//' "$out/files.f") sources in $out"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make demo: the product's main job on one config, in minutes. The golden
# model's analytic figures for the config and its output error against FP32 on
# synthetic data (INT4, NU4, NU4 with outliers); then oasis-gen writes its RTL,
# and the whole core runs in Verilator (built with -Wall: the lint) on a seeded
# synthetic LLM-like layer quantized by the model, every output and every cycle
# compared with the model, while Yosys synthesizes the core for its area. A large
# core (the paper config's) is built the way make regress builds it: Verilator
# hierarchically, the PE line one model verilated once, and Yosys hierarchically,
# the PE line synthesized once and counted once an instance. Prints a summary: the
# core bit-exact or not, its cycles against the cycle lower bound, its output
# error against FP32 next to INT4, its Yosys area. The per-block Verilator checks
# and the Yosys check of every block are make test's.
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
# Yosys on the core (75 CPU seconds for the default config) runs beside the Verilator build
# and run, on the other core. Hierarchically: the stream contract's check, which flattens the
# design, is the yosys.* tests' of make test. Its logs go beside the generated folder, which
# holds only what oasis-gen wrote.
# Each of the two runs in a process group of its own (set -m), which a failed or stopped demo
# (Ctrl-C, or a signal to this script alone) stops whole, with every tool it started; bash's
# wait returns at once on a signal, where a command in the foreground would be waited for.
groups=()
stop_groups() { for g in "${groups[@]}"; do kill -- -"$g" 2>/dev/null || true; done; }
trap stop_groups EXIT
trap 'exit 130' INT TERM HUP
mkdir -p "$out.yosys"
yosys_log="$out.yosys/yosys_core.demo.out"
set -m
"$build/oasis-synthcheck" --rtl "$out" --stat --no-contract core >"$yosys_log" 2>&1 &
yosys_pid=$!
groups+=("$yosys_pid")
set +m
echo "== the core in Verilator on a seeded synthetic LLM-like layer, quantized by the model:" \
  "4 tokens x 64 rows"
# Verilator builds the core with -Wall and no waivers, so the build is the core's lint (make
# lint and make test lint every block); a hierarchical build waives UNOPTFLAT alone, the loops
# it sees through its opaque blocks (sim/tools/oasis-vltest.cpp). --cxx-opt 0: the C++ compiles
# in a third of the time at -O1, and the run is a few thousand cycles.
summary="$(cd "$build" && pwd)/demo_$label.summary.json"
core_log="$build/demo_$label.vltest.out"
rm -f "$summary" "$core_log"
set -m
"$root/sim/vltest" --build "$build" --block core --config "$config" --label "demo_$label" \
  --cxx-opt 0 -- --workload --workload-tokens 4 --workload-rows 64 --summary "$summary" \
  >"$core_log" 2>&1 &
groups+=("$!")
set +m
wait "$!" || { cat "$core_log"; exit 1; }
grep -E '^(measured|simulated|error|workload|PASS|FAIL)' "$core_log"
echo "lint: the core clean under Verilator -Wall (its build above)"
echo
echo "== yosys: the core"
yosys_ok=1
wait "$yosys_pid" || yosys_ok=0
trap - EXIT INT TERM HUP
cat "$yosys_log"
# The figures, from the testbench's and Yosys's JSON summaries.
q() { "$build/oasis-gen" --query "$@"; }
f() { q "$summary" "figures.$1"; }
echo
echo "== summary for config '$label' (seed ${SEED:-1})"
pass=$(q "$summary" pass)
echo "  core, bit-exact against the golden model: $([ "$pass" = true ] && echo yes || echo NO)" \
  "($(f outputs_checked) outputs compared, of the synthetic layer's four tokens," \
  "every cycle against the cycle model)"
printf '  core cycles: GEMM phase %s for %s rows on %s line(s), lower bound %s (%+.2f %%);' \
  "$(f gemm_cycles)" "$(f gemm_rows)" "$(f pe_lines)" "$(f gemm_lower_bound)" \
  "$(f gemm_over_bound_percent)"
echo " token pre-processing $(f preprocess_cycles) cycles"
printf '  core output error against FP32 (%s tokens x %s rows): OASIS RTL W%sA%s SQNR %.2f dB,' \
  "$(f error_against_fp32.tokens)" "$(f error_against_fp32.rows)" \
  "$(f error_against_fp32.weight_bits)" "$(f error_against_fp32.act_bits)" \
  "$(f error_against_fp32.oasis_rtl_sqnr_db)"
printf ' INT round-to-nearest %.2f dB\n' "$(f error_against_fp32.int_rtn_sqnr_db)"
if [ $yosys_ok = 1 ]; then
  stat="$out.yosys/stat_core.json"
  echo "  core area (Yosys generic cells, flattened): $(q "$stat" cells) cells," \
    "$(q "$stat" flip_flops) flip-flops"
else
  echo "  core area: Yosys FAILED (log: $out.yosys/yosys_core.log)"
fi
echo "  generated files: $(q "$out/manifest.json" files | grep -c '\.sv$') sources in $out"
echo "  this script: $(( $(date +%s) - start )) s (the per-block checks are make test's)"
[ "$pass" = true ] && [ $yosys_ok = 1 ]

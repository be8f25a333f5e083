#!/usr/bin/env bash
# make prove: formal proofs of generated blocks with Yosys's built-in SAT solver
# (sat, miter, equiv_*; no external solver). What each proof states, its bounds and
# its run time: docs/formal.md. Every proof also runs on a copy of the RTL (or of
# the lemma) with a bug injected on purpose, and that run must end with a
# counterexample; a proof whose bug goes unnoticed is a failure.
# Everything is written under BUILD_DIR/prove (RTL, Yosys scripts, logs).
# usage: tools/prove.sh [-j JOBS] BUILD_DIR [NAME_PATTERN...]
#   NAME_PATTERN: shell patterns; only the proofs whose name matches one run.
# environment: PROVE_TIMEOUT (seconds per Yosys run, default 1800).
set -euo pipefail

usage() { echo "usage: tools/prove.sh [-j JOBS] BUILD_DIR [NAME_PATTERN...]" >&2; exit 2; }
jobs=1
while [ $# -gt 0 ]; do
  case "$1" in
    -j) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || usage
case "$jobs" in ''|*[!0-9]*|0) echo "prove: -j wants a positive integer, got '$jobs'" >&2; exit 2 ;; esac
build=$(cd "$1" && pwd)
shift
patterns=("$@")
root=$(cd "$(dirname "$0")/.." && pwd)
formal="$root/verif/formal"
gen="$build/oasis-gen"
out="$build/prove"
timeout_s=${PROVE_TIMEOUT:-1800}
[ -x "$gen" ] || { echo "prove: no generator at $gen (run make build first)" >&2; exit 1; }
command -v yosys >/dev/null || { echo "prove: yosys not found (make deps installs it)" >&2; exit 1; }
mkdir -p "$out"

# ---------------------------------------------------------------- configs
# gen_config NAME key=value...: generate configs/default.json with overrides into
# $out/rtl/NAME (quietly; the generator validates the config).
declare -A CONFIG_SETS=()   # NAME -> its overrides, for mutant
gen_config() {
  local name=$1
  shift
  CONFIG_SETS[$name]="$*"
  local sets=(--set "name=$name")
  local kv
  for kv in "$@"; do sets+=(--set "$kv"); done
  "$gen" --config "$root/configs/default.json" "${sets[@]}" --out "$out/rtl/$name" >/dev/null
}

# manifest DIR SECTION KEY: a scalar of the manifest's object SECTION (a block name,
# "config" or "derived").
# Read through oasis-gen's reader, which names a missing key.
manifest() {
  local path
  case $2 in
    config | derived) path=$2.$3 ;;
    *) path=blocks.$2.$3 ;;
  esac
  "$gen" --query "$1/manifest.json" "$path"
}

# Paths in the Yosys scripts are absolute and in double quotes, so that the
# project and the build folder may lie where a path holds a space
# (tools/yosys_paths.sh, docs/paths.md).
. "$root/tools/yosys_paths.sh"
# srcs DIR BLOCK: the block's sources, absolute, from its file list.
srcs() { yosys_sources "$1" "$2"; }
# form_defines RTL FORM: the read_verilog option that selects FORM of the RTL in folder RTL,
# -D and the generator's behavioural macro for `behavioural`, nothing for `structural`.
form_defines() {
  [ "$2" = behavioural ] || return 0
  local macro
  macro=$("$gen" --query "$1/manifest.json" behavioural_macro) || return 1
  echo "-D$macro"
}
# fv FILE...: files of verif/formal.
fv() {
  local f words=() IFS=' '
  for f in "$@"; do words+=("$(yosys_word "$formal/$f")"); done
  echo "${words[*]}"
}

# mutant CFG BUG DST_DIR: config CFG generated again with the bug BUG injected by the
# generator (oasis-gen --mutate BUG; oasis-gen --mutations lists them). Fails when the
# generator refuses (an unknown bug, or one the config has no construct for) or when no
# source file changed. (The kinds run under `if !`, where errexit is off: every step
# checks itself.)
mutant() {
  local cfg=$1 bug=$2 dst=$3 kv
  local sets=(--set "name=$cfg")
  for kv in ${CONFIG_SETS[$cfg]}; do sets+=(--set "$kv"); done
  rm -rf "$dst"
  "$gen" --config "$root/configs/default.json" "${sets[@]}" --mutate "$bug" --out "$dst" \
    >/dev/null || return 1
  if diff -r -q -I '^// Regenerate: ' -I '^//   --' -x manifest.json "$out/rtl/$cfg" "$dst" >/dev/null; then
    echo "prove: injecting $bug changed no source of config $cfg" >&2
    return 1
  fi
}

# Yosys command lines shared by the proofs. The design read with -sv, wrappers and
# specifications with -formal; flatten, asynchronous resets modelled as synchronous
# (async2sync: the reset acts in the cycle it is asserted), and the usual word-level
# simplifications before the SAT solver.
PREP="prep -top top_placeholder; flatten; async2sync; opt_clean; opt -full; wreduce; peepopt; opt_clean"
prep_for() { echo "${PREP//top_placeholder/$1}"; }
SHOW="-show-inputs -show-outputs"

# ---------------------------------------------------------------- proof kinds
# Each kind writes the Yosys script of a proof (good run) and of its bug variant into
# the proof's folder: prove.ys and bug*.ys (one per injected bug).

# comparator CFG: the comparator block against oasis_spec_comparator, all 2^32 pairs.
kind_comparator() {
  local dir=$1 cfg=$2 rtl="$out/rtl/$2"
  local top="oasis_${cfg}_comparator"
  body() {
    cat <<EOF
read_verilog -sv $(fv oasis_spec_order_key.sv oasis_spec_comparator.sv)
read_verilog -sv $(srcs "$1" comparator)
hierarchy -check
proc; flatten
miter -equiv -flatten -make_outputs oasis_spec_comparator $top miter
hierarchy -top miter
sat -verify -prove trigger 0 $SHOW miter
EOF
  }
  body "$rtl" >"$dir/prove.ys"
  mutant "$cfg" comparator.magnitude_ge "$dir/bug_rtl" || return 1
  body "$dir/bug_rtl" >"$dir/bug.ys"
}

# clustering CFG: the Clustering Unit's first beat after reset, free handshake, any
# boundaries; its index is the bracket of x (see oasis_formal_clustering_unit.sv).
kind_clustering() {
  local dir=$1 cfg=$2 rtl="$out/rtl/$2"
  local na lanes lat steps
  na=$(manifest "$rtl" config act_bits) || return 1
  lanes=$(manifest "$rtl" config clustering_lanes) || return 1
  lat=$(manifest "$rtl" clustering_unit latency_cycles) || return 1
  steps=$((lat + 3))   # reset, the beat accepted in cycle 2 or 3, presented Latency later
  body() {
    cat <<EOF
read_verilog -sv $(srcs "$1" clustering_unit)
read_verilog -sv -formal -DOASIS_DUT=oasis_${cfg}_clustering_unit $(fv oasis_spec_order_key.sv oasis_spec_cluster_bracket.sv oasis_formal_clustering_unit.sv)
hierarchy -check -top oasis_formal_clustering_unit -chparam ActBits $na -chparam Lanes $lanes -chparam Latency $lat
$(prep_for oasis_formal_clustering_unit)
sat -verify -tempinduct-baseonly -maxsteps $steps -prove-asserts -set-assumes $SHOW -show boundaries,x_q,idx_data oasis_formal_clustering_unit
EOF
  }
  body "$rtl" >"$dir/prove.ys"
  # x equal to b_j goes down instead of up
  mutant "$cfg" clustering_unit.equal_goes_down "$dir/bug_rtl" || return 1
  body "$dir/bug_rtl" >"$dir/bug.ys"
}

# cluster_lemmas: the bracket is the count #{ j : x >= b_j } for ascending boundaries,
# nA = 1..4 (oasis_formal_cluster_count.sv). Bug variants: each lemma without its
# premise (Broken = 1) must fail.
kind_cluster_lemmas() {
  local dir=$1
  local read="read_verilog -sv -formal $(fv oasis_spec_order_key.sv oasis_spec_cluster_bracket.sv oasis_formal_cluster_count.sv)"
  order() {
    printf '%s\n' "design -reset" "$read" \
      "hierarchy -top oasis_formal_cluster_order -chparam Broken $1" \
      "prep -top oasis_formal_cluster_order; flatten" \
      "sat -verify -prove-asserts -set-assumes -show-inputs oasis_formal_cluster_order"
  }
  count() {
    printf '%s\n' "design -reset" "$read" \
      "hierarchy -top oasis_formal_cluster_count -chparam ActBits $1 -chparam Broken $2" \
      "prep -top oasis_formal_cluster_count; flatten" \
      "sat -verify -prove-asserts -set-assumes -show-inputs oasis_formal_cluster_count"
  }
  { order 0; count 1 0; count 2 0; count 3 0; count 4 0; } >"$dir/prove.ys"
  order 1 >"$dir/bug_order.ys"
  count 4 1 >"$dir/bug_count.ys"
}

# orizuru CFG OUTLIERS FREE [behavioural]: the first OUTLIERS pops of each side of the
# first token; with `behavioural`, of the RTL read with the generator's behavioural macro
# defined (the trees the paper-size core is simulated with), against the same bugs.
kind_orizuru() {
  local dir=$1 cfg=$2 outliers=$3 free=$4 rtl="$out/rtl/$2" form=${5:-structural}
  local n r cb build beats drain steps defines=""
  n=$(manifest "$rtl" config channels) || return 1
  r=$(manifest "$rtl" orizuru beat_activations) || return 1
  cb=$(manifest "$rtl" orizuru channel_bits) || return 1
  build=$(manifest "$rtl" orizuru build_latency_cycles) || return 1
  beats=$(manifest "$rtl" orizuru beats_per_token) || return 1
  drain=$(manifest "$rtl" orizuru drain_cycles) || return 1
  steps=$((1 + beats + build + drain))          # reset, load, build, the pops
  [ "$free" = 1 ] && steps=$((steps + 2))        # room for two stalls
  defines=$(form_defines "$rtl" "$form") || return 1
  body() {
    cat <<EOF
read_verilog -sv $defines $(srcs "$1" orizuru)
read_verilog -sv -formal -DOASIS_DUT=oasis_${cfg}_orizuru -DOASIS_CMP=oasis_${cfg}_comparator $(fv oasis_formal_topk_tree.sv oasis_formal_orizuru.sv)
hierarchy -check -top oasis_formal_orizuru -chparam Channels $n -chparam BeatLanes $r -chparam Outliers $outliers -chparam ChanBits $cb -chparam BuildCycles $build -chparam FreeHandshake $free
$(prep_for oasis_formal_orizuru)
sat -verify -tempinduct-baseonly -maxsteps $steps -prove-asserts -set-assumes $SHOW -show token,out_data,want_chan,pops_q oasis_formal_orizuru
EOF
  }
  body "$rtl" >"$dir/prove.ys"
  # the min tree's leaf level breaks ties to the left (lower channel)
  mutant "$cfg" orizuru.min_ties_left "$dir/bug_rtl" || return 1
  body "$dir/bug_rtl" >"$dir/bug.ys"
  if [ "$outliers" -ge 2 ]; then
    # a popped leaf that is the left one of its pair stays available, which only the
    # second pop of a side can show
    mutant "$cfg" orizuru.left_pop_lost "$dir/bug_pop_rtl" || return 1
    body "$dir/bug_pop_rtl" >"$dir/bug_pop.ys"
  fi
}

# topk_lemmas CFG: for the config's N, the tournament of the Orizuru proof equals the
# same tournament on order keys and the linear scan, both sides, every mask.
kind_topk_lemmas() {
  local dir=$1 cfg=$2 rtl="$out/rtl/$2"
  local n cb
  n=$(manifest "$rtl" config channels) || return 1
  cb=$(manifest "$rtl" orizuru channel_bits) || return 1
  body() {
    local broken=$1 side
    for side in 0 1; do
      if [ "$broken" = 0 ]; then
        cat <<EOF
design -reset
read_verilog -sv $(yosys_word "$rtl/oasis_${cfg}_comparator.sv")
read_verilog -sv -formal -DOASIS_CMP=oasis_${cfg}_comparator $(fv oasis_spec_order_key.sv oasis_formal_topk_tree.sv oasis_spec_topk_tree.sv oasis_spec_topk_scan.sv oasis_formal_topk_lemmas.sv)
hierarchy -check -top oasis_formal_topk_tree_keys -chparam Channels $n -chparam ChanBits $cb -chparam MinSide $side
prep -top oasis_formal_topk_tree_keys; flatten; opt -full
sat -verify -prove-asserts -show-inputs oasis_formal_topk_tree_keys
EOF
      fi
      cat <<EOF
design -reset
read_verilog -sv -formal $(fv oasis_spec_topk_tree.sv oasis_spec_topk_scan.sv oasis_formal_topk_lemmas.sv)
hierarchy -top oasis_formal_topk_tree_scan -chparam Channels $n -chparam ChanBits $cb -chparam MinSide $side -chparam Broken $broken
prep -top oasis_formal_topk_tree_scan; flatten; opt -full
sat -verify -prove-asserts -show-inputs oasis_formal_topk_tree_scan
EOF
      [ "$broken" = 1 ] && break
    done
  }
  body 0 >"$dir/prove.ys"
  # the scan breaks max-side ties to the higher channel
  body 1 >"$dir/bug.ys"
}

# index_counter CFG [behavioural]: a one-beat row's counts against a popcount of the beat;
# with `behavioural`, of the RTL read with the generator's behavioural macro defined (the
# loop the paper-size core is simulated with), whose only bug variant is then the extent's.
kind_index_counter() {
  local dir=$1 cfg=$2 rtl="$out/rtl/$2" form=${3:-structural}
  local g b k w t chunks lat beats steps defines=""
  g=$(manifest "$rtl" derived indices_per_cycle) || return 1
  b=$(manifest "$rtl" derived concat_index_bits) || return 1
  k=$(manifest "$rtl" config channels) || return 1
  w=$(manifest "$rtl" index_counter_array count_bits) || return 1
  t=$(manifest "$rtl" config mac_tree_inputs) || return 1
  chunks=$(manifest "$rtl" index_counter_array chunks_per_row) || return 1
  lat=$(manifest "$rtl" index_counter_array latency_cycles) || return 1
  beats=$(manifest "$rtl" index_counter_array beats_per_row) || return 1
  [ "$beats" = 1 ] || { echo "prove: config $cfg has $beats beats a row; the proof wants one" >&2; return 1; }
  steps=$((2 + lat + chunks))   # reset, the row accepted in cycle 2 or 3, its chunks
  defines=$(form_defines "$rtl" "$form") || return 1
  body() {
    cat <<EOF
read_verilog -sv $defines $(srcs "$1" index_counter_array)
read_verilog -sv -formal -DOASIS_DUT=oasis_${cfg}_index_counter_array $(fv oasis_formal_index_counter_array.sv)
hierarchy -check -top oasis_formal_index_counter_array -chparam Positions $g -chparam IdxBits $b -chparam Channels $k -chparam CountBits $w -chparam Tree $t -chparam Chunks $chunks -chparam Latency $lat
$(prep_for oasis_formal_index_counter_array)
sat -verify -tempinduct-baseonly -maxsteps $steps -prove-asserts -set-assumes $SHOW -show data_q,mask_q,cnt_data,want_chunk oasis_formal_index_counter_array
EOF
  }
  body "$rtl" >"$dir/prove.ys"
  mutant "$cfg" index_counter_array.extent_one_beyond "$dir/bug_rtl" || return 1
  body "$dir/bug_rtl" >"$dir/bug.ys"
  [ "$form" = behavioural ] && return 0
  mutant "$cfg" index_counter_array.tree_carry_dropped "$dir/bug_carry_rtl" || return 1
  body "$dir/bug_carry_rtl" >"$dir/bug_carry.ys"
}

# index_counter_adders CFG: the config's compressor tree module at every size 1 .. 32 against
# a popcount, and its counting-bank adder at widths 2 .. 13 against a + b
# (oasis_formal_index_counter_adders.sv); CFG must have rows of several beats.
kind_index_counter_adders() {
  local dir=$1 cfg=$2 rtl="$out/rtl/$2"
  local top=oasis_formal_index_counter_adders
  local tree="oasis_${cfg}_index_counter_array_tree" add="oasis_${cfg}_index_counter_array_add"
  body() {
    cat <<EOF
read_verilog -sv $1/oasis_fa.sv $1/oasis_ha.sv $1/$tree.sv $1/$add.sv
read_verilog -sv -formal -DOASIS_TREE=$tree -DOASIS_ADD=$add $formal/$top.sv
hierarchy -check -top $top
prep -top $top; flatten; opt_clean; opt -full
sat -verify -prove-asserts -show-inputs $top
EOF
  }
  body "$rtl" >"$dir/prove.ys"
  mutant "$cfg" index_counter_array.tree_carry_dropped "$dir/bug_tree_rtl" || return 1
  body "$dir/bug_tree_rtl" >"$dir/bug_tree.ys"
  mutant "$cfg" index_counter_array.bank_carry_dropped "$dir/bug_add_rtl" || return 1
  body "$dir/bug_add_rtl" >"$dir/bug_add.ys"
}

# equiv CFG BLOCK: the block's RTL against its own Yosys netlist (synth -flatten, as
# tools/yosys_check.sh makes it). Registers are matched by name; every other internal
# name of the netlist is hidden, so only ports and registers are equivalence points.
kind_equiv() {
  local dir=$1 cfg=$2 block=$3 rtl="$out/rtl/$2"
  local top="oasis_${cfg}_${block}"
  body() {
    cat <<EOF
read_verilog -sv $(srcs "$1" "$block")
hierarchy -check -top $top
proc; flatten; async2sync; opt_clean
rename $top gold
design -stash gold
read_verilog -sv $(srcs "$2" "$block")
synth -flatten -top $top
rename $top gate
select -set keep gate/i:* gate/o:* %u gate/t:\$_*DFF* gate/t:\$*dff* %u %co:+[Q] gate/w:* %i %u
rename -hide gate/w:* @keep %d
async2sync
design -stash gate
design -copy-from gold -as gold gold
design -copy-from gate -as gate gate
equiv_make gold gate equiv
hierarchy -top equiv
equiv_simple -seq 5
equiv_induct -seq 5
equiv_status -assert
EOF
  }
  body "$rtl" "$rtl" >"$dir/prove.ys"
  local bug
  case "$block" in
    comparator) bug=comparator.magnitude_ge ;;
    clustering_unit) bug=clustering_unit.equal_goes_down ;;
    index_counter_array) bug=index_counter_array.extent_one_beyond ;;
    fp16_add|fp16_mul) bug=fp_round.ties_away ;;
    *) echo "prove: no injected bug for block $block" >&2; return 1 ;;
  esac
  # the netlist of a broken RTL against the intact RTL
  mutant "$cfg" "$bug" "$dir/bug_rtl" || return 1
  body "$rtl" "$dir/bug_rtl" >"$dir/bug.ys"
}

# ---------------------------------------------------------------- the proofs
# name | kind and arguments. Configs are generated below from configs/default.json.
PROOFS=(
  "comparator|comparator cu2"
  "clustering_unit.na1|clustering cu1"
  "clustering_unit.na2|clustering cu2"
  "clustering_unit.na3|clustering cu3"
  "clustering_unit.na4|clustering cu4"
  "clustering_unit.na4_2levels|clustering cu4l2"
  "clustering_unit.count_lemmas|cluster_lemmas"
  "orizuru.n2_k1|orizuru oz2 1 1"
  "orizuru.n4_k1|orizuru oz4 1 1"
  "orizuru.n6_k1|orizuru oz6 1 0"
  "orizuru.n8_k1|orizuru oz8 1 0"
  "orizuru.n8_k2|orizuru oz8k2 2 0"
  "orizuru.n16_k1|orizuru oz16 1 0"
  "orizuru.n8_k2_t130|orizuru oz8k2t130 2 0"
  "orizuru.n8_k2_t80|orizuru oz8k2t80 2 0"
  "orizuru.n8_k2_t50|orizuru oz8k2t50 2 0"
  "orizuru.n8_k2_c3|orizuru oz8k2c3 2 0"
  "orizuru.n6_k1.behavioural|orizuru oz6 1 0 behavioural"
  "orizuru.n8_k2.behavioural|orizuru oz8k2 2 0 behavioural"
  "orizuru.n8_k2_c3.behavioural|orizuru oz8k2c3 2 0 behavioural"
  "orizuru.scan_lemmas.n2|topk_lemmas oz2"
  "orizuru.scan_lemmas.n4|topk_lemmas oz4"
  "orizuru.scan_lemmas.n6|topk_lemmas oz6"
  "orizuru.scan_lemmas.n8|topk_lemmas oz8"
  "orizuru.scan_lemmas.n16|topk_lemmas oz16"
  "index_counter_array.c1_i16|index_counter ic1"
  "index_counter_array.c2_i16|index_counter ic2"
  "index_counter_array.c1_i16_stage|index_counter ic1s"
  "index_counter_array.c1_i16.behavioural|index_counter ic1 behavioural"
  "index_counter_array.c2_i16.behavioural|index_counter ic2 behavioural"
  "index_counter_array.adders|index_counter_adders ic3"
  "netlist.comparator|equiv cu2 comparator"
  "netlist.clustering_unit|equiv cu2 clustering_unit"
  "netlist.index_counter_array|equiv ic1 index_counter_array"
  "netlist.fp16_add|equiv cu2 fp16_add"
  "netlist.fp16_add_t50|equiv fp50 fp16_add"
)

selected() {
  [ ${#patterns[@]} -eq 0 ] && return 0
  local p
  for p in "${patterns[@]}"; do
    # shellcheck disable=SC2053
    [[ $1 == $p ]] && return 0
  done
  return 1
}

gen_configs() {
  local ic=(outliers_per_side=1 counter_inputs=16 clustering_lanes=1)
  local oz=(clustering_lanes=1 outliers_per_side=1)
  local oz8k2=(clustering_lanes=1 outliers_per_side=2 channels=8 orizuru_unit_inputs=2 weight_beat_indices=8)
  gen_config cu1 act_bits=1 clustering_lanes=2
  gen_config cu2 act_bits=2 clustering_lanes=2
  gen_config cu3 act_bits=3 clustering_lanes=2
  gen_config cu4 act_bits=4 clustering_lanes=2
  gen_config cu4l2 act_bits=4 clustering_lanes=2 clustering_levels_per_stage=2
  gen_config oz2 "${oz[@]}" channels=2 orizuru_unit_inputs=2 weight_beat_indices=2
  gen_config oz4 "${oz[@]}" channels=4 orizuru_unit_inputs=2 weight_beat_indices=4
  gen_config oz6 "${oz[@]}" channels=6 orizuru_unit_inputs=4 weight_beat_indices=6
  gen_config oz8 "${oz[@]}" channels=8 orizuru_unit_inputs=4 weight_beat_indices=8
  gen_config oz8k2 "${oz8k2[@]}"
  gen_config oz16 "${oz[@]}" channels=16 orizuru_unit_inputs=4 weight_beat_indices=16
  # N = 8 in pairs, 3 levels: at the three clock targets a pop over 1, 1 and 2 cycles; over
  # 3, one level a cycle, with the gaps between a side's outliers
  gen_config oz8k2t130 "${oz8k2[@]}" target_period_fo4=130
  gen_config oz8k2t80 "${oz8k2[@]}" target_period_fo4=80
  gen_config oz8k2t50 "${oz8k2[@]}" target_period_fo4=50
  gen_config oz8k2c3 "${oz8k2[@]}" orizuru_pop_cycles=3
  # one counter, K = 12 of G = 16 positions (the extent mask), E = 4, two chunks
  gen_config ic1 "${ic[@]}" channels=12 index_counters=1 act_bits=1 weight_bits=1 mac_tree_inputs=2 weight_beat_indices=12
  # two counters added, K = 28 of G = 32, E = 4, two chunks
  gen_config ic2 "${ic[@]}" channels=28 index_counters=2 act_bits=1 weight_bits=1 mac_tree_inputs=2 weight_beat_indices=28
  # one counter, K = 40: three beats a row, so the counting bank's adder is generated
  gen_config ic3 "${ic[@]}" channels=40 index_counters=1 act_bits=1 weight_bits=1 mac_tree_inputs=2 weight_beat_indices=40
  # ic1 with the register before the decoders (the clock target's input stage)
  gen_config ic1s "${ic[@]}" channels=12 index_counters=1 act_bits=1 weight_bits=1 mac_tree_inputs=2 weight_beat_indices=12 index_counter_input_stage=1
  # fp16_add with the 4 stages of 50 FO4, registers inside the unit
  gen_config fp50 act_bits=2 clustering_lanes=2 target_period_fo4=50
}

# run_yosys SCRIPT LOG: 0 when Yosys ran to the end, 1 when it stopped.
# Implicit nets, undriven nets, logic loops and conflicting drivers are errors, in
# the design as in the wrappers (an undriven net would be a free input of the proof).
run_yosys() {
  timeout "$timeout_s" yosys -q -e 'implicitly declared|no driver|logic loop|conflicting' \
    -l "$2" -s "$1" >/dev/null 2>&1
}

# expect_proof SCRIPT LOG: every sat / equiv_status of the script succeeded.
expect_proof() {
  run_yosys "$1" "$2" || return 1
  local want got
  want=$(grep -c -E '^(sat |equiv_status)' "$1")
  got=$(grep -c -E 'SUCCESS!|Equivalence successfully proven' "$2" || true)
  [ "$want" -gt 0 ] && [ "$got" -ge "$want" ] && ! grep -q 'FAIL!' "$2"
}

# expect_counterexample SCRIPT LOG: Yosys stopped because a proof found a
# counterexample (not for any other error).
expect_counterexample() {
  if run_yosys "$1" "$2"; then return 1; fi
  # shellcheck disable=SC2016
  grep -q -E 'model found.*FAIL!|unproven \$equiv cells' "$2"
}

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# run_proof NAME PROOF: writes $out/NAME/result: "NAME PASS|FAIL seconds note".
run_proof() {
  local name=$1 spec=$2
  local dir="$out/$name"
  rm -rf "$dir"
  mkdir -p "$dir"
  local kind args
  read -r kind args <<<"$spec"
  # shellcheck disable=SC2086
  if ! "kind_$kind" "$dir" $args 2>"$dir/setup.err"; then
    echo "$name FAIL 0.0 setup failed: $(tr '\n' ' ' <"$dir/setup.err")" >"$dir/result"
    return
  fi
  local t0 t1 t2 status=PASS note
  t0=$(now)
  if expect_proof "$dir/prove.ys" "$dir/prove.log"; then
    note="proven"
  else
    status=FAIL
    note="NOT proven (log: $dir/prove.log)"
  fi
  t1=$(now)
  local bug_ok=1 script
  for script in "$dir"/bug*.ys; do
    if ! expect_counterexample "$script" "${script%.ys}.log"; then
      bug_ok=0
      status=FAIL
      note="$note; injected bug NOT caught (log: ${script%.ys}.log)"
    fi
  done
  t2=$(now)
  [ "$bug_ok" = 1 ] && note="$note; injected bug caught in $(secs "$t1" "$t2") s"
  echo "$name $status $(secs "$t0" "$t1") $note" >"$dir/result"
}

# ---------------------------------------------------------------- main
todo=()
for entry in "${PROOFS[@]}"; do
  name=${entry%%|*}
  selected "$name" && todo+=("$entry")
done
[ ${#todo[@]} -gt 0 ] || { echo "prove: no proof matches ${patterns[*]}" >&2; exit 1; }

echo "prove: ${#todo[@]} proofs, $jobs at a time, output in $out"
gen_configs
start=$(now)

print_result() {
  local name status s note
  read -r name status s note <"$out/$1/result"
  printf 'prove: %-38s %-4s %7s s  %s\n' "$name" "$status" "$s" "$note"
  if [ "$status" = FAIL ] && [ -f "$out/$1/prove.log" ] && grep -q 'FAIL!' "$out/$1/prove.log"; then
    echo "  counterexample ($out/$1/prove.log):"
    sed -n '/Signal Name/,/^$/p' "$out/$1/prove.log" | head -n 60 | sed 's/^/  /'
  fi
}

# Results are printed as the proofs finish.
printed=" "
print_new() {
  local entry name
  for entry in "${todo[@]}"; do
    name=${entry%%|*}
    [ -f "$out/$name/result" ] || continue
    case "$printed" in *" $name "*) continue ;; esac
    print_result "$name"
    printed="$printed$name "
  done
}
for entry in "${todo[@]}"; do
  rm -f "$out/${entry%%|*}/result"
done
for entry in "${todo[@]}"; do
  name=${entry%%|*}
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || true
    print_new
  done
  run_proof "$name" "${entry#*|}" &
done
wait
for entry in "${todo[@]}"; do
  name=${entry%%|*}
  [ -f "$out/$name/result" ] || echo "$name FAIL 0.0 the proof's run stopped" >"$out/$name/result"
done
print_new

failed=0
for entry in "${todo[@]}"; do
  name=${entry%%|*}
  grep -q "^$name PASS " "$out/$name/result" || failed=$((failed + 1))
done
total=$(secs "$start" "$(now)")
if [ "$failed" -gt 0 ]; then
  echo "prove: $failed of ${#todo[@]} proofs FAILED (wall time $total s)" >&2
  exit 1
fi
echo "prove: all ${#todo[@]} proofs PASS, every injected bug caught (wall time $total s)"

#!/usr/bin/env bash
# make synth CONFIG=x: Yosys on every generated block of configs/x.json and on
# the core, with tools/yosys_check.sh's checks (check -assert, no latches,
# implicit or undriven nets, loops, conflicting drivers are errors), then per
# block: generic cells, a transistor estimate, flip-flops and the depth of the
# longest combinational path. Writes BUILD/synth/x/synth.json and synth.md,
# the Yosys logs in BUILD/synth/x/logs. docs/synth.md describes the figures.
#
# usage: tools/synth.sh BUILD CONFIG
# Environment: SYNTH_MAX_CHANNELS (default 1024): above this many channels the
# blocks that grow with N are measured on two smaller instances and
# extrapolated, and the core is estimated from its blocks (docs/synth.md).
# SYNTH_BLOCKS="b1 b2": measure only these blocks (their figures are kept for
# the next full run) and write no report.
# A block whose sources and commands have not changed since its last
# measurement is not synthesized again (its figures are reused).
# The whole script is one block, read before it runs, so that editing the file
# during a long run does not change the run.
{
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "synth: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: tools/synth.sh BUILD CONFIG"
build=$1 name=$2
allowed=$(cd "$root/configs" && ls ./*.json 2>/dev/null | sed 's|^\./||; s|\.json$||' | tr '\n' ' ')
[[ "$name" =~ ^[a-z0-9_]+$ ]] && [ -f "$root/configs/$name.json" ] ||
  die "no config '$name' (configs/$name.json); CONFIG must be one of: ${allowed% }"
gen="$build/oasis-gen"
[ -x "$gen" ] || die "no $gen: build first (make build)"
build=$(cd "$build" && pwd) gen="$build/oasis-gen"
limit=${SYNTH_MAX_CHANNELS:-1024}
[[ "$limit" =~ ^[0-9]+$ ]] || die "SYNTH_MAX_CHANNELS must be a number of channels, not '$limit'"

out="$build/synth/$name"
work="$out/work"
mkdir -p "$work" "$out/logs" "$out/blocks"
tool="yosys $(yosys -V | sed -n 's/^Yosys \([0-9.]*\).*/\1/p')"

# Generate one variant of the config (extra key=value settings) into its own
# folder; prints the folder. An invalid config stops here with oasis-gen's
# message and exit status.
generate() {
  local tag=$1; shift
  local sets=()
  for kv in "$@"; do sets+=(--set "$kv"); done
  local dir="$work/$tag"
  if ! "$gen" --config "$root/configs/$name.json" "${sets[@]}" --out "$dir/rtl.new" >"$work/gen.log" 2>&1; then
    cat "$work/gen.log" >&2
    exit 2
  fi
  # Keep the old folder (and Yosys's reuse of it) when nothing changed.
  if [ -d "$dir/rtl" ] && diff -rq "$dir/rtl" "$dir/rtl.new" >/dev/null 2>&1; then
    rm -rf "$dir/rtl.new"
  else
    rm -rf "$dir/rtl"
    mv "$dir/rtl.new" "$dir/rtl"
  fi
  echo "$dir/rtl"
}

# The Yosys commands run after tools/yosys_check.sh's synth: flatten, count
# cells and flip-flops, the longest path between flip-flops and ports, then
# flip-flops with enables unmapped to plain ones and a multiplexer (so that
# `stat -tech cmos` knows them) for the transistor count. Yosys's tee takes
# no quoted path: the files are named relative to $work, where Yosys runs.
measure_cmds() {
  local f=$1
  echo "flatten; opt_clean; tee -o $f.stat stat; tee -o $f.ltp ltp -noff; dffunmap; opt_clean; tee -o $f.cmos stat -tech cmos"
}

# Transistors: Yosys's CMOS costs (kernel/cost.h: NOT 2, NAND/NOR 4, AND/OR/
# ANDNOT/ORNOT 6, XOR/XNOR/MUX 12, NMUX 10, AOI3/OAI3 6, AOI4/OAI4 8, DFF 16);
# Yosys has no cost for a flip-flop with an asynchronous reset, counted here
# as its plain flip-flop (16). Any other cell type is an error.
count_transistors() {
  awk '
    BEGIN { c["$_BUF_"]=1; c["$_NOT_"]=2; c["$_AND_"]=6; c["$_NAND_"]=4; c["$_OR_"]=6; c["$_NOR_"]=4;
            c["$_ANDNOT_"]=6; c["$_ORNOT_"]=6; c["$_XOR_"]=12; c["$_XNOR_"]=12; c["$_AOI3_"]=6;
            c["$_OAI3_"]=6; c["$_AOI4_"]=8; c["$_OAI4_"]=8; c["$_MUX_"]=12; c["$_NMUX_"]=10 }
    $1 ~ /^\$_/ && NF == 2 {
      if ($1 in c) t += c[$1] * $2
      else if ($1 ~ /^\$_DFF_[PN]([PN][01])?_$/) t += 16 * $2
      else { print "unknown cell type " $1 > "/dev/stderr"; bad = 1 }
    }
    END { if (bad) exit 1; print t + 0 }' "$1"
}

# Synthesize one block of a generated folder; writes blocks/LABEL.json.
nblocks=0 iblock=0
synth_block() {
  local label=$1 rtl=$2 block=$3
  iblock=$((iblock + 1))
  local res="$out/blocks/$label.json" f="$work/$label"
  local srcs=() line
  while IFS= read -r line; do
    case "$line" in '//'* | '') ;; *) srcs+=("$rtl/$line") ;; esac
  done <"$rtl/$block.f"
  local key
  key=$( { cat "${srcs[@]}"; measure_cmds X; cat "$root/tools/yosys_check.sh"; } | sha256sum | cut -c1-16)
  if [ -f "$res" ] && [ "$(jq -r .key "$res")" = "$key" ]; then
    echo "synth: [$iblock/$nblocks] $label: unchanged, $(jq -r .seconds "$res") s ($(jq -r .cells "$res") cells)"
    return
  fi
  echo "synth: [$iblock/$nblocks] $label ..."
  local t0 t1
  t0=$(date +%s.%N)
  if ! (cd "$work" && "$root/tools/yosys_check.sh" --gen "$gen" --then "$(measure_cmds "$label")" "$rtl" "$block") \
      >/dev/null; then
    cp "$rtl.yosys/yosys_$block.log" "$out/logs/$label.log" 2>/dev/null || true
    echo "synth: $label failed (log: $out/logs/$label.log)" >&2
    exit 1
  fi
  t1=$(date +%s.%N)
  cp "$rtl.yosys/yosys_$block.log" "$out/logs/$label.log"
  local cells ffs depth tr secs
  cells=$(sed -n 's/^ *Number of cells: *\([0-9]*\)$/\1/p' "$f.stat" | tail -n 1)
  ffs=$(awk '$1 ~ /^\$_.*DFF/ && NF == 2 { n += $2 } END { print n + 0 }' "$f.stat")
  depth=$(sed -n 's/^Longest topological path in .* (length=\([0-9]*\)):$/\1/p' "$f.ltp" | tail -n 1)
  tr=$(count_transistors "$f.cmos")
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  [ -n "$cells" ] && [ -n "$depth" ] || { echo "synth: no figures for $label in $f.*" >&2; exit 1; }
  jq -n --arg key "$key" --argjson cells "$cells" --argjson tr "$tr" --argjson ffs "$ffs" \
    --argjson depth "$depth" --argjson secs "$(printf '%.1f' "$secs")" \
    '{key: $key, cells: $cells, transistors: $tr, flip_flops: $ffs, depth: $depth, seconds: $secs}' \
    >"$res.tmp"
  mv "$res.tmp" "$res"
  echo "synth: [$iblock/$nblocks] $label: $(printf '%.0f' "$secs") s, $cells cells, $tr transistors, $ffs flip-flops, depth $depth"
}

# A figure of a generated folder's manifest (a key path: config.channels,
# blocks.pe_line.row_interval_cycles), through oasis-gen's reader.
manifest() { "$gen" --query "$1/manifest.json" "$2"; }

full=$(generate full)
channels=$(manifest "$full" config.channels)
blocks=()
for f in "$full"/*.f; do
  b=$(basename "$f" .f)
  [ "$b" = files ] || blocks+=("$b")
done
# The compared blocks first, so that a long run gives the comparisons early.
order=()
for b in pe_line mac_line_baseline orizuru topk_sort_baseline topk_baseline; do
  printf '%s\n' "${blocks[@]}" | grep -qx "$b" && order+=("$b")
done
for b in "${blocks[@]}"; do
  printf '%s\n' "${order[@]}" | grep -qx "$b" || order+=("$b")
done

# Above the limit, blocks too large for Yosys in reasonable time are measured
# at two smaller sizes (one config key set to two values, the rest of the
# config unchanged) and extrapolated linearly: their logic (cells and
# transistors less the flip-flops) in one manifest figure, their flip-flops in
# another (docs/synth.md, "Scaled figures").
#   block: key value1 value2 logic-measure flip-flop-measure
slice_plan() {
  case $1 in
    mac_line_baseline)  # one and two MAC trees a cycle at the config's row interval
      local ri tin
      ri=$(manifest "$full" blocks.pe_line.row_interval_cycles)
      tin=$(manifest "$full" config.mac_tree_inputs)
      echo "channels $((tin * ri)) $((2 * tin * ri)) macs_per_cycle macs_per_cycle" ;;
    topk_baseline) echo "channels 128 256 comparators channels" ;;
    topk_sort_baseline) echo "channels 64 128 comparators channels" ;;
    index_counter_array) echo "index_counters 1 2 index_counters index_counters" ;;
    # One run with one counter; the counters' growth is the Index Counter array's.
    pe_line) echo "index_counters 1" ;;
    *) echo "" ;;
  esac
}
# A figure of a block's manifest, or of the config.
figure() {
  manifest "$1" "blocks.$2.$3" 2>/dev/null || manifest "$1" "config.$3" 2>/dev/null ||
    { echo "synth: no figure '$3' for block $2 in $1/manifest.json" >&2; exit 1; }
}
large=0
[ "$channels" -gt "$limit" ] && large=1
wb=$(manifest "$full" config.weight_beat_indices)

plan=()  # "label|rtl|block"
scaled=()
for b in "${order[@]}"; do
  if [ $large = 1 ] && [ "$b" = core ]; then continue; fi
  if [ -n "${SYNTH_BLOCKS:-}" ] && ! printf '%s\n' $SYNTH_BLOCKS | grep -qx "$b"; then continue; fi
  sp=""
  [ $large = 1 ] && sp=$(slice_plan "$b")
  if [ -n "$sp" ]; then
    read -r key v1 v2 _ _ <<<"$sp"
    for v in $v1 $v2; do
      # A weight beat may not be longer than the row.
      extra=()
      [ "$key" = channels ] && extra=("weight_beat_indices=$((v < wb ? v : wb))")
      d=$(generate "${key}_$v" "$key=$v" "${extra[@]}")
      plan+=("${b}_${key}_$v|$d|$b")
    done
    scaled+=("$b")
    continue
  fi
  plan+=("$b|$full|$b")
done
nblocks=${#plan[@]}
echo "synth: config $name, $channels channels, $nblocks Yosys runs ($tool); logs in $out/logs"
for p in "${plan[@]}"; do
  IFS='|' read -r label rtl block <<<"$p"
  synth_block "$label" "$rtl" "$block"
done

if [ -n "${SYNTH_BLOCKS:-}" ]; then
  echo "synth: SYNTH_BLOCKS given: only those measured, no report written"
  exit 0
fi

# Assemble the report.
blocks_json=$(mktemp)
echo '{}' >"$blocks_json"
put() { jq --arg b "$1" --argjson v "$2" '.[$b] = $v' "$blocks_json" >"$blocks_json.t" && mv "$blocks_json.t" "$blocks_json"; }
for b in "${blocks[@]}"; do
  [ "$b" = core ] && [ $large = 1 ] && continue
  if [ "$b" = pe_line ] && [ $large = 1 ]; then
    # The line with one Index Counter, plus what the Index Counter array
    # grows by from one counter to the configured number.
    v=$(jq -n --slurpfile p "$out/blocks/pe_line_index_counters_1.json" \
      --slurpfile i1 "$out/blocks/index_counter_array_index_counters_1.json" \
      --argjson i "$(jq .index_counter_array "$blocks_json")" --arg c "$(figure "$full" pe_line index_counters)" '
      def add(f): $p[0][f] + $i[f] - $i1[0][f];
      { cells: add("cells"), transistors: add("transistors"), flip_flops: add("flip_flops"),
        depth: $p[0].depth, seconds: $p[0].seconds, scaled: true,
        note: "Yosys run of the line with index_counters = 1, plus the index_counter_array at \($c) counters (itself extrapolated) less the array at 1 counter; depth is that of the run with 1 counter" }')
  elif printf '%s\n' "${scaled[@]}" | grep -qx "$b"; then
    read -r key v1 v2 ml mf <<<"$(slice_plan "$b")"
    d1="$work/${key}_$v1/rtl" d2="$work/${key}_$v2/rtl"
    v=$(jq -n --slurpfile a "$out/blocks/${b}_${key}_$v1.json" --slurpfile c "$out/blocks/${b}_${key}_$v2.json" \
      --argjson l "$(figure "$full" "$b" "$ml")" --argjson l1 "$(figure "$d1" "$b" "$ml")" \
      --argjson l2 "$(figure "$d2" "$b" "$ml")" --argjson f "$(figure "$full" "$b" "$mf")" \
      --argjson f1 "$(figure "$d1" "$b" "$mf")" --argjson f2 "$(figure "$d2" "$b" "$mf")" \
      --arg key "$key" --arg v1 "$v1" --arg v2 "$v2" --arg ml "$ml" --arg mf "$mf" '
      def lin(x1; x2; u; u1; u2): x2 + (u - u2) * (x2 - x1) / (u2 - u1);
      ($a[0].flip_flops) as $ff1 | ($c[0].flip_flops) as $ff2 |
      (lin($ff1; $ff2; $f; $f1; $f2)) as $ff |
      { cells: (lin($a[0].cells - $ff1; $c[0].cells - $ff2; $l; $l1; $l2) + $ff | round),
        transistors: (lin($a[0].transistors - 16 * $ff1; $c[0].transistors - 16 * $ff2; $l; $l1; $l2) + 16 * $ff | round),
        flip_flops: ($ff | round),
        depth: $c[0].depth, seconds: ((($a[0].seconds + $c[0].seconds) * 10 | round) / 10), scaled: true,
        note: "Yosys runs at \($key) = \($v1) and \($v2), extrapolated linearly: logic in \($ml) (\($l1), \($l2) -> \($l)), flip-flops in \($mf) (\($f1), \($f2) -> \($f)); depth is that of \($key) = \($v2)" }')
  else
    v=$(jq '{cells, transistors, flip_flops, depth, seconds, scaled: false, note: ""}' "$out/blocks/$b.json")
  fi
  put "$b" "$v"
done
if [ $large = 1 ]; then
  lines=$(manifest "$full" config.pe_lines)
  core=$(jq --argjson p "$lines" '
    def s(f): .pe_line[f] * $p + .orizuru[f] + .clustering_unit[f] + .regfile[f];
    { cells: s("cells"), transistors: s("transistors"), flip_flops: s("flip_flops"),
      depth: ([.pe_line.depth, .orizuru.depth, .clustering_unit.depth, .regfile.depth] | max),
      seconds: (((.pe_line.seconds + .orizuru.seconds + .clustering_unit.seconds + .regfile.seconds) * 10 | round) / 10),
      scaled: true,
      note: "sum of its blocks, each synthesized alone: \($p) x pe_line + orizuru + clustering_unit + regfile; the core'"'"'s own glue (error calculation unit, token context registers, sequencing) is not counted; depth is the largest of the blocks" }' \
    "$blocks_json")
else
  core=$(jq '.core' "$blocks_json")
fi
comparisons='[]'
add_cmp() {
  local title=$1 ours=$2 base=$3
  jq -e --arg o "$ours" --arg b "$base" 'has($o) and has($b)' "$blocks_json" >/dev/null || return 0
  comparisons=$(jq --argjson c "$comparisons" --arg t "$title" --arg o "$ours" --arg b "$base" '
    $c + [{ name: $t, ours: $o, baseline: $b,
            ratio_transistors: ((.[$o].transistors / .[$b].transistors * 1000 | round) / 1000),
            ratio_cells: ((.[$o].cells / .[$b].cells * 1000 | round) / 1000) }]' "$blocks_json")
}
add_cmp "LUT-GEMM PE line vs FP16 dequantize-and-MAC line, equal throughput" pe_line mac_line_baseline
add_cmp "Orizuru vs sorting-network top-k" orizuru topk_sort_baseline
add_cmp "Orizuru vs k-round reduction top-k" orizuru topk_baseline
jq -n --arg cfg "$name" --arg tool "$tool" --slurpfile b "$blocks_json" --argjson core "$core" \
  --argjson cmp "$comparisons" \
  '{config: $cfg, tool: $tool, blocks: ($b[0] | del(.core)), core: $core, comparisons: $cmp}' \
  >"$out/synth.json.tmp"
rm -f "$blocks_json"

# The Markdown table.
jq -r '
  def row(n; v): "| \(n) | \(v.cells) | \(v.transistors) | \(v.flip_flops) | \(v.depth) | \(v.seconds) | \(if v.scaled then "scaled: " + v.note else "" end) |";
  "# Synthesis of config \(.config) (\(.tool))\n",
  "Generic Yosys cells after `synth` and `flatten`; transistors by Yosys'"'"'s CMOS cost (`stat -tech cmos`, flip-flops with enables unmapped, an asynchronously reset flip-flop counted as a plain one); flip-flops; depth = the longest combinational path in cells (`ltp -noff`); Yosys seconds. See docs/synth.md.\n",
  "| block | cells | transistors | flip-flops | depth | seconds | note |",
  "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
  (.blocks | to_entries[] | row(.key; .value)),
  row("**core**"; .core),
  "",
  "| comparison | ours | baseline | transistors ratio | cells ratio |",
  "| --- | --- | --- | ---: | ---: |",
  (.comparisons[] | "| \(.name) | \(.ours) | \(.baseline) | \(.ratio_transistors) | \(.ratio_cells) |")
' "$out/synth.json.tmp" >"$out/synth.md.tmp"
mv "$out/synth.json.tmp" "$out/synth.json"
mv "$out/synth.md.tmp" "$out/synth.md"
echo "synth: wrote $out/synth.json and $out/synth.md"
exit 0
}

#!/usr/bin/env bash
# Yosys on blocks of a generated folder: elaborate, check -assert, no latches,
# synth, check -assert again; implicit nets, undriven nets, latches, logic
# loops and conflicting drivers are errors. Each block's log (yosys_<block>.log
# in RTL_DIR.yosys, beside the generated folder, which holds only what oasis-gen
# wrote) ends with its cell counts (stat, hierarchy kept).
# --ports: also write each block's ports as elaborated (its modules' ports and
# no cells, a Yosys JSON) to RTL_DIR.yosys/ports_<block>.json, for
# sim/tools/portcheck.
# --gen FILE: the oasis-gen whose reader gives each block's top module from the
# manifest (required).
# RTL_DIR may hold spaces (docs/paths.md).
# usage: tools/yosys_check.sh --gen FILE [--ports] RTL_DIR [BLOCK...]
#        (no BLOCK: every block)
set -euo pipefail
. "$(dirname "$0")/yosys_paths.sh"
usage="usage: tools/yosys_check.sh --gen FILE [--ports] RTL_DIR [BLOCK...]"
ports=0 gen=""
while [ $# -gt 0 ]; do
  case "$1" in
    --gen) gen=${2:?--gen needs the path of oasis-gen}; shift 2 ;;
    --ports) ports=1; shift ;;
    *) break ;;
  esac
done
[ -n "$gen" ] || { echo "yosys: --gen FILE is required ($usage)" >&2; exit 2; }
dir=$(cd "${1:?$usage}" && pwd)
shift
blocks=("$@")
if [ ${#blocks[@]} -eq 0 ]; then
  for f in "$dir"/*.f; do
    b=$(basename "$f" .f)
    [ "$b" = files ] || blocks+=("$b")
  done
fi
[ ${#blocks[@]} -gt 0 ] || { echo "yosys: no block file lists in $dir" >&2; exit 1; }
logs="$dir.yosys"
mkdir -p "$logs"
for block in "${blocks[@]}"; do
  f="$dir/$block.f"
  [ -f "$f" ] || { echo "yosys: no block '$block' in $dir" >&2; exit 1; }
  top=$("$gen" --query "$dir/manifest.json" "blocks.$block.top")
  srcs=$(yosys_sources "$dir" "$block")
  log="$logs/yosys_$block.log"
  # The elaborated ports, from a copy of the design with every cell and process deleted.
  write_ports=""
  [ $ports = 1 ] && write_ports="design -save elab; delete t:* p:*; opt_clean -purge;
      write_json $(yosys_word "$logs/ports_$block.json"); design -load elab;"
  if ! yosys -q -e 'implicitly declared|no driver|Latch|logic loop|conflicting' -l "$log" -p "
      read_verilog -sv $srcs; hierarchy -check -top $top; proc; $write_ports check -assert;
      select -assert-none t:\$dlatch t:\$adlatch t:\$dlatchsr; synth -top $top; check -assert; stat" \
      >/dev/null 2>&1; then
    tail -n 30 "$log" >&2
    echo "yosys: block $block failed (log: $log)" >&2
    exit 1
  fi
done
echo "yosys: ${#blocks[@]} blocks synthesized, check -assert clean, no latches ($dir)"

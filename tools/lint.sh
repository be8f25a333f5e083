#!/usr/bin/env bash
# verilator --lint-only -Wall, no waivers, on every block of a generated folder.
# usage: tools/lint.sh RTL_DIR
set -euo pipefail
dir=${1:?usage: tools/lint.sh RTL_DIR}
n=0
for f in "$dir"/*.f; do
  block=$(basename "$f" .f)
  [ "$block" = files ] && continue
  verilator --lint-only -Wall -F "$f"
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "lint: no block file lists in $dir" >&2; exit 1; }
echo "lint: $n blocks clean under verilator --lint-only -Wall ($dir)"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# verilator --lint-only -Wall, no waivers, on blocks of a generated folder.
# Verilator runs in RTL_DIR on the file lists' relative paths: Verilator 5.006
# cuts a source path at its first space (docs/paths.md), and RTL_DIR may hold
# spaces.
# usage: tools/lint.sh RTL_DIR [BLOCK...]   (no BLOCK: every block)
set -euo pipefail
dir=${1:?usage: tools/lint.sh RTL_DIR [BLOCK...]}
shift
blocks=("$@")
if [ ${#blocks[@]} -eq 0 ]; then
  for f in "$dir"/*.f; do
    b=$(basename "$f" .f)
    [ "$b" = files ] || [ "$b" = '*' ] || blocks+=("$b")
  done
fi
[ ${#blocks[@]} -gt 0 ] || { echo "lint: no block file lists in $dir" >&2; exit 1; }
for block in "${blocks[@]}"; do
  [ -f "$dir/$block.f" ] || { echo "lint: no block '$block' in $dir" >&2; exit 1; }
  (cd "$dir" && verilator --lint-only -Wall -F "$block.f")
done
echo "lint: ${#blocks[@]} blocks clean under verilator --lint-only -Wall ($dir)"

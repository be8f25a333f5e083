#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# verilator --lint-only -Wall, no waivers, on blocks of a generated folder.
# Verilator runs in RTL_DIR on the file lists' relative paths: Verilator 5.006
# cuts a source path at its first space (docs/paths.md), and RTL_DIR may hold
# spaces.
# usage: tools/lint.sh RTL_DIR [BLOCK...]   (no BLOCK: every block of its manifest.json,
# read with oasis-gen --query: $OASIS_GEN, by default build/oasis-gen)
set -euo pipefail
dir=${1:?usage: tools/lint.sh RTL_DIR [BLOCK...]}
shift
blocks=("$@")
if [ ${#blocks[@]} -eq 0 ]; then
  # Every block the manifest lists, by its file list's name.
  [ -f "$dir/manifest.json" ] || { echo "lint: no manifest.json of oasis-gen in $dir" >&2; exit 1; }
  gen=${OASIS_GEN:-$(dirname "$0")/../build/oasis-gen}
  while IFS= read -r f; do blocks+=("${f%.f}"); done \
    < <("$gen" --query "$dir/manifest.json" 'blocks.*.filelist')
fi
[ ${#blocks[@]} -gt 0 ] || { echo "lint: no blocks in $dir/manifest.json" >&2; exit 1; }
for block in "${blocks[@]}"; do
  [ -f "$dir/$block.f" ] || { echo "lint: no block '$block' in $dir" >&2; exit 1; }
  (cd "$dir" && verilator --lint-only -Wall -F "$block.f")
done
echo "lint: ${#blocks[@]} blocks clean under verilator --lint-only -Wall ($dir)"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/build_command.sh [--source] NAME ARGS...: runs the command NAME of the build folder
# that ARGS give with --build (BUILD/NAME, a link to oasis-commands) with ARGS; with --source,
# this project as its source folder first (--source DIR). sim/vltest, sim/icarus,
# sim/coverage, sim/synthcheck and sim/flowcheck are this, so that the tests and scripts can name the
# commands by their place in the project.
set -euo pipefail
source_args=()
if [ "${1:-}" = --source ]; then
  source_args=(--source "$(cd "$(dirname "$0")/.." && pwd)")
  shift
fi
[ $# -ge 1 ] || { echo "usage: tools/build_command.sh [--source] NAME ARGS..." >&2; exit 2; }
name=$1
shift
build=""
for ((i = 1; i < $#; i++)); do
  [ "${!i}" = -- ] && break
  if [ "${!i}" = --build ]; then j=$((i + 1)); build=${!j}; break; fi
done
[ -n "$build" ] || { echo "$name: --build DIR is required" >&2; exit 2; }
[ -x "$build/$name" ] ||
  { echo "$name: no $build/$name: build the project first (make build)" >&2; exit 2; }
exec "$build/$name" "${source_args[@]}" "$@"

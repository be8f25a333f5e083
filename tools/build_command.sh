#!/usr/bin/env bash
# tools/build_command.sh NAME ARGS...: runs the command NAME of the build folder that ARGS
# give with --build (BUILD/NAME, a link to oasis-commands), with this project as its source
# folder (--source) and ARGS. sim/vltest and sim/icarus are this for oasis-vltest and
# oasis-icarus, so that the tests and scripts can name them by their place in the project.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: tools/build_command.sh NAME ARGS..." >&2; exit 2; }
name=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
build=""
for ((i = 1; i < $#; i++)); do
  [ "${!i}" = -- ] && break
  if [ "${!i}" = --build ]; then j=$((i + 1)); build=${!j}; break; fi
done
[ -n "$build" ] || { echo "$name: --build DIR is required" >&2; exit 2; }
[ -x "$build/$name" ] ||
  { echo "$name: no $build/$name: build the project first (make build)" >&2; exit 2; }
exec "$build/$name" --source "$root" "$@"

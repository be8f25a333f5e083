#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make test-sanitize: the unit tests and the fuzz targets' corpora, built with AddressSanitizer
# and UndefinedBehaviorSanitizer (g++, every finding fatal) in a build folder of their own, run
# through CTest (docs/fuzzing.md). The commands the CLI tests run are the sanitized ones.
#
#   tools/sanitize.sh --build DIR [--jobs J]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build="" jobs=2
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) echo "sanitize: unknown argument $1; allowed: --build DIR, --jobs J" >&2; exit 2 ;;
  esac
done
[ -n "$build" ] || { echo "sanitize: --build DIR is required" >&2; exit 2; }
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOASIS_SANITIZE=ON \
    >/dev/null
fi
cmake --build "$build" -j "$jobs" --target oasis_unit_tests test_generated_headers commands \
  fuzz_replay_config fuzz_replay_npy fuzz_replay_safetensors fuzz_replay_query
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
ctest --test-dir "$build" --output-on-failure -j "$jobs" -L 'unit|fuzz' ${SANITIZE_EXCLUDE:+-E "$SANITIZE_EXCLUDE"}

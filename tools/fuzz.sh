#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make fuzz: builds the libFuzzer targets of verif/fuzz with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in a build folder of their own, and fuzzes each in turn for its
# share of the time (docs/fuzzing.md).
#
#   tools/fuzz.sh --build DIR [--seconds N] [--jobs J] [--no-build] [TARGET...]
#
# N is the time in all (default 240), split evenly over the targets (default all of them). Each
# starts from the corpus it grew before (DIR/corpus/<target>), the seed corpus and its
# dictionary; what it finds new is kept in DIR/corpus/<target>, an input that fails in
# DIR/artifacts/<target>/. Each runs under nice -n 19, one at a time. It prints and appends to
# DIR/figures.txt one line a target: seconds, executions, coverage (edges, features), corpus size.
# A failing input stops it with status 1: replay it with DIR/fuzz/fuzz_<target> FILE, fix the
# reader, and keep the input in verif/fuzz/regressions/<target>/. --no-build fuzzes the programs
# DIR holds as they are (a long campaign while the sources change).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build="" seconds=240 jobs=2 targets=() rebuild=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --no-build) rebuild=0; shift ;;
    -*) echo "fuzz: unknown option $1; allowed: --build DIR, --seconds N, --jobs J, --no-build" >&2
        exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ -n "$build" ] || { echo "fuzz: --build DIR is required" >&2; exit 2; }
case "$seconds" in ''|*[!0-9]*) echo "fuzz: --seconds $seconds: a whole number" >&2; exit 2 ;; esac
all=(config npy safetensors query)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
  case " ${all[*]} " in *" $t "*) ;;
    *) echo "fuzz: no target '$t'; allowed: ${all[*]}" >&2; exit 2 ;; esac
done
"$here/tools/deps.sh" fuzz
if [ ! -f "$build/CMakeCache.txt" ]; then
  CXX=clang++-14 cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DOASIS_FUZZ=ON >/dev/null
fi
[ "$rebuild" -eq 0 ] || cmake --build "$build" -j "$jobs" --target oasis_fuzz
each=$((seconds / ${#targets[@]}))
[ "$each" -ge 1 ] || each=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t" artifacts="$build/artifacts/$t/"
  mkdir -p "$corpus" "$artifacts"
  log="$build/fuzz-$t.log"
  echo "fuzz: $t for $each s (log $log)"
  # The inputs that once failed first, then the fuzzing itself.
  if ! "$build/fuzz/fuzz_$t" "$here/verif/fuzz/regressions/$t"/* >"$log.regressions" 2>&1; then
    echo "fuzz: $t fails on an input of verif/fuzz/regressions/$t: see $log.regressions" >&2
    exit 1
  fi
  status=0
  nice -n 19 "$build/fuzz/fuzz_$t" -max_total_time="$each" -max_len=8192 -timeout=10 \
    -rss_limit_mb=4096 -print_final_stats=1 -dict="$here/verif/fuzz/$( \
      case $t in config|query) echo json ;; *) echo "$t" ;; esac).dict" \
    -artifact_prefix="$artifacts" "$corpus" "$here/verif/fuzz/corpus/$t" >"$log" 2>&1 || status=$?
  execs=$(sed -n -e 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -a -E '^#[0-9]+' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$last")
  files=$(find "$corpus" -type f | wc -l)
  line="$(date -u +%Y-%m-%dT%H:%MZ) $t: ${each} s, ${execs:-?} executions, cov ${cov:-?} edges, ft ${ft:-?} features, corpus ${corp:-?} inputs ($files files kept)"
  if [ "$status" -ne 0 ]; then
    line="$line, FAILED (status $status): $(ls "$artifacts" | head -3 | tr '\n' ' ')"
  fi
  echo "fuzz: $line"
  echo "$line" >>"$build/figures.txt"
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $t found a failing input; see $log and $artifacts" >&2
    exit 1
  fi
done

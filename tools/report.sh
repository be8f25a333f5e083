#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make report: the performance report of a config (docs/perf.md).
#   tools/report.sh BUILD CONFIG_JSON
# Writes BUILD/report/<config>/report.md and its PNG plots: oasis-perf report
# writes the text, the plot data and the gnuplot scripts into a fresh folder,
# gnuplot draws every plot there, and only then does the folder replace the
# old report (nothing half-written on failure).
set -euo pipefail
build=${1:?usage: tools/report.sh BUILD CONFIG_JSON}
config=${2:?usage: tools/report.sh BUILD CONFIG_JSON}
if [ ! -f "$config" ]; then
  echo "report: config $config: no such file (configs/<name>.json)" >&2
  exit 2
fi
command -v gnuplot >/dev/null || { echo "report: gnuplot is missing (make deps installs gnuplot-nox)" >&2; exit 1; }
name=$(basename "$config" .json)
out="$build/report/$name"
tmp="$out.tmp"
rm -rf "$tmp"
mkdir -p "$build/report"
"$build/oasis-perf" report --config "$config" --out "$tmp" --models configs/models \
    --synth "$build/synth/$name/synth.json" --energy configs/energy/osu018.json \
    --memory configs/memory/hbm2.json --memory configs/memory/ddr4.json \
    ${REPORT_ARGS:-} || { rm -rf "$tmp"; exit 2; }
for gp in "$tmp"/*.gp; do
  (cd "$tmp" && gnuplot "$(basename "$gp")") || { echo "report: gnuplot failed on $gp" >&2; rm -rf "$tmp"; exit 1; }
done
rm -rf "$out"
mv "$tmp" "$out"
echo "report: $out/report.md"

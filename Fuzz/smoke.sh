#!/usr/bin/env bash
# CI's fuzz smoke pass: Fuzz/smoke.sh [SECONDS] (default 15) builds every harness, replays its
# committed corpus and fuzzes for SECONDS more. New inputs go to a temporary folder (the committed
# corpora only change through Fuzz/run.sh); any crash, timeout or out-of-memory fails the pass.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-15}
Fuzz/build.sh
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:symbolize=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/Fuzz/lsan.supp}
failed=()
for dir in Fuzz/*/Harness.swift; do
  harness=$(basename "$(dirname "$dir")")
  work=$(mktemp -d "${TMPDIR:-/tmp}/imago-smoke-$harness.XXXXXX")
  if .build-fuzz/bin/"$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$work/" "$work" "Fuzz/$harness/corpus" > "$work/log" 2>&1; then
    echo "fuzz smoke: $harness: $(grep -m1 '^stat::number_of_executed_units' "$work/log" | awk '{print $2}') executions in ${seconds} s, no crash"
    rm -rf "$work"
  else
    echo "fuzz smoke: $harness FAILED; its report:"
    grep -E -A20 '^==[0-9]+==ERROR|^Fatal error|deadly signal|ALARM' "$work/log" | head -60 || tail -40 "$work/log"
    echo "(inputs in $work; reproduce with .build-fuzz/bin/$harness FILE)"
    failed+=("$harness")
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzz smoke: crashes in ${failed[*]}"; exit 1; }

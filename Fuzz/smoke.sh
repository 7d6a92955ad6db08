#!/usr/bin/env bash
# CI's fuzz smoke pass: Fuzz/smoke.sh [SECONDS | --budget TOTAL] builds every harness, replays its
# committed corpus and fuzzes for SECONDS more (default 15), or for an equal share of TOTAL seconds
# (at least 5 each), so that a pass's length stays put as harnesses are added. Two harnesses run at
# a time (IMAGO_FUZZ_JOBS), one per core of the CI machine, so each still gets its seconds of a core. New inputs go to a
# temporary folder (the committed corpora only change through Fuzz/run.sh); any crash, timeout or
# out-of-memory fails the pass.
set -euo pipefail
cd "$(dirname "$0")/.."
harness_count=$(ls -d Fuzz/*/Harness.swift | wc -l)
if [ "${1:-}" = --budget ]; then
  seconds=$(( ${2:?--budget needs a number of seconds} / harness_count ))
  [ "$seconds" -ge 5 ] || seconds=5
  echo "fuzz smoke: $harness_count harnesses, $seconds s of fuzzing each (a budget of $2 s)"
else
  seconds=${1:-15}
fi
jobs=${IMAGO_FUZZ_JOBS:-2}
# Seconds one input may run before it counts as a hang (libFuzzer's -timeout, wall time). CI's
# background pass at nice 19 raises it: starved of CPU by the stages beside it, a slow input could
# pass 10 s of wall time without hanging.
timeout=${IMAGO_FUZZ_TIMEOUT:-10}
# Unoptimised: a third of the build's CPU, and the smoke's seconds are spent mostly in C (build.sh).
IMAGO_FUZZ_OPTIMIZATION=${IMAGO_FUZZ_OPTIMIZATION:--Onone} Fuzz/build.sh
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:symbolize=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/Fuzz/lsan.supp}

# smoke HARNESS WORK: one harness over its corpus, then fuzzing; its verdict in WORK/summary.
smoke() {
  local harness=$1 work=$2
  if .build-fuzz/bin/"$harness" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$work/" "$work/new" "Fuzz/$harness/corpus" > "$work/log" 2>&1; then
    echo "fuzz smoke: $harness: $(grep -m1 '^stat::number_of_executed_units' "$work/log" | awk '{print $2}') executions in ${seconds} s, no crash" \
      > "$work/summary"
  else
    {
      echo "fuzz smoke: $harness FAILED; its report:"
      grep -E -A20 '^==[0-9]+==ERROR|^Fatal error|deadly signal|ALARM' "$work/log" | head -60 || tail -40 "$work/log"
      echo "(inputs in $work; reproduce with .build-fuzz/bin/$harness FILE)"
    } > "$work/summary"
    return 1
  fi
}

# finish: waits for the oldest running harness and prints its verdict.
finish() {
  local harness=${names[0]} work=${works[0]}
  if wait "${pids[0]}"; then
    cat "$work/summary"
    rm -rf "$work"
  else
    cat "$work/summary"   # the inputs stay in $work
    failed+=("$harness")
  fi
  pids=("${pids[@]:1}") names=("${names[@]:1}") works=("${works[@]:1}")
}

failed=() pids=() names=() works=()
for dir in Fuzz/*/Harness.swift; do
  harness=$(basename "$(dirname "$dir")")
  [ ${#pids[@]} -lt "$jobs" ] || finish
  work=$(mktemp -d "${TMPDIR:-/tmp}/imago-smoke-$harness.XXXXXX")
  mkdir "$work/new"
  smoke "$harness" "$work" &
  pids+=($!) names+=("$harness") works+=("$work")
done
while [ ${#pids[@]} -gt 0 ]; do finish; done
[ ${#failed[@]} -eq 0 ] || { echo "fuzz smoke: crashes in ${failed[*]}"; exit 1; }

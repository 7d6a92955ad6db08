#!/usr/bin/env bash
# Runs one libFuzzer harness: Fuzz/run.sh HARNESS SECONDS [libFuzzer flags…]
#
# Builds it (Fuzz/build.sh, cached in .build-fuzz), fuzzes for SECONDS starting from
# Fuzz/HARNESS/corpus, merges the inputs that reach new code into that corpus (-merge=1: only
# coverage-increasing files are added), and saves every crash, timeout or out-of-memory input,
# minimised, into Fuzz/HARNESS/crashes/. Prints one summary line, also appended to
# .build-fuzz/results.log. Exits 1 when it found a crash.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: Fuzz/run.sh HARNESS SECONDS [libFuzzer flags…]" >&2; exit 2; }
harness=$1 seconds=$2
shift 2

Fuzz/build.sh "$harness"
binary=.build-fuzz/bin/$harness
corpus=Fuzz/$harness/corpus
crashes=Fuzz/$harness/crashes
work=$(mktemp -d "${TMPDIR:-/tmp}/imago-fuzz-$harness.XXXXXX")
mkdir -p "$corpus" "$crashes" "$work/new" "$work/artifacts"
log=$work/fuzz.log

# Leak checking stays on; the Swift runtime's caches are reachable, so LeakSanitizer ignores them.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:symbolize=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/Fuzz/lsan.supp}
status=0
"$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$@" "$work/new" "$corpus" > "$log" 2>&1 || status=1
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$log" || true
[ $status -eq 0 ] || grep -E -A12 '^==[0-9]+==ERROR|^Fatal error|deadly signal|ALARM' "$log" | head -40 || true

# Keep what reaches new code, and only that.
before=$(find "$corpus" -type f | wc -l)
"$binary" -merge=1 -timeout=10 -rss_limit_mb=2048 "$corpus" "$work/new" > "$work/merge.log" 2>&1 || true
after=$(find "$corpus" -type f | wc -l)

found=0
for artifact in "$work"/artifacts/*; do
  [ -e "$artifact" ] || continue
  found=$((found + 1))
  name=$(basename "$artifact")
  "$binary" -minimize_crash=1 -runs=20000 -timeout=10 -exact_artifact_path="$crashes/$name" "$artifact" \
    > "$work/minimize-$name.log" 2>&1 || true
  [ -e "$crashes/$name" ] || cp "$artifact" "$crashes/$name"
  echo "run.sh: $harness: $name saved in $crashes (the fuzzer's report: $log)"
done
[ $found -eq 0 ] || status=1

executions=$(grep -m1 '^stat::number_of_executed_units' "$log" | awk '{print $2}')
summary="$(date -u +%FT%TZ) $harness seconds=$seconds executions=${executions:-?} corpus=$before->$after files ($(du -sk "$corpus" | cut -f1) KB) crashes=$found"
echo "$summary" | tee -a .build-fuzz/results.log
[ $found -eq 0 ] && rm -rf "$work"
exit $status

#!/usr/bin/env bash
# Type-checks every snippet in must-fail/ and must-pass/ against the Imago module of a finished
# `swift build`. Usage: Tests/CompileChecks/check.sh [SCRATCH_PATH]   (default: .build)
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=${1:-.build}
build=$(swift build --scratch-path "$scratch" --show-bin-path)
[ -d "$build/Modules" ] || { echo "no $build/Modules: run swift build first" >&2; exit 2; }
# The C modules Imago imports, as the package build sees them.
flags=(-typecheck -swift-version 6 -I "$build/Modules")
while IFS= read -r map; do flags+=(-Xcc "-fmodule-map-file=$map"); done < <(
  find "$build" -maxdepth 3 -name module.modulemap -not -path "*-tool.build/*"
  find Sources -name module.modulemap
  find "$scratch/checkouts" -path '*/Sources/*' -name module.modulemap 2>/dev/null)
flags+=(-Xcc -ISources/CImagoCodecs/include)

failures=0
for snippet in Tests/CompileChecks/must-fail/*.swift; do
  expected=$(sed -n '1s#^// expect-error: ##p' "$snippet")
  [ -n "$expected" ] || { echo "FAIL $snippet: its first line must be // expect-error: TEXT"; failures=$((failures + 1)); continue; }
  if output=$(swiftc "${flags[@]}" "$snippet" 2>&1); then
    echo "FAIL $snippet compiled, but must not: $expected"; failures=$((failures + 1))
  elif grep -qF -- "$expected" <<<"$output"; then
    echo "ok   $snippet fails to compile: $expected"
  else
    echo "FAIL $snippet failed for another reason than \"$expected\":"; echo "$output" | head -20
    failures=$((failures + 1))
  fi
done
for snippet in Tests/CompileChecks/must-pass/*.swift; do
  if output=$(swiftc "${flags[@]}" "$snippet" 2>&1); then
    echo "ok   $snippet compiles"
  else
    echo "FAIL $snippet must compile:"; echo "$output" | head -20; failures=$((failures + 1))
  fi
done
total=$(ls Tests/CompileChecks/must-fail/*.swift Tests/CompileChecks/must-pass/*.swift | wc -l)
echo "compile checks: $((total - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]

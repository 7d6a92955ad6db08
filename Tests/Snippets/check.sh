#!/usr/bin/env bash
# Type-checks every ```swift block of README.md and the DocC articles against the modules of a
# finished `swift build` (as Tests/CompileChecks does), so no documented snippet can rot. Package
# manifests are type-checked against PackageDescription. A block that cannot compile here (SwiftUI
# and UIKit code) is marked `<!-- snippet: skip REASON -->` on the line before it.
# Usage: Tests/Snippets/check.sh [SCRATCH_PATH]   (default: .build)
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=${1:-.build}
build=$(swift build --scratch-path "$scratch" --show-bin-path)
[ -d "$build/Modules" ] || { echo "no $build/Modules: run swift build first" >&2; exit 2; }
flags=(-typecheck -parse-as-library -swift-version 6 -suppress-warnings -I "$build/Modules")
while IFS= read -r map; do flags+=(-Xcc "-fmodule-map-file=$map"); done < <(
  find "$build" -maxdepth 3 -name module.modulemap -not -path "*-tool.build/*"
  find Sources -name module.modulemap
  find "$scratch/checkouts" -path '*/Sources/*' -name module.modulemap 2>/dev/null)
flags+=(-Xcc -ISources/CImagoCodecs/include)
manifest_api="$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")/lib/swift/pm/ManifestAPI"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mapfile -t documents < <(ls README.md Sources/*/*.docc/*.md 2>/dev/null)
python3 Tests/Snippets/extract.py "$work" "${documents[@]}" | tee "$work/blocks.txt"

failures=0
if swiftc "${flags[@]}" "$work/Prelude.swift" "$work/snippets.swift"; then
  echo "ok   $(grep -c '^code' "$work/blocks.txt" || true) code blocks type-check"
else
  echo "FAIL code blocks (messages above point at the Markdown lines)"; failures=$((failures + 1))
fi
for manifest in "$work"/manifest-*.swift; do
  [ -e "$manifest" ] || continue
  if swiftc -typecheck -I "$manifest_api" -package-description-version 6.2 "$manifest"; then
    echo "ok   $(basename "$manifest") type-checks against PackageDescription"
  else
    echo "FAIL $(basename "$manifest")"; failures=$((failures + 1))
  fi
done
echo "snippets: $(wc -l < "$work/blocks.txt") blocks ($(grep -c '^skip' "$work/blocks.txt" || true) skipped), $failures failed"
[ "$failures" -eq 0 ]

#!/usr/bin/env bash
# Checks that the shipped `imago` executable of a finished `swift build` links none of the test
# support (no symbol of the ImagoTestSupport module): the demo has its own target, ImagoDemo.
# Usage: Tests/CompileChecks/shipped-binary.sh [SCRATCH_PATH]   (default: .build)
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=${1:-.build}
binary="$(swift build --scratch-path "$scratch" --show-bin-path)/imago"
[ -x "$binary" ] || { echo "no $binary: run swift build first" >&2; exit 2; }
# Swift mangles a module name as its length and the name: 16ImagoTestSupport.
count=$(nm "$binary" | grep -c '16ImagoTestSupport' || true)
if [ "$count" -ne 0 ]; then
  echo "FAIL $binary links ImagoTestSupport ($count symbols): the shipped command must not depend on the test support"
  exit 1
fi
echo "ok   $binary links no ImagoTestSupport symbol"

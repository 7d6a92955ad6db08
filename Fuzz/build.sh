#!/usr/bin/env bash
# Builds libFuzzer harnesses into .build-fuzz/bin: Fuzz/build.sh [HARNESS...] (default: all).
#
# How: the dependencies (NIO, AsyncHTTPClient, swift-log…) come uninstrumented from the ordinary
# debug build in .build (`swift build --target Imago`, a no-op when it is up to date). Imago's own
# sources are compiled once more, optimised, with `-sanitize=fuzzer,address -enable-testing`, into
# one object and module in .build-fuzz; the C shims (Sources/CImagoCodecs) with clang's
# `-fsanitize=fuzzer-no-link,address`. Each harness is Fuzz/Common/*.swift plus
# Fuzz/HARNESS/Harness.swift, `@testable import Imago`, linked with libFuzzer's main.
# The swiftc flags for Imago (module maps, include paths, language mode) are read from the
# command SwiftPM itself used, in .build/debug.yaml, so they follow Package.swift.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/.build-fuzz
mkdir -p "$out/obj" "$out/modules" "$out/bin"

harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  for dir in Fuzz/*/Harness.swift; do harnesses+=("$(basename "$(dirname "$dir")")"); done
fi

swift build --target Imago 2>&1 | grep -v '^\[' || true
debug=$(readlink -f .build/debug)

# SwiftPM's own command line for the Imago module, one argument a line.
mapfile -t spm_args < <(grep '"C.Imago-[^"]*-debug.module":' -A6 .build/debug.yaml | grep -m1 'args:' \
  | sed 's/^ *args: \[//; s/\]$//' | tr ',' '\n' | sed 's/^"//; s/"$//')
[ ${#spm_args[@]} -gt 10 ] || { echo "build.sh: cannot read Imago's compile command from .build/debug.yaml" >&2; exit 1; }
flags=()
skip_next=0
for arg in "${spm_args[@]:1}"; do
  if [ $skip_next -eq 1 ]; then skip_next=0; continue; fi
  case "$arg" in
    -module-name | -emit-module-path | -output-file-map | -index-store-path | -emit-objc-header-path | -module-cache-path)
      skip_next=1 ;;
    -emit-dependencies | -emit-module | -incremental | -c | @* | -enable-batch-mode | -serialize-diagnostics | -Onone \
      | -DDEBUG | -parseable-output | -emit-objc-header | -j*) ;;
    *) flags+=("$arg") ;;
  esac
done
flags+=(-module-cache-path "$out/ModuleCache")
# The system libraries Package.swift links (libjpeg, libpng, libwebp…), from the test product's link command.
mapfile -t libraries < <(grep '"C.ImagoPackageTests-[^"]*-debug.test":' -A6 .build/debug.yaml | grep -m1 'args:' \
  | grep -o '"-l[^"]*"' | tr -d '"' | sort -u)

# Rebuild Imago's instrumented object only when a source changed.
mapfile -t sources < <(find Sources/Imago -name '*.swift' | sort)
stamp=$out/imago.stamp
if [ ! -f "$out/obj/Imago.o" ] || [ -n "$(find Sources/Imago Sources/CImagoCodecs -newer "$stamp" -type f | head -1)" ] \
  || [ "$(printf '%s\n' "${sources[@]}" | md5sum)" != "$(cat "$out/sources.md5" 2>/dev/null)" ]; then
  echo "build.sh: compiling Imago with -sanitize=fuzzer,address"
  for c in Sources/CImagoCodecs/*.c; do
    clang -c -O1 -g -fPIC -fsanitize=fuzzer-no-link,address -I Sources/CImagoCodecs/include "$c" \
      -o "$out/obj/CImagoCodecs-$(basename "$c" .c).o"
  done
  swiftc -module-name Imago -emit-module -emit-module-path "$out/modules/Imago.swiftmodule" \
    -c -wmo -O -enable-testing -sanitize=fuzzer,address "${flags[@]}" "${sources[@]}" -o "$out/obj/Imago.o"
  printf '%s\n' "${sources[@]}" | md5sum > "$out/sources.md5"
  touch "$stamp"
fi

# The dependencies' objects: everything the debug build compiled except our own targets (every
# `Imago…`/`CImago…` target, executables included) and the package plugins' tools (the DocC
# plugin's snippet tools, swift-argument-parser's generate_manual and generate_docc_reference, any
# `…-tool` build), which `swift package` commands build into the same folder and which have a
# `main` of their own.
ours='^(C?Imago[A-Za-z]*|Snippets|snippet_extract|generate_[a-z_]+)(-tool)?\.build$|-tool\.build$'
dependency_objects=()
for dir in "$debug"/*.build; do
  basename "$dir" | grep -Eq "$ours" && continue
  while IFS= read -r object; do dependency_objects+=("$object"); done < <(find "$dir" -name '*.o')
done

for harness in "${harnesses[@]}"; do
  [ -f "Fuzz/$harness/Harness.swift" ] || { echo "build.sh: no harness Fuzz/$harness/Harness.swift" >&2; exit 2; }
  binary=$out/bin/$harness
  # A harness of code outside Sources/Imago lists those files in Fuzz/HARNESS/sources.
  extra=()
  if [ -f "Fuzz/$harness/sources" ]; then mapfile -t extra < <(grep -v '^#' "Fuzz/$harness/sources" | grep .); fi
  if [ -f "$binary" ] && [ -z "$(find Fuzz/Common "Fuzz/$harness/Harness.swift" "${extra[@]}" "$out/obj/Imago.o" "$out"/obj/CImagoCodecs-*.o -newer "$binary" | head -1)" ]; then
    continue
  fi
  echo "build.sh: linking $harness"
  swiftc -module-name "FuzzHarness" -parse-as-library -O -sanitize=fuzzer,address "${flags[@]}" -I "$out/modules" \
    Fuzz/Common/*.swift "Fuzz/$harness/Harness.swift" "${extra[@]}" "$out/obj/Imago.o" "$out"/obj/CImagoCodecs-*.o \
    "${dependency_objects[@]}" "${libraries[@]}" -o "$binary" 2>&1 \
    | { grep -v "Cannot export local symbol '__asan_" || true; }  # gold's noise about ASan's helpers
done

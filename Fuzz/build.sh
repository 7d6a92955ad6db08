#!/usr/bin/env bash
# Builds libFuzzer harnesses into .build-fuzz/bin: Fuzz/build.sh [HARNESS...] (default: all).
#
# IMAGO_FUZZ_OPTIMIZATION (default -O) is the swiftc optimisation of Imago and the harnesses. CI's
# smoke pass (Fuzz/smoke.sh) builds with -Onone: the compile takes 60 s of CPU instead of 150 and a
# harness 1 s instead of 5, and ten seconds a harness are bound by the C codecs more than by Swift
# (the jpeg harness ran as many inputs a second either way). Fuzz/run.sh's long runs keep -O.
#
# How: the dependencies (NIO, AsyncHTTPClient, swift-log…) come uninstrumented from the ordinary
# debug build in .build (`swift build --target Imago`, a no-op when it is up to date). Imago's own
# sources are compiled once more, optimised, with `-sanitize=fuzzer,address -enable-testing`, into
# objects and a module in .build-fuzz; the C shims (Sources/CImagoCodecs) with clang's
# `-fsanitize=fuzzer-no-link,address`. Each harness is Fuzz/Common/*.swift plus
# Fuzz/HARNESS/Harness.swift, `@testable import Imago`, linked with libFuzzer's main.
# The swiftc flags for Imago (module maps, include paths, language mode) are read from the
# command SwiftPM itself used, in .build/debug.yaml (Scripts/debug-build-commands.sh), so they
# follow Package.swift.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/.build-fuzz
mkdir -p "$out/obj" "$out/modules" "$out/bin"
optimization=${IMAGO_FUZZ_OPTIMIZATION:--O}
case $optimization in -O|-Onone|-Osize) ;; *) echo "build.sh: IMAGO_FUZZ_OPTIMIZATION must be -O, -Onone or -Osize" >&2; exit 2 ;; esac

harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  for dir in Fuzz/*/Harness.swift; do harnesses+=("$(basename "$(dirname "$dir")")"); done
fi

# IMAGO_FUZZ_PREBUILT=1: the caller has built .build already (CI's build stage), so SwiftPM is not
# run, and its lock on .build is left to the `swift test` that runs beside a background smoke pass.
[ "${IMAGO_FUZZ_PREBUILT:-0}" = 1 ] || swift build --target Imago 2>&1 | grep -v '^\[' || true
debug=$(readlink -f .build/debug)

# SwiftPM's own flags for the Imago module, optimised here instead (Scripts/debug-build-commands.sh).
source Scripts/debug-build-commands.sh
mapfile -t flags < <(debug_swift_flags Imago | grep -vx -e -Onone -e -DDEBUG)
[ ${#flags[@]} -gt 10 ] || exit 1
flags+=(-module-cache-path "$out/ModuleCache")
# The system libraries Package.swift links (libjpeg, libpng, libwebp…), from the test product's link command.
mapfile -t libraries < <(debug_command_args 'C.ImagoPackageTests-[^"]*-debug.test' | grep '^-l' | sort -u)

# Rebuild Imago's instrumented object only when a source, or the optimisation, changed.
mapfile -t sources < <(find Sources/Imago -name '*.swift' | sort)
stamp=$out/imago.stamp
if [ ! -f "$stamp" ] || [ -n "$(find Sources/Imago Sources/CImagoCodecs -newer "$stamp" -type f | head -1)" ] \
  || [ "$(printf '%s\n' "$optimization" "${sources[@]}" | md5sum)" != "$(cat "$out/sources.md5" 2>/dev/null)" ]; then
  echo "build.sh: compiling Imago with -sanitize=fuzzer,address $optimization"
  for c in Sources/CImagoCodecs/*.c; do
    clang -c -O1 -g -fPIC -fsanitize=fuzzer-no-link,address -I Sources/CImagoCodecs/include "$c" \
      -o "$out/obj/CImagoCodecs-$(basename "$c" .c).o"
  done
  # Whole-module optimisation, code generated on both cores: one object a source file, named
  # after it (a module's file names are unique), in obj/Imago.
  rm -rf "$out/obj/Imago" "$out/obj/Imago.o"
  mkdir -p "$out/obj/Imago"
  (cd "$out/obj/Imago" && swiftc -module-name Imago -emit-module -emit-module-path "$out/modules/Imago.swiftmodule" \
    -c -wmo -num-threads 2 "$optimization" -enable-testing -sanitize=fuzzer,address "${flags[@]}" "${sources[@]/#/$root/}")
  printf '%s\n' "$optimization" "${sources[@]}" | md5sum > "$out/sources.md5"
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

# Compiles Fuzz/Common and the harness and links them with Imago and its dependencies.
link_harness() {
  local harness=$1 binary=$2
  shift 2
  swiftc -module-name "FuzzHarness" -parse-as-library "$optimization" -sanitize=fuzzer,address "${flags[@]}" -I "$out/modules" \
    Fuzz/Common/*.swift "Fuzz/$harness/Harness.swift" "$@" "$out"/obj/Imago/*.o "$out"/obj/CImagoCodecs-*.o \
    "${dependency_objects[@]}" "${libraries[@]}" -o "$binary" 2>&1 \
    | { grep -v "Cannot export local symbol '__asan_" || true; }  # gold's noise about ASan's helpers
}

# Two links at a time (one per core of the CI machine); any failure fails the build.
running=()
failed=0
for harness in "${harnesses[@]}"; do
  [ -f "Fuzz/$harness/Harness.swift" ] || { echo "build.sh: no harness Fuzz/$harness/Harness.swift" >&2; exit 2; }
  binary=$out/bin/$harness
  # A harness of code outside Sources/Imago lists those files in Fuzz/HARNESS/sources.
  extra=()
  if [ -f "Fuzz/$harness/sources" ]; then mapfile -t extra < <(grep -v '^#' "Fuzz/$harness/sources" | grep .); fi
  if [ -f "$binary" ] && [ -z "$(find Fuzz/Common "Fuzz/$harness/Harness.swift" "${extra[@]}" "$stamp" -newer "$binary" | head -1)" ]; then
    continue
  fi
  echo "build.sh: linking $harness"
  if [ ${#running[@]} -ge 2 ]; then
    wait "${running[0]}" || failed=1
    running=("${running[@]:1}")
  fi
  link_harness "$harness" "$binary" "${extra[@]}" &
  running+=($!)
done
for pid in "${running[@]}"; do wait "$pid" || failed=1; done
[ $failed -eq 0 ] || { echo "build.sh: a harness failed to build (messages above)" >&2; exit 1; }

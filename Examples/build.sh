#!/usr/bin/env bash
# Builds Examples/ImagoExample against the ordinary debug build in .build, as CI's example stage
# does: Examples/build.sh [OUTPUT] (default .build/debug/ImagoExample).
#
# Why not `swift build --package-path Examples/ImagoExample`: that builds Imago and every one of its
# dependencies again in the example's own .build (about 140 s on the 2-core CI machine, for one
# 27-line file). Instead:
#   - the example's manifest is loaded and its dependency graph resolved by SwiftPM
#     (`swift package show-dependencies`), so a wrong product or package name still fails here,
#     and Imago's manifest is checked for what a dependent package could not build (unsafe flags);
#   - its sources are compiled with the flags SwiftPM gives `imago-cache-stress`, an executable of
#     this package that depends on Imago alone, and linked with that executable's own link command
#     and objects (Imago's and its dependencies'), its own objects swapped for the example's.
# The compile and link commands come from .build/debug.yaml (Scripts/debug-build-commands.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product imago-cache-stress 2>&1 | grep -v '^\[' || true
debug=$(readlink -f .build/debug)
output=${1:-$debug/ImagoExample}
example=Examples/ImagoExample

# The example's manifest, and its graph: a product or package name that Imago does not have fails.
swift package --package-path "$example" show-dependencies > /dev/null 2> "${TMPDIR:-/tmp}/imago-example-resolve.log" \
  || { cat "${TMPDIR:-/tmp}/imago-example-resolve.log" >&2; exit 1; }
# A package that depends on Imago by version cannot build it if any of its targets has unsafe
# flags (SwiftPM refuses them outside root packages); IMAGO_SANITIZE is CI's own exception.
if [ -z "${IMAGO_SANITIZE:-}" ] && swift package dump-package | grep -q '"unsafeFlags"'; then
  echo "Package.swift gives a target unsafeFlags: packages that depend on Imago could not build it" >&2
  exit 1
fi

source Scripts/debug-build-commands.sh
# (Without `-package-name`: another package cannot see Imago's `package` declarations.)
mapfile -t flags < <(debug_swift_flags ImagoCacheStress | sed '/^-package-name$/{N;d;}; s/^ImagoCacheStress_main$/ImagoExample_main/')
[ ${#flags[@]} -gt 10 ] || exit 1
mapfile -t link < <(debug_command_args 'C.imago-cache-stress-[^"]*-debug.exe')
[ ${#link[@]} -gt 5 ] || { echo "cannot read imago-cache-stress's link command from .build/debug.yaml" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mapfile -t sources < <(find "$example/Sources/ImagoExample" -name '*.swift' | sort)
swiftc -module-name ImagoExample -c "${flags[@]}" -module-cache-path "$debug/ModuleCache" \
  "${sources[@]}" -o "$work/ImagoExample.o"

# imago-cache-stress's link command with its objects swapped for ours and its output, module name
# and entry point renamed (SwiftPM compiles an executable's `main` as `Module_main` and links it
# back as `main`, so that tests can link the same objects).
arguments=()
for ((i = 1; i < ${#link[@]}; i++)); do
  case "${link[i]}" in
    -o) arguments+=(-o "$output"); i=$((i + 1)) ;;
    -module-name) arguments+=(-module-name ImagoExample); i=$((i + 1)) ;;
    @*)
      grep -v '/ImagoCacheStress\.build/' "${link[i]#@}" > "$work/objects"
      echo "$work/ImagoExample.o" >> "$work/objects"
      arguments+=("@$work/objects") ;;
    *) arguments+=("${link[i]//ImagoCacheStress_main/ImagoExample_main}") ;;
  esac
done
swiftc "${arguments[@]}"
echo "built $output"

# Sourced by Fuzz/build.sh and Examples/build.sh, which build code outside SwiftPM against the
# ordinary debug build in .build: these read the commands SwiftPM itself planned there
# (.build/debug.yaml), so those builds follow Package.swift's flags, module maps and libraries
# instead of a copy of them that could drift. IMAGO_DEBUG_YAML names a copy of that file to read
# instead (CI's background fuzz build: a `swift test` running meanwhile may rewrite the original).

# debug_command_args NAME: the arguments of debug.yaml's command NAME, one a line, the tool first.
debug_command_args() {
  grep "\"$1\":" -A6 "${IMAGO_DEBUG_YAML:-.build/debug.yaml}" | grep -m1 'args:' \
    | sed 's/^ *args: \[//; s/\]$//' | tr ',' '\n' | sed 's/^"//; s/"$//'
}

# debug_swift_flags MODULE: the swiftc flags SwiftPM compiles MODULE with, without the tool, the
# sources (a response file) and what only SwiftPM's incremental build uses (outputs, dependency
# files, index store, batch mode, job count), one a line.
debug_swift_flags() {
  local skip_next=0 arg
  local -a args
  mapfile -t args < <(debug_command_args "C.$1-[^\"]*-debug.module")
  [ ${#args[@]} -gt 10 ] || { echo "cannot read $1's compile command from .build/debug.yaml: run swift build first" >&2; return 1; }
  for arg in "${args[@]:1}"; do
    if [ $skip_next -eq 1 ]; then skip_next=0; continue; fi
    case "$arg" in
      -module-name | -emit-module-path | -output-file-map | -index-store-path | -emit-objc-header-path | -module-cache-path)
        skip_next=1 ;;
      -emit-dependencies | -emit-module | -incremental | -c | @* | -enable-batch-mode | -serialize-diagnostics \
        | -parseable-output | -emit-objc-header | -j*) ;;
      *) printf '%s\n' "$arg" ;;
    esac
  done
}

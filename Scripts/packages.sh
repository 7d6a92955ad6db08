# The Debian packages Imago needs, in one place: sourced by Scripts/run (the README's two commands)
# and by .ci/run, so the two cannot drift. One per line; say why after a `#`.

# To build (and so to run the demo): the C libraries behind the codecs, the checksums and colour
# management, as -dev packages (headers and the libraries they link).
build_packages=(
  libjpeg62-turbo-dev  # JPEG (libjpeg-turbo)
  libpng-dev           # PNG
  zlib1g-dev           # PNG's iCCP profiles, checksums
  libwebp-dev          # WebP, with libwebpdemux for animations
  libheif-dev          # HEIF/HEIC
  libavif-dev          # AVIF; its libavif15 depends on the aom, rav1e and SVT-AV1 encoders AVIF output uses
  libjxl-dev           # JPEG XL (libjxl 0.7 on Debian 12)
  libisal-dev          # CRC-32C of the disk cache, PNG's fast inflate
  liblcms2-dev         # Little CMS 2: colour profiles
)

# To run the whole test suite, beyond the build: the real peers some tests talk to.
test_packages=(
  chromium             # the browser-parity, colour and `imago serve` demo page tests
  nginx                # the `imago serve` fleet test
  libjpeg-turbo-progs  # djpeg: the JPEG baseline of the benchmarks (.ci/run's bench stage)
  tmux                 # the CLI's terminal tests
  strace               # the system calls per disk hit of `imago-bench --counts` (bench stage, CountsCheckTests)
  libjxl-tools         # cjxl and djxl: the JPEG XL fixtures' reference decodings (JXLDecodingTests)
  python3-venv         # the test venv of moto's S3 server (install_test_venv below)
)

# PyPI packages some tests drive, in the test venv .build/test-venv (ImagoTestSupport's
# ExternalPrograms.testVenvPython finds it): moto's standalone S3 server for the s3:// source test;
# libvips (pyvips-binary) that reads back Imago's gain-map JPEGs (ExternalPrograms.testVenvPyvips).
test_python_packages=(
  "moto[server]==5.2.1"  # S3SourceTests: an S3-compatible server on loopback, with boto3 to fill it
  "pyvips==3.2.0" "pyvips-binary==8.18.7"  # GainMapInteropTests: libvips 8.18's uhdrload/uhdr2scRGB (libultrahdr 2.0.2)
)

# Makes .build/test-venv with the test_python_packages when it lacks one of them.
install_test_venv() {
  local venv=.build/test-venv
  if [ -x "$venv/bin/moto_server" ] && "$venv/bin/python" -c 'import moto, boto3, pyvips' 2>/dev/null; then return 0; fi
  echo "Making the test venv $venv (${test_python_packages[*]})" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "${test_python_packages[@]}"
}

# Prints the packages among "$@" that are not installed, one per line.
missing_packages() {
  local package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || echo "$package"
  done
}

# Installs the packages among "$@" that are missing: with apt-get as root; otherwise prints the
# exact command to run and returns 1. Installs nothing when everything is there.
install_missing_packages() {
  local missing
  mapfile -t missing < <(missing_packages "$@")
  [ ${#missing[@]} -gt 0 ] || return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "Imago needs these Debian packages, which are not installed: ${missing[*]}" >&2
    echo "Install them, then run this again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    return 1
  fi
  echo "Installing ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

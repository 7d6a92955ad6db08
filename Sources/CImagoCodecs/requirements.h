/* Names the Debian package of every library header the shims need that is missing, so a build on
 * a machine without them stops with what to install rather than "file not found" alone. Each shim
 * includes this first; every missing package is listed in the first file that fails. The same
 * packages are listed in Scripts/packages.sh, which `Scripts/run demo` installs. */
#ifndef CIMAGO_REQUIREMENTS_H
#define CIMAGO_REQUIREMENTS_H
#if defined(__linux__) && defined(__has_include)

/* #error does not expand macros: each line says it all. */
#if !__has_include(<jpeglib.h>)
#error "libjpeg-turbo's headers are missing: apt-get install libjpeg62-turbo-dev  (or Scripts/run demo, which installs every package Imago needs: README, Quick start)"
#endif
#if !__has_include(<png.h>)
#error "libpng's headers are missing: apt-get install libpng-dev  (or Scripts/run demo, which installs every package Imago needs: README, Quick start)"
#endif
#if !__has_include(<zlib.h>)
#error "zlib's headers are missing: apt-get install zlib1g-dev  (or Scripts/run demo, which installs every package Imago needs: README, Quick start)"
#endif
#if !__has_include(<webp/decode.h>) || !__has_include(<webp/demux.h>) || !__has_include(<webp/mux.h>)
#error "libwebp's headers are missing: apt-get install libwebp-dev  (or Scripts/run demo, which installs every package Imago needs: README, Quick start)"
#endif
#if !__has_include(<libheif/heif.h>)
#error "libheif's headers are missing: apt-get install libheif-dev  (or Scripts/run demo, which installs every package Imago needs: README, Quick start)"
#endif
#if !__has_include(<avif/avif.h>)
#error "libavif's headers are missing: apt-get install libavif-dev  (or Scripts/run demo, which installs every package Imago needs: README, Quick start)"
#endif
#if !__has_include(<jxl/decode.h>)
#error "libjxl's headers are missing: apt-get install libjxl-dev  (or Scripts/run demo, which installs every package Imago needs: README, Quick start)"
#endif
#if !__has_include(<isa-l/crc.h>)
#error "ISA-L's headers are missing: apt-get install libisal-dev  (or Scripts/run demo, which installs every package Imago needs: README, Quick start)"
#endif
#if !__has_include(<lcms2.h>)
#error "Little CMS 2's headers are missing: apt-get install liblcms2-dev  (or Scripts/run demo, which installs every package Imago needs: README, Quick start)"
#endif

#endif
#endif

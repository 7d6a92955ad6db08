/* Small C shims over libjpeg-turbo and libpng for Imago's Linux codecs.
 *
 * libjpeg reports errors by longjmp, which Swift cannot survive, so every libjpeg call runs behind
 * setjmp here. libpng's simplified API needs no setjmp; the shims only expose what its macros hide
 * from Swift (PNG_FORMAT_RGBA and friends). WebP's shims are declared in CImagoWebP.h.
 */
#ifndef CIMAGO_CODECS_H
#define CIMAGO_CODECS_H

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- JPEG decoding */

/* Outcomes of the JPEG shims. */
#define IMAGO_OK 0
/* libjpeg failed or warned about corrupt or missing data; see imago_jpeg_message. */
#define IMAGO_FAILED 1
/* A progressive file had more scans than the limit given to imago_jpeg_decoder_create. */
#define IMAGO_SCAN_LIMIT 2
/* Lenient decoding stopped at a failure but kept what decoded: imago_jpeg_message says why,
 * imago_jpeg_rows_decoded how many rows came out before it (the rest is grey). */
#define IMAGO_PARTIAL 3
/* The decoding was stopped by its is_cancelled callback (imago_jpeg_set_preview). */
#define IMAGO_CANCELLED 4

/* The colour model of a JPEG as stored. */
typedef enum {
    IMAGO_JPEG_GRAY = 1,
    IMAGO_JPEG_RGB = 2, /* YCbCr or RGB */
    IMAGO_JPEG_CMYK = 3, /* CMYK or YCCK; decoded to RGB by the shim */
} imago_jpeg_color_model;

/* What jpeg_read_header found, before any pixel memory exists. */
typedef struct {
    int width;
    int height;
    int components;
    imago_jpeg_color_model color_model;
    int is_progressive;
} imago_jpeg_header;

/* One decoding: libjpeg's state, its error manager and the jump buffer. Opaque to Swift. */
typedef struct imago_jpeg_decoder imago_jpeg_decoder;

/* Starts decoding `size` bytes at `data`, which must stay valid until destroy. NULL if out of memory. */
imago_jpeg_decoder *imago_jpeg_decoder_create(const uint8_t *data, size_t size, int maximum_scans);
void imago_jpeg_decoder_destroy(imago_jpeg_decoder *decoder);

/* Reads the markers up to the first scan. */
int imago_jpeg_read_header(imago_jpeg_decoder *decoder, imago_jpeg_header *header);

/* Starts decompression at scale_numerator/8 (1...8) and reports the output size. For a progressive
 * file this reads every scan (the scan limit applies here); a lenient decoder reads them in
 * imago_jpeg_read_pixels instead, one by one, under the same limit. */
int imago_jpeg_start(imago_jpeg_decoder *decoder, int scale_numerator, int *width, int *height);

/* Writes the output as RGBA8 rows of `stride` bytes into `pixels` (height * stride bytes). */
int imago_jpeg_read_pixels(imago_jpeg_decoder *decoder, uint8_t *pixels, size_t stride);

/* libjpeg's words for the last failure. */
const char *imago_jpeg_message(const imago_jpeg_decoder *decoder);

/* Lenient decoding (call before imago_jpeg_start): warnings about corrupt or missing data are
 * counted instead of failing, and a failure once the output size is known returns IMAGO_PARTIAL
 * with what decoded (the rest grey, libjpeg's own fill) instead of IMAGO_FAILED. */
void imago_jpeg_set_lenient(imago_jpeg_decoder *decoder, int lenient);

/* With `raw` not 0, a CMYK or YCCK file's rows come out as C, M, Y, K bytes (4 a pixel) instead
 * of RGBA converted by formula, for a colour profile to convert. Set before imago_jpeg_start. */
void imago_jpeg_set_raw_cmyk(imago_jpeg_decoder *decoder, int raw);

/* Block smoothing (libjpeg's default: on) estimates the low AC coefficients of a progressive file
 * whose scans have not all arrived. Off (0) for a file whose unread scans were left out on purpose
 * (JPEGScanSelector): the missing coefficients are then zero, as the 1/8-scale decode of the whole
 * file ignores them. Set before imago_jpeg_start. */
void imago_jpeg_set_block_smoothing(imago_jpeg_decoder *decoder, int smoothing);

/* After imago_jpeg_read_header: 1 when the file has an Adobe APP14 marker, whose CMYK is stored
 * inverted (255 = no ink), as Photoshop writes it. */
int imago_jpeg_cmyk_inverted(const imago_jpeg_decoder *decoder);
/* How many data warnings lenient decoding passed over, and libjpeg's words for the first. */
int imago_jpeg_warning_count(const imago_jpeg_decoder *decoder);
const char *imago_jpeg_warning(const imago_jpeg_decoder *decoder);
/* Rows output before a failure (the output height after a complete decode). */
int imago_jpeg_rows_decoded(const imago_jpeg_decoder *decoder);

/* Preview decoding (call before imago_jpeg_read_header): the `size` bytes given to
 * imago_jpeg_decoder_create end where a scan of a progressive (multi-scan) file ends, and an end of
 * image is read after them. The scans are read in buffered-image mode (the same whole-image
 * coefficient buffer a full decode of the file holds) and the output shows them, with libjpeg's
 * smoothing of the missing coefficients. Strict: any data warning fails it; a single-scan file
 * fails at imago_jpeg_start. `is_cancelled` (may be NULL) is asked as scans are read and rows
 * output; when it returns 1 the decoding stops with IMAGO_CANCELLED. */
void imago_jpeg_set_preview(imago_jpeg_decoder *decoder, int (*is_cancelled)(void));
/* The scans read so far (after imago_jpeg_read_pixels: the scans the output shows). */
int imago_jpeg_scans_read(const imago_jpeg_decoder *decoder);

/* ---------------------------------------------------------------- JPEG encoding */

/* Encodes RGBX8 rows (the fourth byte is ignored) at `quality` (1...100). On success `*output` is
 * a malloc'ed buffer for imago_free. On failure `message` (at least 200 bytes) says why. */
int imago_jpeg_encode(const uint8_t *pixels, int width, int height, size_t stride, int quality,
                      uint8_t **output, size_t *output_size, char *message);

/* imago_jpeg_encode that fails ("insufficient memory") when the output would pass `output_limit`
 * bytes (0: no limit). The shim owns its output buffer until success, so failing after the buffer
 * has grown frees it exactly once; the limit lets tests take that path with real input. */
int imago_jpeg_encode_limited(const uint8_t *pixels, int width, int height, size_t stride, int quality,
                              size_t output_limit, uint8_t **output, size_t *output_size, char *message);

/* imago_jpeg_encode_limited, written as a progressive JPEG when `progressive` is not 0: what the
 * image proxy serves, so a browser can show a coarse image first. Five spectral-selection scans
 * (DC, low luma, each chroma, the rest of luma), without libjpeg's refinement scans. */
int imago_jpeg_encode_progressive(const uint8_t *pixels, int width, int height, size_t stride, int quality,
                                  int progressive, size_t output_limit, uint8_t **output, size_t *output_size,
                                  char *message);

/* imago_jpeg_encode, written as a one-component (greyscale) baseline JPEG of the rows' luma: an
 * HDR gain map with one channel, as Ultra HDR stores it. */
int imago_jpeg_encode_grayscale(const uint8_t *pixels, int width, int height, size_t stride, int quality,
                                uint8_t **output, size_t *output_size, char *message);

void imago_free(void *pointer);

/* ---------------------------------------------------------------- PNG, row by row (libpng row API) */

/* A libpng read struct behind setjmp, decoding one row at a time. Opaque to Swift. */
typedef struct imago_png_rows imago_png_rows;

/* imago_png_rows_create option: browser-like leniency (chunk CRC mismatches used with a warning,
 * which imago_png_rows_ignored_checksum reports; zlib's Adler-32 not checked; benign errors). */
#define IMAGO_PNG_LENIENT 1
/* imago_png_rows_start option: an image without alpha comes as RGB8 rows (3 bytes a pixel). */
#define IMAGO_PNG_RGB 2
/* imago_png_rows_start option: a 16-bit file's rows keep their 16-bit samples (big-endian, as
 * stored), for a colour transform that reads them; other files are unaffected. */
#define IMAGO_PNG_KEEP16 4

/* Reads the header of a PNG in memory (`data` must stay valid until destroy). Returns NULL only
 * when out of memory; check imago_png_rows_header_ok, then imago_png_rows_message. Allocates no
 * pixel memory. */
imago_png_rows *imago_png_rows_create(const uint8_t *data, size_t size, int options);
/* Sets up the transformations to straight-alpha RGBA8 (as imago_png_read_pixels), or RGB8 for an
 * image without alpha when `options` has IMAGO_PNG_RGB. 1 on success. */
int imago_png_rows_start(imago_png_rows *rows, int options);
void imago_png_rows_destroy(imago_png_rows *rows);
int imago_png_rows_header_ok(const imago_png_rows *rows);
uint32_t imago_png_rows_width(const imago_png_rows *rows);
uint32_t imago_png_rows_height(const imago_png_rows *rows);
/* 1 for Adam7: rows then come pass by pass, each holding that pass's pixels only. */
int imago_png_rows_interlaced(const imago_png_rows *rows);
int imago_png_rows_has_alpha(const imago_png_rows *rows);
/* Bytes per pixel of the rows, 3 or 4, once started. */
int imago_png_rows_channels(const imago_png_rows *rows);
/* The file's bit depth (1, 2, 4, 8 or 16) and whether its colour type is gray (with or without alpha). */
int imago_png_rows_bit_depth(const imago_png_rows *rows);
int imago_png_rows_is_gray(const imago_png_rows *rows);
/* 1 once a chunk's CRC mismatch was ignored (lenient only). */
int imago_png_rows_ignored_checksum(const imago_png_rows *rows);
/* How many rows imago_png_rows_read delivers: the height, or the rows of every non-empty pass. */
uint64_t imago_png_rows_count(const imago_png_rows *rows);
/* Where the next row goes: its Adam7 pass (0-6; 0 when not interlaced), its row within the pass
 * and its pixel count. 1 on success. */
int imago_png_rows_pass(const imago_png_rows *rows, int *pass, uint32_t *row, uint32_t *columns);
/* Decodes the next row into `row` (width * channels bytes). Returns 1, or 0 with the message set. */
int imago_png_rows_read(imago_png_rows *rows, uint8_t *row);
/* After the last row: reads to IEND, so a file cut after its pixels still fails. 1 on success. */
int imago_png_rows_finish(imago_png_rows *rows);
const char *imago_png_rows_message(const imago_png_rows *rows);

/* ---------------------------------------------------------------- PNG (libpng simplified API) */

/* A png_image, opaque here so that Swift needs no libpng header. */
typedef struct imago_png_decoder imago_png_decoder;

/* Reads the header of a PNG in memory (`data` must stay valid until destroy). Returns NULL only when
 * out of memory; check imago_png_message otherwise. */
imago_png_decoder *imago_png_decoder_create(const uint8_t *data, size_t size);
void imago_png_decoder_destroy(imago_png_decoder *decoder);
/* 1 when the header was read; then width, height and has_alpha are valid. */
int imago_png_header_ok(const imago_png_decoder *decoder);
uint32_t imago_png_width(const imago_png_decoder *decoder);
uint32_t imago_png_height(const imago_png_decoder *decoder);
/* 1 when the image has an alpha channel or a tRNS chunk. */
int imago_png_has_alpha(const imago_png_decoder *decoder);
/* Decodes into straight-alpha RGBA8 rows of `stride` bytes. 16-bit files without gamma information
 * are taken as sRGB (as browsers do), not as linear light. Returns 1 on success. */
int imago_png_read_pixels(imago_png_decoder *decoder, uint8_t *pixels, size_t stride);
const char *imago_png_message(const imago_png_decoder *decoder);

/* Encodes RGBA8 (has_alpha 1) or RGB8 (has_alpha 0) rows. On success `*output` is a malloc'ed
 * buffer for imago_free; on failure `message` (at least 64 bytes) says why. */
int imago_png_encode(const uint8_t *pixels, int width, int height, size_t stride, int has_alpha,
                     uint8_t **output, size_t *output_size, char *message);
/* Encodes with libpng's row API what the simplified API cannot: `channels` 4 (RGBA8), 3 (RGB8) or
 * 1 (8-bit indices into `palette`, `palette_count` RGBA entries, written as PLTE and, when an entry
 * is not opaque, tRNS), Adam7-interlaced when `interlaced` is not 0. Output and errors as
 * imago_png_encode. */
int imago_png_encode_rows(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                          const uint8_t *palette, int palette_count, int interlaced, uint8_t **output,
                          size_t *output_size, char *message);

/* ---------------------------------------------------------------- WebP (libwebp, libwebpdemux) */

#include "CImagoWebP.h"

/* ---------------------------------------------------------------- HEIF and AVIF */

#include "CImagoHEIFAVIF.h"

/* ---------------------------------------------------------------- JPEG XL (libjxl) */

#include "CImagoJXL.h"

/* ---------------------------------------------------------------- CRC-32C (the disk cache's checksums) */

#include "CImagoChecksum.h"
#include "CImagoSHA256.h"

/* ---------------------------------------------------------------- colour management (Little CMS) */

#include "CImagoColor.h"

#endif

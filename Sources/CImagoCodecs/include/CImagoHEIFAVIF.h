/* Small C shims over libheif (HEIF/HEIC) and libavif (AVIF) for Imago's Linux codecs.
 *
 * Neither library longjmps: the shims only keep their structs and enums out of Swift and convert
 * every image to 8-bit RGBA rows. Swift checks Imago's limits from the file's boxes before calling
 * them, and again against what the library reports before any pixel buffer is allocated.
 */
#ifndef CIMAGO_HEIF_AVIF_H
#define CIMAGO_HEIF_AVIF_H

#if defined(__linux__)

#include <stddef.h>
#include <stdint.h>

/* Room for a library's error message, terminator included. */
#define IMAGO_MESSAGE_CAPACITY 256

/* Outcomes of the calls below that decode. */
#define IMAGO_DECODED 1
#define IMAGO_DECODE_FAILED 0
/* The library is present but has no decoder for the codec inside (HEVC for libheif, AV1 for libavif). */
#define IMAGO_CODEC_MISSING 2

/* ---------------------------------------------------------------- HEIF (libheif) */

/* A libheif context and its primary image handle. Opaque to Swift. */
typedef struct imago_heif_decoder imago_heif_decoder;

/* Parses `size` bytes at `data` (which must stay valid until destroy). NULL on failure, with
 * libheif's words in `message` (IMAGO_MESSAGE_CAPACITY bytes). */
imago_heif_decoder *imago_heif_decoder_create(const uint8_t *data, size_t size, char *message, int *status);
void imago_heif_decoder_destroy(imago_heif_decoder *decoder);

/* Switches the decoder from the primary image to its largest embedded thumbnail (by pixels; one of
 * non-positive size is skipped). Returns 1 when it switched, 0 when the primary image has no usable
 * thumbnail (the decoder is left on the primary image). */
int imago_heif_select_thumbnail(imago_heif_decoder *decoder, char *message);

/* What the selected image's own `colr` property declares (an ICC profile wins over code points,
 * as libheif reports them): IMAGO_HEIF_COLOR_NONE; IMAGO_HEIF_COLOR_ICC, with the profile's size
 * in `icc_size` (read it with imago_heif_copy_icc); or IMAGO_HEIF_COLOR_NCLX, with the code points. */
#define IMAGO_HEIF_COLOR_NONE 0
#define IMAGO_HEIF_COLOR_ICC 1
#define IMAGO_HEIF_COLOR_NCLX 2
int imago_heif_color(const imago_heif_decoder *decoder, int *primaries, int *transfer, int *matrix, int *full_range,
                     size_t *icc_size);

/* Copies the selected image's ICC profile into `profile`, which holds `size` bytes: the size
 * imago_heif_color reported. Returns 1 when copied, 0 otherwise. */
int imago_heif_copy_icc(const imago_heif_decoder *decoder, uint8_t *profile, size_t size);

/* The selected image's displayed size (rotation applied) and whether it has alpha. */
void imago_heif_info(const imago_heif_decoder *decoder, int *width, int *height, int *has_alpha);

/* Decodes the selected image (the primary one, or its thumbnail) into RGBA8 rows of `stride` bytes; `width` x `height` must be what
 * imago_heif_info reported. Returns IMAGO_DECODED, or another outcome with libheif's words in `message`. */
int imago_heif_read_pixels(imago_heif_decoder *decoder, uint8_t *pixels, size_t stride, int width, int height,
                           char *message);

/* ---------------------------------------------------------------- AVIF (libavif) */

typedef struct imago_avif_decoder imago_avif_decoder;

/* What avifDecoderParse found. */
typedef struct {
    int width;
    int height;
    int has_alpha;
    int frame_count; /* 1 for a still image */
} imago_avif_info;

/* Parses `size` bytes at `data` (valid until destroy); `maximum_frames` caps the sequence length
 * (0: no cap, when only the first frame is decoded).
 * NULL on failure, with libavif's words in `message` and the outcome in `status`. */
imago_avif_decoder *imago_avif_decoder_create(const uint8_t *data, size_t size, int maximum_frames,
                                              imago_avif_info *info, char *message, int *status);
void imago_avif_decoder_destroy(imago_avif_decoder *decoder);

/* Decodes the next frame into RGBA8 rows of `stride` bytes and reports its duration in seconds.
 * Returns IMAGO_DECODED, or another outcome with libavif's words in `message` (a frame of another
 * size fails). */
int imago_avif_next_frame(imago_avif_decoder *decoder, uint8_t *pixels, size_t stride, double *duration,
                          char *message);

/* Whether this libavif has an AV1 encoder (aom, rav1e or SVT-AV1): 1 or 0. */
int imago_avif_can_encode(void);

/* Encodes straight-alpha RGBA8 rows of `stride` bytes as a still AVIF: 8-bit YUV 4:2:0, BT.601
 * full range, with an alpha plane when `has_alpha`; `quality` 0...100 (100: lossless quantizers),
 * `speed` 0 (slowest) ... 10 (fastest); `icc` (`icc_size` bytes, or NULL) is written as the
 * colour profile. Width and height must be 1...65535. Returns 0 (IMAGO_OK)
 * with `*output` a malloc'ed buffer for imago_free, or 1 (IMAGO_FAILED) with libavif's words in
 * `message` (IMAGO_MESSAGE_CAPACITY bytes). */
int imago_avif_encode(const uint8_t *pixels, int width, int height, size_t stride, int has_alpha, int quality,
                      int speed, const uint8_t *icc, size_t icc_size, uint8_t **output, size_t *output_size,
                      char *message);

#endif /* __linux__ */
#endif

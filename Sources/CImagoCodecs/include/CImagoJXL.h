/* libjxl shims for Imago's Linux JPEG XL decoder (Debian: libjxl-dev, libjxl 0.7 or later).
 *
 * Swift sees no libjxl header: the decoder is opaque and every call takes plain bytes and sizes.
 * libjxl does not longjmp; the shims keep its event loop out of Swift and split it where Swift must
 * check Imago's limits: after the basic info (the image's size, before any pixel memory exists)
 * and before each frame's pixels are allocated. No global state.
 */
#ifndef CIMAGO_JXL_H
#define CIMAGO_JXL_H

#if defined(__linux__)

#include <stddef.h>
#include <stdint.h>

/* Outcomes of the calls below. */
#define IMAGO_JXL_OK 1
#define IMAGO_JXL_FAILED 0
/* imago_jxl_next_frame: the file has no more frames. */
#define IMAGO_JXL_END 2
/* imago_jxl_read_color: the pixels are sRGB (or grey with sRGB's curve and white): nothing to convert. */
#define IMAGO_JXL_SRGB 3
/* imago_jxl_read_color: the pixels' ICC profile is larger than the maximum given. */
#define IMAGO_JXL_PROFILE_TOO_LARGE 4

/* Room for libjxl's or the shim's words about a failure, terminator included. */
#define IMAGO_JXL_MESSAGE_CAPACITY 200

/* What the codestream's headers declare (JxlBasicInfo), read before any pixel is decoded. */
typedef struct {
    uint32_t width;  /* as displayed: orientation applied (libjxl turns the pixels) */
    uint32_t height;
    int has_alpha;
    int is_gray;
    int bits_per_sample;
    int orientation;   /* 1...8 as in EXIF */
    int has_animation;
    uint32_t loop_count; /* 0: forever */
    uint32_t ticks_numerator; /* ticks per second: numerator / denominator */
    uint32_t ticks_denominator;
    int is_lossless_color; /* uses_original_profile: pixels stored in the original colour space */
} imago_jxl_info;

/* One decoding. Opaque to Swift. */
typedef struct imago_jxl_decoder imago_jxl_decoder;

/* Reads the headers of `size` bytes at `data` (which must stay valid until destroy), a bare
 * codestream or the ISO BMFF container, up to the basic info. NULL on failure, with `message`
 * (IMAGO_JXL_MESSAGE_CAPACITY bytes) saying why. Allocates no pixel memory. */
imago_jxl_decoder *imago_jxl_decoder_create(const uint8_t *data, size_t size, imago_jxl_info *info, char *message);
void imago_jxl_decoder_destroy(imago_jxl_decoder *decoder);

/* Reads the colour encoding. Lossy (XYB) images are asked for sRGB output, which libjxl converts
 * to itself; lossless ones come out in their own space. Returns IMAGO_JXL_SRGB when the output is
 * sRGB; IMAGO_JXL_OK with `*profile` a malloc'ed ICC profile of `*profile_size` bytes (for
 * imago_jxl_free) describing the output pixels; IMAGO_JXL_PROFILE_TOO_LARGE (with its size in
 * `*profile_size`) when it is over `maximum_profile_size`; IMAGO_JXL_FAILED with `message`.
 * Call once, after create and before the first frame. */
int imago_jxl_read_color(imago_jxl_decoder *decoder, size_t maximum_profile_size, uint8_t **profile,
                         size_t *profile_size, char *message);

/* Advances to the next displayed frame (animations are coalesced into full canvases). Returns
 * IMAGO_JXL_OK with the frame's duration in ticks, IMAGO_JXL_END when there is none, or
 * IMAGO_JXL_FAILED with `message`. Allocates no pixel memory. */
int imago_jxl_next_frame(imago_jxl_decoder *decoder, uint32_t *duration_ticks, char *message);

/* Decodes the frame found by imago_jxl_next_frame into straight-alpha RGBA8 rows of width * 4
 * bytes in `pixels` (`pixels_size` bytes, which must be width * height * 4 of the info). Returns
 * IMAGO_JXL_OK, or IMAGO_JXL_FAILED with `message` when the data is corrupt or cut short. */
int imago_jxl_read_frame(imago_jxl_decoder *decoder, uint8_t *pixels, size_t pixels_size, char *message);

void imago_jxl_free(void *pointer);

/* Encodes `height` rows of `width` straight-alpha RGBA8 pixels (`stride` bytes a row, at least
 * width * 4) as a bare JPEG XL codestream. Written as grey when every pixel is (and no ICC profile
 * is given), without alpha when `has_alpha` is 0 or every alpha is 255. `distance` is libjxl's
 * Butteraugli distance (0.1...25; lossy, XYB), ignored when `lossless` is not 0 (modular, every
 * pixel kept); `effort` 1...9. `icc`/`icc_size`: the pixels' ICC profile, or NULL/0 for sRGB.
 * Returns 0 (IMAGO_OK) with `*output` a malloc'ed codestream of `*output_size` bytes (for
 * imago_jxl_free), or 1 (IMAGO_FAILED) with `message` (IMAGO_JXL_MESSAGE_CAPACITY bytes). */
int imago_jxl_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, int has_alpha,
                     float distance, int lossless, int effort, const uint8_t *icc, size_t icc_size,
                     uint8_t **output, size_t *output_size, char *message);

/* imago_jxl_encode for `frame_count` frames of the same size and stride, `frames[i]` shown for
 * `durations[i]` milliseconds, played `loop_count` times (0: forever): an animation when there is
 * more than one frame. One channel layout for all: grey only if every frame is, alpha if any has. */
int imago_jxl_encode_animation(const uint8_t *const *frames, const uint32_t *durations, size_t frame_count,
                               uint32_t loop_count, uint32_t width, uint32_t height, size_t stride, int has_alpha,
                               float distance, int lossless, int effort, const uint8_t *icc, size_t icc_size,
                               uint8_t **output, size_t *output_size, char *message);

#endif
#endif

/* Small C shims over Little CMS 2 (Debian: liblcms2-dev) for Imago's colour management on Linux.
 *
 * Little CMS never longjmps: its errors go to a handler, which the shims turn into a message. The
 * shims keep its handles and pixel-format macros out of Swift. Swift reads and checks a profile's
 * header before handing it here, and caches the transforms these calls build.
 */
#ifndef CIMAGO_COLOR_H
#define CIMAGO_COLOR_H

#if defined(__linux__)

#include <stddef.h>
#include <stdint.h>

/* How the pixels handed to imago_color_transform_apply are laid out. The output is 8-bit RGBA in
 * sRGB, 4 bytes a pixel (in the profile's space for IMAGO_COLOR_SRGB_TO_PROFILE_RGBA8); its alpha is
 * copied from the input's (255 where it has none). */
typedef enum {
    IMAGO_COLOR_RGBA8 = 1,          /* R, G, B, A bytes; may be converted in place */
    IMAGO_COLOR_GRAY_IN_RGBA8 = 2,  /* R = G = B gray, A: 4 bytes a pixel; may be converted in place */
    IMAGO_COLOR_CMYK8 = 3,          /* C, M, Y, K bytes, 0 = no ink; may be converted in place */
    IMAGO_COLOR_CMYK8_INVERTED = 4, /* C, M, Y, K bytes, 255 = no ink (Adobe files); in place too */
    IMAGO_COLOR_RGB16BE = 5,        /* R, G, B big-endian 16-bit samples (PNG rows); never in place */
    IMAGO_COLOR_RGBA16BE = 6,       /* R, G, B, A big-endian 16-bit samples; never in place */
    IMAGO_COLOR_SRGB_TO_PROFILE_RGBA8 = 7, /* the other way: sRGB R, G, B, A bytes in, the (RGB)
                                              profile's R, G, B, A bytes out; in place too */
} imago_color_layout;

/* A Little CMS transform from one profile to sRGB for one input layout. Opaque to Swift. Built
 * without Little CMS's one-pixel cache, so one transform may be applied from several threads. */
typedef struct imago_color_transform imago_color_transform;

/* Builds the transform from the ICC profile of `size` bytes at `icc` (copied; relative
 * colorimetric intent, no black point compensation, as browsers and libvips' thumbnails do). NULL
 * on failure, with Little CMS's words in `message` (`capacity` bytes). */
imago_color_transform *imago_color_transform_create(const uint8_t *icc, size_t size, imago_color_layout layout,
                                                    char *message, size_t capacity);

/* Converts `rows` rows of `width` pixels: from `input` (rows `input_stride` bytes apart) to `output`
 * (8-bit RGBA rows `output_stride` bytes apart). `input` may equal `output` for the 8-bit layouts. */
void imago_color_transform_apply(const imago_color_transform *transform, const void *input, size_t input_stride,
                                 uint8_t *output, size_t output_stride, size_t width, size_t rows);

void imago_color_transform_destroy(imago_color_transform *transform);

/* The transfer curves imago_color_rgb_profile_create builds. */
typedef enum {
    IMAGO_TRANSFER_GAMMA = 1,  /* y = x^gamma */
    IMAGO_TRANSFER_SRGB = 2,   /* IEC 61966-2-1 */
    IMAGO_TRANSFER_LINEAR = 3,
} imago_transfer;

/* An ICC profile (version 4) of an RGB space from its chromaticities (x, y of white, red, green,
 * blue) and transfer curve, saved to memory: what a PNG's gAMA and cHRM or a CICP/nclx colour
 * declare. `gamma` is used by IMAGO_TRANSFER_GAMMA only. Returns the bytes (free with
 * imago_color_free) and their count in `size`, or NULL with Little CMS's words in `message`. */
uint8_t *imago_color_rgb_profile_create(const double chromaticities[8], imago_transfer transfer, double gamma,
                                        const char *description, size_t *size, char *message, size_t capacity);

void imago_color_free(void *pointer);

#endif /* __linux__ */
#endif /* CIMAGO_COLOR_H */

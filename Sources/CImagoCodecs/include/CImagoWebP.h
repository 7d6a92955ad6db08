/* libwebp and libwebpdemux shims for Imago's Linux WebP decoder (Debian: libwebp-dev).
 *
 * Swift sees no libwebp header: the shims take plain bytes and sizes, and the animation decoder is
 * opaque. Every function bounds-checks its input; none keeps global state.
 */
#ifndef CIMAGO_WEBP_H
#define CIMAGO_WEBP_H

#include <stddef.h>
#include <stdint.h>

/* What the header of a WebP file declares (WebPGetFeatures): the canvas size for extended files. */
typedef struct {
    int width;
    int height;
    int has_alpha;
    int has_animation;
} imago_webp_info;

/* Reads the header; returns libwebp's VP8StatusCode (0 when `info` was filled). */
int imago_webp_get_info(const uint8_t *data, size_t size, imago_webp_info *info);

/* Decodes a still WebP into straight-alpha RGBA rows of `stride` bytes in `pixels` (`pixels_size`
 * bytes), at `scaled_width` x `scaled_height` (at most the full size; smaller uses libwebp's own
 * rescaler while decoding). The bitstream must be exactly `width` x `height` as the header
 * declares. Returns 1 on success, 0 when the data is corrupt, cut short or of another size. */
int imago_webp_decode_still(const uint8_t *data, size_t size, int width, int height, int scaled_width,
                            int scaled_height, uint8_t *pixels, size_t pixels_size, size_t stride);

/* Counts the ANMF (animation frame) chunks by walking the chunk headers, allocating nothing, so
 * that limits are checked before libwebpdemux parses the frames. */
size_t imago_webp_count_frames(const uint8_t *data, size_t size);

/* An animation being played by WebPAnimDecoder into full RGBA canvases. Opaque to Swift. */
typedef struct imago_webp_animation imago_webp_animation;

/* Parses an animated WebP (`data` must stay valid until destroy). Fails, with `message` (at least
 * 160 bytes) saying why, when the file is not a complete animation or a frame's bitstream is not
 * the size its ANMF chunk declares. The decoder allocates two canvases: check the limits first. */
imago_webp_animation *imago_webp_animation_create(const uint8_t *data, size_t size, char *message);
void imago_webp_animation_destroy(imago_webp_animation *animation);

/* Canvas size and frame count as the demuxer found them. */
void imago_webp_animation_info(const imago_webp_animation *animation, uint32_t *width, uint32_t *height,
                               uint32_t *frame_count);

/* How many times the animation plays, from its ANIM chunk: 0 for forever. */
uint32_t imago_webp_animation_loop_count(const imago_webp_animation *animation);

/* Decodes the next frame onto the canvas. On success returns 1, `*canvas` points at width * height
 * straight-alpha RGBA pixels owned by the decoder (valid until the next call or destroy) and
 * `*timestamp` is the frame's end time in milliseconds. Returns 0 on corrupt data or at the end. */
int imago_webp_animation_next(imago_webp_animation *animation, const uint8_t **canvas, int *timestamp);

/* imago_webp_encode's results: IMAGO_OK and IMAGO_FAILED's values, for a header that stands alone. */
#define IMAGO_WEBP_OK 0
#define IMAGO_WEBP_FAILED 1

/* Encodes straight-alpha RGBA8 rows of `stride` bytes: losslessly (VP8L, every pixel kept, `quality`
 * then sets the effort) or lossy (VP8 at `quality` 0...100, alpha kept), with libwebp's `method`
 * 0 (fastest) to 6 (smallest; libwebp's default 4), starting from libwebp's `preset` (WebPPreset:
 * 0 default, 1 picture, 2 photo, 3 drawing, 4 icon, 5 text). Width and height must be 1...16383.
 * On success `*output` is a malloc'ed buffer for imago_free; on failure `message` (at least 160
 * bytes) says why. */
int imago_webp_encode(const uint8_t *pixels, int width, int height, size_t stride, int lossless, int quality,
                      int method, int preset, uint8_t **output, size_t *output_size, char *message);

/* An animation being written by libwebpmux's WebPAnimEncoder, frame by frame. Opaque to Swift. */
typedef struct imago_webp_animation_encoder imago_webp_animation_encoder;

/* Starts an animation of `width` x `height` (1...16383) canvases that plays `loop_count` times (0:
 * forever), each frame lossless (`quality` sets the effort) or lossy at `quality` 0...100, with
 * libwebp's `method` 0...6 (4: its default) and `preset` (as for imago_webp_encode). Returns NULL
 * with `message` (at least 160 bytes) saying why. */
imago_webp_animation_encoder *imago_webp_animation_encoder_create(int width, int height, int loop_count, int lossless,
                                                                  int quality, int method, int preset, char *message);
/* Adds a full canvas of straight-alpha RGBA8 rows of `stride` bytes shown from `timestamp`
 * milliseconds (increasing). Returns IMAGO_WEBP_OK, or IMAGO_WEBP_FAILED with `message`. */
int imago_webp_animation_encoder_add(imago_webp_animation_encoder *encoder, const uint8_t *pixels, size_t stride,
                                     int timestamp, char *message);
/* Ends the animation at `end_timestamp` milliseconds (the last frame's end) and assembles the file:
 * on success `*output` is a malloc'ed buffer for imago_free. */
int imago_webp_animation_encoder_finish(imago_webp_animation_encoder *encoder, int end_timestamp, uint8_t **output,
                                        size_t *output_size, char *message);
void imago_webp_animation_encoder_destroy(imago_webp_animation_encoder *encoder);

#endif

/* libwebp (stills) and libwebpdemux's WebPAnimDecoder (animations) behind bounds-checked shims. */
#if defined(__linux__) /* Apple platforms decode with ImageIO; Xcode still builds this target. */
#include "requirements.h"
#include "CImagoWebP.h"
#include "copy_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>

int imago_webp_get_info(const uint8_t *data, size_t size, imago_webp_info *info) {
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(data, size, &features);
    if (status != VP8_STATUS_OK) return (int)status;
    info->width = features.width;
    info->height = features.height;
    info->has_alpha = features.has_alpha;
    info->has_animation = features.has_animation;
    return 0;
}

int imago_webp_decode_still(const uint8_t *data, size_t size, int width, int height, int scaled_width,
                            int scaled_height, uint8_t *pixels, size_t pixels_size, size_t stride) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return 0;
    if (WebPGetFeatures(data, size, &config.input) != VP8_STATUS_OK) return 0;
    if (config.input.width != width || config.input.height != height || config.input.has_animation) return 0;
    if (scaled_width < 1 || scaled_height < 1 || scaled_width > width || scaled_height > height) return 0;
    if (stride > (size_t)INT32_MAX || stride / 4 < (size_t)scaled_width || pixels_size / stride < (size_t)scaled_height)
        return 0;
    if (scaled_width != width || scaled_height != height) {
        config.options.use_scaling = 1;
        config.options.scaled_width = scaled_width;
        config.options.scaled_height = scaled_height;
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = pixels_size;
    VP8StatusCode status = WebPDecode(data, size, &config);
    /* Every row must have been written: a decoder that stopped early leaves the rest undefined. */
    int complete = status == VP8_STATUS_OK && config.output.width == scaled_width && config.output.height == scaled_height;
    WebPFreeDecBuffer(&config.output);
    return complete;
}

static uint32_t le24(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16; }
static uint32_t le32(const uint8_t *p) { return le24(p) | (uint32_t)p[3] << 24; }

/* Calls `visit` with the payload of each ANMF chunk of the RIFF file (at most the bytes present);
 * stops at the first chunk that runs past the end. Returns the number of ANMF chunks seen. */
static size_t walk_frames(const uint8_t *data, size_t size,
                          int (*visit)(const uint8_t *payload, size_t length, size_t index, void *context),
                          void *context) {
    if (size < 12 || memcmp(data, "RIFF", 4) != 0 || memcmp(data + 8, "WEBP", 4) != 0) return 0;
    size_t end = size;
    uint32_t riff = le32(data + 4);
    if ((size_t)riff < end - 8) end = (size_t)riff + 8;
    /* A RIFF size below the WebP signature's 4 bytes holds no chunk (and must not wrap `end - offset`). */
    if (end < 12) return 0;
    size_t offset = 12, count = 0;
    while (end - offset >= 8) {
        size_t length = le32(data + offset + 4);
        size_t available = end - offset - 8;
        if (memcmp(data + offset, "ANMF", 4) == 0) {
            if (visit && !visit(data + offset + 8, length < available ? length : available, count, context)) break;
            count++;
        }
        size_t padded = length + (length & 1);
        if (padded > available) break;
        offset += 8 + padded;
    }
    return count;
}

size_t imago_webp_count_frames(const uint8_t *data, size_t size) { return walk_frames(data, size, NULL, NULL); }

struct imago_webp_animation {
    WebPAnimDecoder *decoder;
    WebPAnimInfo info;
};

struct size_check {
    const WebPDemuxer *demuxer;
    char *message;
    int failed;
};

/* The demuxer takes each frame's size from its bitstream and forgets what the ANMF chunk declared;
 * a frame whose bitstream is smaller than declared is corrupt, and fails here. */
static int check_frame_size(const uint8_t *payload, size_t length, size_t index, void *context) {
    struct size_check *check = context;
    if (length < 16) return 1; /* the demuxer has rejected such a chunk already */
    uint32_t declared_width = le24(payload + 6) + 1, declared_height = le24(payload + 9) + 1;
    WebPIterator iterator;
    if (!WebPDemuxGetFrame(check->demuxer, (int)index + 1, &iterator)) return 1;
    int width = iterator.width, height = iterator.height;
    WebPDemuxReleaseIterator(&iterator);
    if ((uint32_t)width == declared_width && (uint32_t)height == declared_height) return 1;
    snprintf(check->message, 160, "frame %zu declares %ux%u pixels but its bitstream holds %dx%d", index + 1,
             declared_width, declared_height, width, height);
    check->failed = 1;
    return 0;
}

imago_webp_animation *imago_webp_animation_create(const uint8_t *data, size_t size, char *message) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) {
        snprintf(message, 160, "libwebpdemux does not match the headers it was built with");
        return NULL;
    }
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData input = {data, size};
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&input, &options);
    if (!decoder) {
        snprintf(message, 160, "libwebpdemux rejected the animation (cut short, or a frame outside the canvas)");
        return NULL;
    }
    struct size_check check = {WebPAnimDecoderGetDemuxer(decoder), message, 0};
    walk_frames(data, size, check_frame_size, &check);
    imago_webp_animation *animation = check.failed ? NULL : calloc(1, sizeof *animation);
    if (!animation || !WebPAnimDecoderGetInfo(decoder, &animation->info)) {
        if (!check.failed) snprintf(message, 160, "libwebpdemux could not start (out of memory)");
        WebPAnimDecoderDelete(decoder);
        free(animation);
        return NULL;
    }
    animation->decoder = decoder;
    return animation;
}

void imago_webp_animation_destroy(imago_webp_animation *animation) {
    if (!animation) return;
    WebPAnimDecoderDelete(animation->decoder);
    free(animation);
}

void imago_webp_animation_info(const imago_webp_animation *animation, uint32_t *width, uint32_t *height,
                               uint32_t *frame_count) {
    *width = animation->info.canvas_width;
    *height = animation->info.canvas_height;
    *frame_count = animation->info.frame_count;
}

uint32_t imago_webp_animation_loop_count(const imago_webp_animation *animation) {
    return animation->info.loop_count;
}

int imago_webp_animation_next(imago_webp_animation *animation, const uint8_t **canvas, int *timestamp) {
    uint8_t *buffer = NULL;
    if (!WebPAnimDecoderHasMoreFrames(animation->decoder)) return 0;
    if (!WebPAnimDecoderGetNext(animation->decoder, &buffer, timestamp) || !buffer) return 0;
    *canvas = buffer;
    return 1;
}

/* ---------------------------------------------------------------- encoding */

static const char *encoding_error_text(WebPEncodingError error) {
    switch (error) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory for the bitstream";
    case VP8_ENC_ERROR_NULL_PARAMETER: return "a null parameter";
    case VP8_ENC_ERROR_INVALID_CONFIGURATION: return "an invalid configuration";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "a width or height outside 1...16383";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW: return "the first partition passed 512 KB";
    case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "a partition passed 16 MB";
    case VP8_ENC_ERROR_BAD_WRITE: return "a failed write";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "a file larger than 4 GB";
    case VP8_ENC_ERROR_USER_ABORT: return "an abort";
    default: return "an unknown error";
    }
}

int imago_webp_encode(const uint8_t *pixels, int width, int height, size_t stride, int lossless, int quality,
                      int method, int preset, uint8_t **output, size_t *output_size, char *message) {
    if (width < 1 || height < 1 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
        snprintf(message, 160, "a %dx%d bitmap is outside WebP's 1...%d pixels a side", width, height,
                 WEBP_MAX_DIMENSION);
        return IMAGO_WEBP_FAILED;
    }
    if (stride > (size_t)INT32_MAX || stride / 4 < (size_t)width) {
        snprintf(message, 160, "a row stride of %zu bytes does not hold %d RGBA pixels", stride, width);
        return IMAGO_WEBP_FAILED;
    }
    if (quality < 0 || quality > 100) {
        snprintf(message, 160, "quality %d is outside 0...100", quality);
        return IMAGO_WEBP_FAILED;
    }
    if (method < 0 || method > 6) {
        snprintf(message, 160, "effort (method) %d is outside 0...6", method);
        return IMAGO_WEBP_FAILED;
    }
    if (preset < WEBP_PRESET_DEFAULT || preset > WEBP_PRESET_TEXT) {
        snprintf(message, 160, "preset %d is not one of libwebp's (0...5)", preset);
        return IMAGO_WEBP_FAILED;
    }
    WebPConfig config;
    WebPPicture picture;
    WebPMemoryWriter writer;
    /* The preset first (its filter, sharpness and noise shaping), then quality and method. */
    if (!WebPConfigPreset(&config, (WebPPreset)preset, (float)quality) || !WebPPictureInit(&picture)) {
        snprintf(message, 160, "libwebp's headers and library disagree on the version");
        return IMAGO_WEBP_FAILED;
    }
    config.lossless = lossless ? 1 : 0;
    config.quality = (float)quality;
    config.method = method;
    /* Keep the colour under fully transparent pixels only in lossless mode, where "exact" is meant. */
    config.exact = lossless ? 1 : 0;
    if (!WebPValidateConfig(&config)) {
        snprintf(message, 160, "libwebp refused the configuration (quality %d)", quality);
        return IMAGO_WEBP_FAILED;
    }
    picture.use_argb = lossless ? 1 : 0;
    picture.width = width;
    picture.height = height;
    if (!WebPPictureImportRGBA(&picture, pixels, (int)stride)) {
        snprintf(message, 160, "libwebp could not import the pixels: %s", encoding_error_text(picture.error_code));
        WebPPictureFree(&picture);
        return IMAGO_WEBP_FAILED;
    }
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int encoded = WebPEncode(&config, &picture);
    WebPEncodingError error = picture.error_code;
    WebPPictureFree(&picture);
    if (!encoded) {
        snprintf(message, 160, "libwebp could not encode: %s", encoding_error_text(error));
        WebPMemoryWriterClear(&writer);
        return IMAGO_WEBP_FAILED;
    }
    /* The writer's buffer belongs to WebPFree; Swift gets a malloc'ed copy for imago_free. */
    int copied = imago_copy_out(writer.mem, writer.size, output, output_size, message);
    WebPMemoryWriterClear(&writer);
    return copied ? IMAGO_WEBP_OK : IMAGO_WEBP_FAILED;
}

#endif

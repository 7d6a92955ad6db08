/* libwebp (stills) and libwebpdemux's WebPAnimDecoder (animations) behind bounds-checked shims. */
#if defined(__linux__) /* Apple platforms decode with ImageIO; Xcode still builds this target. */
#include "CImagoWebP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
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

int imago_webp_decode_still(const uint8_t *data, size_t size, int width, int height, uint8_t *pixels,
                            size_t pixels_size, size_t stride) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return 0;
    if (WebPGetFeatures(data, size, &config.input) != VP8_STATUS_OK) return 0;
    if (config.input.width != width || config.input.height != height || config.input.has_animation) return 0;
    if (stride > (size_t)INT32_MAX || stride / 4 < (size_t)width || pixels_size / stride < (size_t)height) return 0;
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = pixels_size;
    VP8StatusCode status = WebPDecode(data, size, &config);
    /* Every row must have been written: a decoder that stopped early leaves the rest undefined. */
    int complete = status == VP8_STATUS_OK && config.output.width == width && config.output.height == height;
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

int imago_webp_animation_next(imago_webp_animation *animation, const uint8_t **canvas, int *timestamp) {
    uint8_t *buffer = NULL;
    if (!WebPAnimDecoderHasMoreFrames(animation->decoder)) return 0;
    if (!WebPAnimDecoderGetNext(animation->decoder, &buffer, timestamp) || !buffer) return 0;
    *canvas = buffer;
    return 1;
}

#endif

/* libjxl: still and animated JPEG XL encoded from RGBA8 (grey, RGB or RGBA as the pixels need), lossy or lossless. */
#if defined(__linux__)
#include "requirements.h"
#include "CImagoJXL.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jxl/encode.h>

static int imago_jxl_encode_failed(JxlEncoder *encoder, const char *stage, char *message) {
    int error = encoder ? (int)JxlEncoderGetError(encoder) : 0;
    snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "libjxl refused %s (error %d)", stage, error);
    return 1;
}

/* The channels the pixels need: 1 (grey) or 3, and whether any alpha is below 255. */
static void imago_jxl_survey(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, int may_be_gray,
                             int *is_gray, int *has_alpha) {
    int gray = may_be_gray, alpha = 0;
    for (uint32_t y = 0; y < height && (gray || !alpha); y++) {
        const uint8_t *row = pixels + (size_t)y * stride;
        for (uint32_t x = 0; x < width; x++) {
            const uint8_t *p = row + (size_t)x * 4;
            if (p[0] != p[1] || p[1] != p[2]) gray = 0;
            if (p[3] != 255) alpha = 1;
        }
    }
    *is_gray = gray;
    *has_alpha = alpha;
}

int imago_jxl_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, int has_alpha,
                     float distance, int lossless, int effort, const uint8_t *icc, size_t icc_size,
                     uint8_t **output, size_t *output_size, char *message) {
    return imago_jxl_encode_animation(&pixels, NULL, 1, 0, width, height, stride, has_alpha, distance, lossless,
                                      effort, icc, icc_size, output, output_size, message);
}

int imago_jxl_encode_animation(const uint8_t *const *frames, const uint32_t *durations, size_t frame_count,
                               uint32_t loop_count, uint32_t width, uint32_t height, size_t stride, int has_alpha,
                               float distance, int lossless, int effort, const uint8_t *icc, size_t icc_size,
                               uint8_t **output, size_t *output_size, char *message) {
    *output = NULL;
    *output_size = 0;
    if (!frames || frame_count < 1 || width < 1 || height < 1 || width > (1u << 30) || height > (1u << 30)) {
        snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "a %ux%u bitmap is outside JPEG XL's 1...2^30 pixels a side",
                 width, height);
        return 1;
    }
    if (stride / 4 < (size_t)width || (size_t)height > SIZE_MAX / stride) {
        snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "a row stride of %zu bytes does not hold %u RGBA pixels", stride,
                 width);
        return 1;
    }
    if (effort < 1 || effort > 9 || !(distance >= 0.0f && distance <= 25.0f)) {
        snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "effort %d or distance %.3f is outside 1...9 and 0...25", effort,
                 (double)distance);
        return 1;
    }
    /* One layout for every frame: grey only if all are, alpha if any has some. */
    int is_gray = icc == NULL || icc_size == 0, alpha = 0;
    for (size_t index = 0; index < frame_count; index++) {
        if (!frames[index]) {
            snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "frame %zu has no pixels", index);
            return 1;
        }
        int frame_gray = 0, frame_alpha = 0;
        imago_jxl_survey(frames[index], width, height, stride, is_gray, &frame_gray, &frame_alpha);
        is_gray = frame_gray;
        alpha = alpha || frame_alpha;
    }
    if (!has_alpha) alpha = 0;
    size_t channels = (size_t)(is_gray ? 1 : 3) + (alpha ? 1 : 0);
    if ((size_t)width > SIZE_MAX / channels || (size_t)height > SIZE_MAX / ((size_t)width * channels)) {
        snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "a %ux%u bitmap is too large to encode", width, height);
        return 1;
    }
    size_t packed_size = (size_t)width * height * channels;
    uint8_t *packed = malloc(packed_size);
    if (!packed) {
        snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "out of memory for %zu bytes of pixels", packed_size);
        return 1;
    }
    int status = 1;
    uint8_t *buffer = NULL;
    JxlEncoder *encoder = JxlEncoderCreate(NULL);
    if (!encoder) {
        snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "out of memory");
        goto done;
    }
    JxlBasicInfo info;
    JxlEncoderInitBasicInfo(&info);
    info.xsize = width;
    info.ysize = height;
    info.bits_per_sample = 8;
    info.num_color_channels = is_gray ? 1 : 3;
    info.num_extra_channels = alpha ? 1 : 0;
    info.alpha_bits = alpha ? 8 : 0;
    /* Lossless pixels stay in their own space; lossy ones go through XYB. */
    info.uses_original_profile = lossless ? JXL_TRUE : JXL_FALSE;
    if (frame_count > 1) {
        /* Durations in milliseconds: 1,000 ticks a second. */
        info.have_animation = JXL_TRUE;
        info.animation.tps_numerator = 1000;
        info.animation.tps_denominator = 1;
        info.animation.num_loops = loop_count;
    }
    if (JxlEncoderSetBasicInfo(encoder, &info) != JXL_ENC_SUCCESS) {
        status = imago_jxl_encode_failed(encoder, "the image's size and channels", message);
        goto done;
    }
    if (icc && icc_size > 0) {
        if (JxlEncoderSetICCProfile(encoder, icc, icc_size) != JXL_ENC_SUCCESS) {
            status = imago_jxl_encode_failed(encoder, "the ICC profile", message);
            goto done;
        }
    } else {
        JxlColorEncoding srgb;
        JxlColorEncodingSetToSRGB(&srgb, is_gray ? JXL_TRUE : JXL_FALSE);
        if (JxlEncoderSetColorEncoding(encoder, &srgb) != JXL_ENC_SUCCESS) {
            status = imago_jxl_encode_failed(encoder, "the sRGB colour encoding", message);
            goto done;
        }
    }
    JxlEncoderFrameSettings *settings = JxlEncoderFrameSettingsCreate(encoder, NULL);
    if (!settings || JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, effort) != JXL_ENC_SUCCESS) {
        status = imago_jxl_encode_failed(encoder, "the effort", message);
        goto done;
    }
    JxlEncoderStatus set = lossless ? JxlEncoderSetFrameLossless(settings, JXL_TRUE)
                                    : JxlEncoderSetFrameDistance(settings, distance);
    if (set != JXL_ENC_SUCCESS) {
        status = imago_jxl_encode_failed(encoder, lossless ? "lossless mode" : "the distance", message);
        goto done;
    }
    JxlPixelFormat format = {(uint32_t)channels, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    for (size_t index = 0; index < frame_count; index++) {
        /* RGBA rows to tightly packed G, GA, RGB or RGBA. */
        uint8_t *out = packed;
        for (uint32_t y = 0; y < height; y++) {
            const uint8_t *row = frames[index] + (size_t)y * stride;
            for (uint32_t x = 0; x < width; x++) {
                const uint8_t *p = row + (size_t)x * 4;
                *out++ = p[0];
                if (!is_gray) {
                    *out++ = p[1];
                    *out++ = p[2];
                }
                if (alpha) *out++ = p[3];
            }
        }
        if (frame_count > 1) {
            JxlFrameHeader header;
            JxlEncoderInitFrameHeader(&header);
            header.duration = durations ? durations[index] : 100;
            if (JxlEncoderSetFrameHeader(settings, &header) != JXL_ENC_SUCCESS) {
                status = imago_jxl_encode_failed(encoder, "a frame's duration", message);
                goto done;
            }
        }
        if (JxlEncoderAddImageFrame(settings, &format, packed, packed_size) != JXL_ENC_SUCCESS) {
            status = imago_jxl_encode_failed(encoder, "the pixels", message);
            goto done;
        }
    }
    JxlEncoderCloseInput(encoder);

    /* The codestream into a buffer that doubles while libjxl asks for more room. */
    size_t capacity = 4096, used = 0;
    buffer = malloc(capacity);
    if (!buffer) {
        snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "out of memory");
        goto done;
    }
    for (;;) {
        uint8_t *next = buffer + used;
        size_t available = capacity - used;
        JxlEncoderStatus result = JxlEncoderProcessOutput(encoder, &next, &available);
        if (next < buffer + used || next > buffer + capacity) {
            snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "libjxl wrote outside the output buffer");
            goto done;
        }
        used = (size_t)(next - buffer);
        if (result == JXL_ENC_SUCCESS) break;
        if (result != JXL_ENC_NEED_MORE_OUTPUT) {
            status = imago_jxl_encode_failed(encoder, "to write the codestream", message);
            goto done;
        }
        if (capacity > SIZE_MAX / 2) {
            snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "the codestream outgrew memory");
            goto done;
        }
        uint8_t *grown = realloc(buffer, capacity * 2);
        if (!grown) {
            snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "out of memory for %zu bytes of codestream", capacity * 2);
            goto done;
        }
        buffer = grown;
        capacity *= 2;
    }
    *output = buffer;
    *output_size = used;
    buffer = NULL;
    status = 0;
done:
    free(buffer);
    free(packed);
    if (encoder) JxlEncoderDestroy(encoder);
    return status;
}
#endif

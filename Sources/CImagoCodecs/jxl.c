/* libjxl: JPEG XL (bare codestream or ISO BMFF container) decoded to RGBA8, frame by frame. */
#if defined(__linux__)
#include "requirements.h"
#include "CImagoJXL.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/version.h>

/* libjxl 0.9 dropped the unused pixel-format argument of the colour-profile getters. */
#if JPEGXL_NUMERIC_VERSION < JPEGXL_COMPUTE_NUMERIC_VERSION(0, 9, 0)
#define IMAGO_JXL_FORMAT_ARGUMENT NULL,
#else
#define IMAGO_JXL_FORMAT_ARGUMENT
#endif

struct imago_jxl_decoder {
    JxlDecoder *decoder;
    JxlPixelFormat format;
};

static const JxlPixelFormat imago_jxl_rgba8 = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};

static void imago_jxl_say(char *message, const char *words) {
    snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "%s", words);
}

/* What an unexpected status means at `stage` ("the headers", "frame data"…). */
static int imago_jxl_unexpected(JxlDecoderStatus status, const char *stage, char *message) {
    if (status == JXL_DEC_NEED_MORE_INPUT) {
        snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "the data ends inside %s (cut short)", stage);
    } else if (status == JXL_DEC_ERROR) {
        snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "libjxl found %s corrupt or unsupported", stage);
    } else {
        snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "libjxl reported event %d while reading %s", (int)status, stage);
    }
    return IMAGO_JXL_FAILED;
}

imago_jxl_decoder *imago_jxl_decoder_create(const uint8_t *data, size_t size, imago_jxl_info *info, char *message) {
    memset(info, 0, sizeof *info);
    imago_jxl_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) {
        imago_jxl_say(message, "out of memory");
        return NULL;
    }
    decoder->format = imago_jxl_rgba8;
    decoder->decoder = JxlDecoderCreate(NULL);
    if (!decoder->decoder) {
        imago_jxl_say(message, "out of memory");
        free(decoder);
        return NULL;
    }
    JxlDecoder *dec = decoder->decoder;
    int events = JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FRAME | JXL_DEC_FULL_IMAGE;
    if (JxlDecoderSubscribeEvents(dec, events) != JXL_DEC_SUCCESS
        || JxlDecoderSetUnpremultiplyAlpha(dec, JXL_TRUE) != JXL_DEC_SUCCESS
        || JxlDecoderSetInput(dec, data, size) != JXL_DEC_SUCCESS) {
        imago_jxl_say(message, "libjxl refused the decoder's settings");
        imago_jxl_decoder_destroy(decoder);
        return NULL;
    }
    JxlDecoderCloseInput(dec);
    JxlDecoderStatus status = JxlDecoderProcessInput(dec);
    JxlBasicInfo basic;
    if (status != JXL_DEC_BASIC_INFO || JxlDecoderGetBasicInfo(dec, &basic) != JXL_DEC_SUCCESS) {
        imago_jxl_unexpected(status, "the image headers", message);
        imago_jxl_decoder_destroy(decoder);
        return NULL;
    }
    int turned = basic.orientation >= JXL_ORIENT_TRANSPOSE;
    info->width = turned ? basic.ysize : basic.xsize;
    info->height = turned ? basic.xsize : basic.ysize;
    info->has_alpha = basic.alpha_bits != 0;
    info->is_gray = basic.num_color_channels == 1;
    info->bits_per_sample = (int)basic.bits_per_sample;
    info->orientation = (int)basic.orientation;
    info->has_animation = basic.have_animation ? 1 : 0;
    info->loop_count = basic.have_animation ? basic.animation.num_loops : 0;
    info->ticks_numerator = basic.have_animation ? basic.animation.tps_numerator : 0;
    info->ticks_denominator = basic.have_animation ? basic.animation.tps_denominator : 0;
    info->is_lossless_color = basic.uses_original_profile ? 1 : 0;
    return decoder;
}

void imago_jxl_decoder_destroy(imago_jxl_decoder *decoder) {
    if (!decoder) return;
    if (decoder->decoder) JxlDecoderDestroy(decoder->decoder);
    free(decoder);
}

/* sRGB's primaries, white and curve (grey: its white and curve). */
static int imago_jxl_is_srgb(const JxlColorEncoding *encoding) {
    if (encoding->white_point != JXL_WHITE_POINT_D65 || encoding->transfer_function != JXL_TRANSFER_FUNCTION_SRGB) {
        return 0;
    }
    if (encoding->color_space == JXL_COLOR_SPACE_GRAY) return 1;
    return encoding->color_space == JXL_COLOR_SPACE_RGB && encoding->primaries == JXL_PRIMARIES_SRGB;
}

int imago_jxl_read_color(imago_jxl_decoder *decoder, size_t maximum_profile_size, uint8_t **profile,
                         size_t *profile_size, char *message) {
    *profile = NULL;
    *profile_size = 0;
    JxlDecoder *dec = decoder->decoder;
    JxlDecoderStatus status = JxlDecoderProcessInput(dec);
    if (status != JXL_DEC_COLOR_ENCODING) return imago_jxl_unexpected(status, "the colour encoding", message);
    JxlBasicInfo basic;
    if (JxlDecoderGetBasicInfo(dec, &basic) != JXL_DEC_SUCCESS) {
        return imago_jxl_unexpected(JXL_DEC_ERROR, "the image headers", message);
    }
    if (!basic.uses_original_profile) {
        /* XYB: libjxl converts to whatever is asked; sRGB is what Imago delivers. */
        JxlColorEncoding srgb;
        JxlColorEncodingSetToSRGB(&srgb, basic.num_color_channels == 1 ? JXL_TRUE : JXL_FALSE);
        JxlDecoderSetPreferredColorProfile(dec, &srgb); /* a preference: the data profile says what came */
    }
    JxlColorEncoding encoding;
    if (JxlDecoderGetColorAsEncodedProfile(dec, IMAGO_JXL_FORMAT_ARGUMENT JXL_COLOR_PROFILE_TARGET_DATA, &encoding)
            == JXL_DEC_SUCCESS
        && imago_jxl_is_srgb(&encoding)) {
        return IMAGO_JXL_SRGB;
    }
    size_t size = 0;
    if (JxlDecoderGetICCProfileSize(dec, IMAGO_JXL_FORMAT_ARGUMENT JXL_COLOR_PROFILE_TARGET_DATA, &size)
            != JXL_DEC_SUCCESS || size == 0) {
        imago_jxl_say(message, "libjxl has no ICC profile for the decoded pixels");
        return IMAGO_JXL_FAILED;
    }
    *profile_size = size;
    if (size > maximum_profile_size) return IMAGO_JXL_PROFILE_TOO_LARGE;
    uint8_t *bytes = malloc(size);
    if (!bytes) {
        imago_jxl_say(message, "out of memory");
        return IMAGO_JXL_FAILED;
    }
    if (JxlDecoderGetColorAsICCProfile(dec, IMAGO_JXL_FORMAT_ARGUMENT JXL_COLOR_PROFILE_TARGET_DATA, bytes, size)
        != JXL_DEC_SUCCESS) {
        free(bytes);
        imago_jxl_say(message, "libjxl could not write the ICC profile of the decoded pixels");
        return IMAGO_JXL_FAILED;
    }
    *profile = bytes;
    return IMAGO_JXL_OK;
}

int imago_jxl_next_frame(imago_jxl_decoder *decoder, uint32_t *duration_ticks, char *message) {
    *duration_ticks = 0;
    JxlDecoderStatus status = JxlDecoderProcessInput(decoder->decoder);
    if (status == JXL_DEC_SUCCESS) return IMAGO_JXL_END;
    if (status != JXL_DEC_FRAME) return imago_jxl_unexpected(status, "a frame header", message);
    JxlFrameHeader header;
    if (JxlDecoderGetFrameHeader(decoder->decoder, &header) != JXL_DEC_SUCCESS) {
        return imago_jxl_unexpected(JXL_DEC_ERROR, "a frame header", message);
    }
    *duration_ticks = header.duration;
    return IMAGO_JXL_OK;
}

int imago_jxl_read_frame(imago_jxl_decoder *decoder, uint8_t *pixels, size_t pixels_size, char *message) {
    JxlDecoder *dec = decoder->decoder;
    JxlDecoderStatus status = JxlDecoderProcessInput(dec);
    if (status != JXL_DEC_NEED_IMAGE_OUT_BUFFER) return imago_jxl_unexpected(status, "a frame's data", message);
    size_t needed = 0;
    if (JxlDecoderImageOutBufferSize(dec, &decoder->format, &needed) != JXL_DEC_SUCCESS || needed != pixels_size) {
        snprintf(message, IMAGO_JXL_MESSAGE_CAPACITY, "libjxl wants %zu bytes for a frame, the header declares %zu",
                 needed, pixels_size);
        return IMAGO_JXL_FAILED;
    }
    if (JxlDecoderSetImageOutBuffer(dec, &decoder->format, pixels, pixels_size) != JXL_DEC_SUCCESS) {
        imago_jxl_say(message, "libjxl refused the output buffer");
        return IMAGO_JXL_FAILED;
    }
    status = JxlDecoderProcessInput(dec);
    if (status != JXL_DEC_FULL_IMAGE) return imago_jxl_unexpected(status, "a frame's data", message);
    return IMAGO_JXL_OK;
}

void imago_jxl_free(void *pointer) { free(pointer); }
#endif

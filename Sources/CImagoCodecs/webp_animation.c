/* libwebpmux's WebPAnimEncoder (animated WebP output) behind bounds-checked shims. */
#if defined(__linux__) /* Apple platforms encode with ImageIO; Xcode still builds this target. */
#include "requirements.h"
#include "CImagoWebP.h"
#include "copy_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/encode.h>
#include <webp/mux.h>

struct imago_webp_animation_encoder {
    WebPAnimEncoder *encoder;
    WebPConfig config;
    int width;
    int height;
};

imago_webp_animation_encoder *imago_webp_animation_encoder_create(int width, int height, int loop_count, int lossless,
                                                                  int quality, int method, int preset, char *message) {
    if (width < 1 || height < 1 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
        snprintf(message, 160, "a %dx%d canvas is outside WebP's 1...%d pixels a side", width, height,
                 WEBP_MAX_DIMENSION);
        return NULL;
    }
    if (quality < 0 || quality > 100 || loop_count < 0 || loop_count > 65535 || method < 0 || method > 6 ||
        preset < WEBP_PRESET_DEFAULT || preset > WEBP_PRESET_TEXT) {
        snprintf(message, 160, "quality %d, loop count %d, effort %d or preset %d is out of range", quality, loop_count,
                 method, preset);
        return NULL;
    }
    imago_webp_animation_encoder *result = calloc(1, sizeof *result);
    WebPAnimEncoderOptions options;
    if (!result || !WebPAnimEncoderOptionsInit(&options) || !WebPConfigPreset(&result->config, (WebPPreset)preset, (float)quality)) {
        snprintf(message, 160, "libwebpmux's headers and library disagree on the version (or out of memory)");
        free(result);
        return NULL;
    }
    options.anim_params.loop_count = loop_count;
    options.anim_params.bgcolor = 0x00000000; /* transparent, as browsers clear */
    result->config.lossless = lossless ? 1 : 0;
    result->config.quality = (float)quality;
    result->config.method = method;
    result->config.exact = lossless ? 1 : 0;
    if (!WebPValidateConfig(&result->config)) {
        snprintf(message, 160, "libwebp refused the configuration (quality %d)", quality);
        free(result);
        return NULL;
    }
    result->encoder = WebPAnimEncoderNew(width, height, &options);
    if (!result->encoder) {
        snprintf(message, 160, "libwebpmux could not start an animation (out of memory)");
        free(result);
        return NULL;
    }
    result->width = width;
    result->height = height;
    return result;
}

int imago_webp_animation_encoder_add(imago_webp_animation_encoder *encoder, const uint8_t *pixels, size_t stride,
                                     int timestamp, char *message) {
    if (stride > (size_t)INT32_MAX || stride / 4 < (size_t)encoder->width) {
        snprintf(message, 160, "a row stride of %zu bytes does not hold %d RGBA pixels", stride, encoder->width);
        return IMAGO_WEBP_FAILED;
    }
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) {
        snprintf(message, 160, "libwebp's headers and library disagree on the version");
        return IMAGO_WEBP_FAILED;
    }
    picture.use_argb = 1; /* WebPAnimEncoder works on ARGB */
    picture.width = encoder->width;
    picture.height = encoder->height;
    if (!WebPPictureImportRGBA(&picture, pixels, (int)stride)) {
        snprintf(message, 160, "libwebp could not import the pixels (out of memory)");
        WebPPictureFree(&picture);
        return IMAGO_WEBP_FAILED;
    }
    int added = WebPAnimEncoderAdd(encoder->encoder, &picture, timestamp, &encoder->config);
    WebPPictureFree(&picture);
    if (!added) {
        const char *error = WebPAnimEncoderGetError(encoder->encoder);
        snprintf(message, 160, "libwebpmux could not add a frame: %s", error ? error : "unknown error");
        return IMAGO_WEBP_FAILED;
    }
    return IMAGO_WEBP_OK;
}

int imago_webp_animation_encoder_finish(imago_webp_animation_encoder *encoder, int end_timestamp, uint8_t **output,
                                        size_t *output_size, char *message) {
    WebPData data;
    WebPDataInit(&data);
    if (!WebPAnimEncoderAdd(encoder->encoder, NULL, end_timestamp, NULL) ||
        !WebPAnimEncoderAssemble(encoder->encoder, &data)) {
        const char *error = WebPAnimEncoderGetError(encoder->encoder);
        snprintf(message, 160, "libwebpmux could not assemble the animation: %s", error ? error : "unknown error");
        WebPDataClear(&data);
        return IMAGO_WEBP_FAILED;
    }
    /* The data belongs to WebPFree; Swift gets a malloc'ed copy for imago_free. */
    int copied = imago_copy_out(data.bytes, data.size, output, output_size, message);
    WebPDataClear(&data);
    return copied ? IMAGO_WEBP_OK : IMAGO_WEBP_FAILED;
}

void imago_webp_animation_encoder_destroy(imago_webp_animation_encoder *encoder) {
    if (!encoder) return;
    WebPAnimEncoderDelete(encoder->encoder);
    free(encoder);
}

#endif

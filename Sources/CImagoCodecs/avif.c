/* libavif: still and animated AVIF, decoded frame by frame to RGBA8. */
#if defined(__linux__)
#include "requirements.h"
#include "CImagoHEIFAVIF.h"

#include <stdio.h>
#include <stdlib.h>

#include <avif/avif.h>

struct imago_avif_decoder {
    avifDecoder *decoder;
    int width;
    int height;
};

static int imago_avif_failure(avifDecoder *decoder, avifResult result, char *message) {
    if (decoder && decoder->diag.error[0]) {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "%s: %s", avifResultToString(result), decoder->diag.error);
    } else {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "%s", avifResultToString(result));
    }
    return result == AVIF_RESULT_NO_CODEC_AVAILABLE ? IMAGO_CODEC_MISSING : IMAGO_DECODE_FAILED;
}

imago_avif_decoder *imago_avif_decoder_create(const uint8_t *data, size_t size, int maximum_frames,
                                              imago_avif_info *info, char *message, int *status) {
    *status = IMAGO_DECODE_FAILED;
    imago_avif_decoder *shim = calloc(1, sizeof *shim);
    if (!shim) {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "out of memory");
        return NULL;
    }
    shim->decoder = avifDecoderCreate();
    if (!shim->decoder) {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "out of memory");
        free(shim);
        return NULL;
    }
    shim->decoder->imageCountLimit = maximum_frames > 0 ? (uint32_t)maximum_frames : 0; /* 0: no limit */
    shim->decoder->ignoreExif = AVIF_TRUE;
    shim->decoder->ignoreXMP = AVIF_TRUE;
    avifResult result = avifDecoderSetIOMemory(shim->decoder, data, size);
    if (result == AVIF_RESULT_OK) result = avifDecoderParse(shim->decoder);
    if (result != AVIF_RESULT_OK) {
        *status = imago_avif_failure(shim->decoder, result, message);
        imago_avif_decoder_destroy(shim);
        return NULL;
    }
    shim->width = (int)shim->decoder->image->width;
    shim->height = (int)shim->decoder->image->height;
    info->width = shim->width;
    info->height = shim->height;
    info->has_alpha = shim->decoder->alphaPresent ? 1 : 0;
    info->frame_count = shim->decoder->imageCount;
    *status = IMAGO_DECODED;
    return shim;
}

void imago_avif_decoder_destroy(imago_avif_decoder *shim) {
    if (!shim) return;
    if (shim->decoder) avifDecoderDestroy(shim->decoder);
    free(shim);
}

int imago_avif_next_frame(imago_avif_decoder *shim, uint8_t *pixels, size_t stride, double *duration,
                          char *message) {
    avifResult result = avifDecoderNextImage(shim->decoder);
    if (result != AVIF_RESULT_OK) {
        return imago_avif_failure(shim->decoder, result, message);
    }
    avifImage *image = shim->decoder->image;
    if ((int)image->width != shim->width || (int)image->height != shim->height) {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "frame %d is %ux%u, not %dx%d", shim->decoder->imageIndex + 1,
                 image->width, image->height, shim->width, shim->height);
        return IMAGO_DECODE_FAILED;
    }
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, image);
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.depth = 8;
    rgb.pixels = pixels;
    rgb.rowBytes = (uint32_t)stride;
    result = avifImageYUVToRGB(image, &rgb);
    if (result != AVIF_RESULT_OK) {
        return imago_avif_failure(shim->decoder, result, message);
    }
    *duration = shim->decoder->imageTiming.duration;
    return IMAGO_DECODED;
}
#endif

/* libavif: still and animated AVIF, decoded frame by frame to RGBA8; still AVIF encoded from RGBA8. */
#if defined(__linux__)
#include "requirements.h"
#include "CImagoHEIFAVIF.h"
#include "CImagoCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int imago_avif_can_encode(void) {
    return avifCodecName(AVIF_CODEC_CHOICE_AUTO, AVIF_CODEC_FLAG_CAN_ENCODE) != NULL ? 1 : 0;
}

int imago_avif_encode(const uint8_t *pixels, int width, int height, size_t stride, int has_alpha, int quality,
                      int speed, const uint8_t *icc, size_t icc_size, uint8_t **output, size_t *output_size,
                      char *message) {
    *output = NULL;
    *output_size = 0;
    if (width < 1 || height < 1 || width > 65535 || height > 65535) {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "a %dx%d bitmap is outside AVIF's 1...65535 pixels a side", width, height);
        return IMAGO_FAILED;
    }
    if (stride > (size_t)UINT32_MAX || stride / 4 < (size_t)width) {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "a row stride of %zu bytes does not hold %d RGBA pixels", stride, width);
        return IMAGO_FAILED;
    }
    if (quality < 0 || quality > 100 || speed < 0 || speed > 10) {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "quality %d or speed %d is outside 0...100 and 0...10", quality, speed);
        return IMAGO_FAILED;
    }
    if (!imago_avif_can_encode()) {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "this libavif has no AV1 encoder (aom, rav1e or SVT-AV1)");
        return IMAGO_FAILED;
    }
    avifImage *image = avifImageCreate((uint32_t)width, (uint32_t)height, 8, AVIF_PIXEL_FORMAT_YUV420);
    avifEncoder *encoder = avifEncoderCreate();
    if (!image || !encoder) {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "out of memory");
        if (image) avifImageDestroy(image);
        if (encoder) avifEncoderDestroy(encoder);
        return IMAGO_FAILED;
    }
    image->yuvRange = AVIF_RANGE_FULL;
    if (icc && icc_size > 0) avifImageSetProfileICC(image, icc, icc_size);
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, image);
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.depth = 8;
    rgb.ignoreAlpha = has_alpha ? AVIF_FALSE : AVIF_TRUE;
    rgb.pixels = (uint8_t *)pixels; /* read only: RGB to YUV never writes it */
    rgb.rowBytes = (uint32_t)stride;
    avifResult result = avifImageRGBToYUV(image, &rgb);
    if (result == AVIF_RESULT_OK) {
        /* libavif 1.0's mapping of a 0...100 quality to AV1's 0...63 quantizers (0: lossless). */
        int quantizer = ((100 - quality) * 63 + 50) / 100;
        encoder->minQuantizer = quantizer;
        encoder->maxQuantizer = quantizer;
        encoder->minQuantizerAlpha = quantizer;
        encoder->maxQuantizerAlpha = quantizer;
        encoder->speed = speed;
        encoder->maxThreads = 1; /* the server already runs one request a core */
        avifRWData encoded = AVIF_DATA_EMPTY;
        result = avifEncoderWrite(encoder, image, &encoded);
        if (result == AVIF_RESULT_OK) {
            *output = malloc(encoded.size);
            if (*output) {
                memcpy(*output, encoded.data, encoded.size);
                *output_size = encoded.size;
            } else {
                snprintf(message, IMAGO_MESSAGE_CAPACITY, "out of memory");
            }
        }
        avifRWDataFree(&encoded);
    }
    if (result != AVIF_RESULT_OK) {
        if (encoder->diag.error[0]) {
            snprintf(message, IMAGO_MESSAGE_CAPACITY, "%s: %s", avifResultToString(result), encoder->diag.error);
        } else {
            snprintf(message, IMAGO_MESSAGE_CAPACITY, "%s", avifResultToString(result));
        }
    }
    avifEncoderDestroy(encoder);
    avifImageDestroy(image);
    return *output ? IMAGO_OK : IMAGO_FAILED;
}
#endif

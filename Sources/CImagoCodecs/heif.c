/* libheif: the primary image of a HEIF/HEIC file, decoded to RGBA8 with its transformations. */
#if defined(__linux__)
#include "requirements.h"
#include "CImagoHEIFAVIF.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libheif/heif.h>

struct imago_heif_decoder {
    struct heif_context *context;
    struct heif_image_handle *handle;
};

static int imago_heif_failure(struct heif_error error, char *message) {
    snprintf(message, IMAGO_MESSAGE_CAPACITY, "%s", error.message ? error.message : "unknown error");
    int missing = error.code == heif_error_Unsupported_feature && error.subcode == heif_suberror_Unsupported_codec;
    return missing ? IMAGO_CODEC_MISSING : IMAGO_DECODE_FAILED;
}

imago_heif_decoder *imago_heif_decoder_create(const uint8_t *data, size_t size, char *message, int *status) {
    *status = IMAGO_DECODE_FAILED;
    imago_heif_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "out of memory");
        return NULL;
    }
    decoder->context = heif_context_alloc();
    if (!decoder->context) {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "out of memory");
        free(decoder);
        return NULL;
    }
    struct heif_error error = heif_context_read_from_memory_without_copy(decoder->context, data, size, NULL);
    if (error.code == heif_error_Ok) {
        error = heif_context_get_primary_image_handle(decoder->context, &decoder->handle);
    }
    if (error.code != heif_error_Ok) {
        *status = imago_heif_failure(error, message);
        imago_heif_decoder_destroy(decoder);
        return NULL;
    }
    *status = IMAGO_DECODED;
    return decoder;
}

void imago_heif_decoder_destroy(imago_heif_decoder *decoder) {
    if (!decoder) return;
    if (decoder->handle) heif_image_handle_release(decoder->handle);
    if (decoder->context) heif_context_free(decoder->context);
    free(decoder);
}

int imago_heif_select_thumbnail(imago_heif_decoder *decoder, char *message) {
    int count = heif_image_handle_get_number_of_thumbnails(decoder->handle);
    if (count <= 0) return 0;
    if (count > 64) count = 64; /* a hostile file may declare any number; a real one has one or two */
    heif_item_id ids[64];
    int listed = heif_image_handle_get_list_of_thumbnail_IDs(decoder->handle, ids, count);
    struct heif_image_handle *best = NULL;
    long long bestPixels = 0;
    for (int i = 0; i < listed && i < count; i++) {
        struct heif_image_handle *thumbnail = NULL;
        struct heif_error error = heif_image_handle_get_thumbnail(decoder->handle, ids[i], &thumbnail);
        if (error.code != heif_error_Ok || !thumbnail) continue;
        int width = heif_image_handle_get_width(thumbnail);
        int height = heif_image_handle_get_height(thumbnail);
        long long pixels = (width > 0 && height > 0) ? (long long)width * (long long)height : 0;
        if (pixels > bestPixels) {
            if (best) heif_image_handle_release(best);
            best = thumbnail;
            bestPixels = pixels;
        } else {
            heif_image_handle_release(thumbnail);
        }
    }
    if (!best) {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "no readable embedded thumbnail");
        return 0;
    }
    heif_image_handle_release(decoder->handle);
    decoder->handle = best;
    return 1;
}

int imago_heif_color(const imago_heif_decoder *decoder, int *primaries, int *transfer, int *matrix, int *full_range,
                     size_t *icc_size) {
    *primaries = *transfer = *matrix = *full_range = 0;
    *icc_size = 0;
    switch (heif_image_handle_get_color_profile_type(decoder->handle)) {
    case heif_color_profile_type_rICC:
    case heif_color_profile_type_prof:
        *icc_size = heif_image_handle_get_raw_color_profile_size(decoder->handle);
        return *icc_size > 0 ? IMAGO_HEIF_COLOR_ICC : IMAGO_HEIF_COLOR_NONE;
    case heif_color_profile_type_nclx: {
        struct heif_color_profile_nclx *nclx = NULL;
        struct heif_error error = heif_image_handle_get_nclx_color_profile(decoder->handle, &nclx);
        if (error.code != heif_error_Ok || !nclx) return IMAGO_HEIF_COLOR_NONE;
        *primaries = (int)nclx->color_primaries;
        *transfer = (int)nclx->transfer_characteristics;
        *matrix = (int)nclx->matrix_coefficients;
        *full_range = nclx->full_range_flag != 0;
        heif_nclx_color_profile_free(nclx);
        return IMAGO_HEIF_COLOR_NCLX;
    }
    default:
        return IMAGO_HEIF_COLOR_NONE;
    }
}

int imago_heif_copy_icc(const imago_heif_decoder *decoder, uint8_t *profile, size_t size) {
    if (heif_image_handle_get_raw_color_profile_size(decoder->handle) != size) return 0;
    return heif_image_handle_get_raw_color_profile(decoder->handle, profile).code == heif_error_Ok;
}

void imago_heif_info(const imago_heif_decoder *decoder, int *width, int *height, int *has_alpha) {
    *width = heif_image_handle_get_width(decoder->handle);
    *height = heif_image_handle_get_height(decoder->handle);
    *has_alpha = heif_image_handle_has_alpha_channel(decoder->handle);
}

int imago_heif_read_pixels(imago_heif_decoder *decoder, uint8_t *pixels, size_t stride, int width, int height,
                           char *message) {
    struct heif_image *image = NULL;
    struct heif_error error =
        heif_decode_image(decoder->handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, NULL);
    if (error.code != heif_error_Ok) {
        return imago_heif_failure(error, message);
    }
    int ok = IMAGO_DECODE_FAILED;
    int planeStride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &planeStride);
    int decodedWidth = heif_image_get_width(image, heif_channel_interleaved);
    int decodedHeight = heif_image_get_height(image, heif_channel_interleaved);
    if (!plane || planeStride < width * 4) {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "libheif returned no RGBA plane");
    } else if (decodedWidth != width || decodedHeight != height) {
        snprintf(message, IMAGO_MESSAGE_CAPACITY, "the image decoded to %dx%d, not the declared %dx%d",
                 decodedWidth, decodedHeight, width, height);
    } else {
        for (int y = 0; y < height; y++) {
            memcpy(pixels + (size_t)y * stride, plane + (size_t)y * (size_t)planeStride, (size_t)width * 4);
        }
        ok = IMAGO_DECODED;
    }
    heif_image_release(image);
    return ok;
}
#endif

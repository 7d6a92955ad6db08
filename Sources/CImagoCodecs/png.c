/* libpng's simplified API (png_image_*) with the macros Swift cannot see. */
#if defined(__linux__) /* Apple platforms decode with ImageIO; Xcode still builds this target. */
#include "CImagoCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

struct imago_png_decoder {
    png_image image;
    int header_ok;
    int has_alpha;
};

imago_png_decoder *imago_png_decoder_create(const uint8_t *data, size_t size) {
    imago_png_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->image.version = PNG_IMAGE_VERSION;
    decoder->header_ok = png_image_begin_read_from_memory(&decoder->image, data, size) != 0;
    decoder->has_alpha = (decoder->image.format & PNG_FORMAT_FLAG_ALPHA) != 0;
    return decoder;
}

void imago_png_decoder_destroy(imago_png_decoder *decoder) {
    if (!decoder) return;
    png_image_free(&decoder->image);
    free(decoder);
}

int imago_png_header_ok(const imago_png_decoder *decoder) { return decoder->header_ok; }
uint32_t imago_png_width(const imago_png_decoder *decoder) { return decoder->image.width; }
uint32_t imago_png_height(const imago_png_decoder *decoder) { return decoder->image.height; }
int imago_png_has_alpha(const imago_png_decoder *decoder) { return decoder->has_alpha; }

int imago_png_read_pixels(imago_png_decoder *decoder, uint8_t *pixels, size_t stride) {
    /* libpng takes the stride as a signed 32-bit value, negative meaning bottom-up: a stride that
     * does not fit would write before the buffer. */
    if (stride > (size_t)INT32_MAX || stride / 4 < decoder->image.width) {
        snprintf(decoder->image.message, sizeof decoder->image.message, "a row of %zu bytes is too long", stride);
        return 0;
    }
    decoder->image.format = PNG_FORMAT_RGBA;
    /* Without this flag the simplified API takes 16-bit samples as linear light and brightens them. */
    decoder->image.flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
    return png_image_finish_read(&decoder->image, NULL, pixels, (png_int_32)stride, NULL) != 0;
}

const char *imago_png_message(const imago_png_decoder *decoder) { return decoder->image.message; }

int imago_png_encode(const uint8_t *pixels, int width, int height, size_t stride, int has_alpha,
                     uint8_t **output, size_t *output_size, char *message) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)width;
    image.height = (png_uint_32)height;
    image.format = has_alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    png_alloc_size_t size = 0;
    /* First call: the size needed; second: the data. */
    if (!png_image_write_to_memory(&image, NULL, &size, 0, pixels, (png_int_32)stride, NULL)) {
        snprintf(message, 64, "%s", image.message);
        return IMAGO_FAILED;
    }
    uint8_t *buffer = malloc(size);
    if (!buffer) {
        png_image_free(&image);
        snprintf(message, 64, "out of memory for %zu bytes", (size_t)size);
        return IMAGO_FAILED;
    }
    if (!png_image_write_to_memory(&image, buffer, &size, 0, pixels, (png_int_32)stride, NULL)) {
        snprintf(message, 64, "%s", image.message);
        free(buffer);
        return IMAGO_FAILED;
    }
    *output = buffer;
    *output_size = size;
    return IMAGO_OK;
}
#endif /* defined(__linux__) */

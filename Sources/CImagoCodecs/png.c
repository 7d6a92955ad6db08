/* libpng: the row API behind setjmp (streamed decoding), and the simplified API (png_image_*) for
 * interlaced files and encoding, with the macros Swift cannot see. */
#if defined(__linux__) /* Apple platforms decode with ImageIO; Xcode still builds this target. */
#include "CImagoCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>
#include <setjmp.h>

/* ---------------------------------------------------------------- row-by-row decoding */

struct imago_png_rows {
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t size;
    size_t offset;
    uint32_t width;
    uint32_t height;
    int interlaced;
    int has_alpha;
    int header_ok;
    int started;
    int channels;
    int ignored_checksum;
    int lenient;
    char message[200];
};

static void rows_read(png_structp png, png_bytep out, size_t length) {
    struct imago_png_rows *rows = png_get_io_ptr(png);
    if (length > rows->size - rows->offset) png_error(png, "the data ends too early");
    memcpy(out, rows->data + rows->offset, length);
    rows->offset += length;
    /* Lenient: near the end of the data, libpng's IDAT reads (8 KB by default) shrink by halves,
     * so a file cut inside its image data fails only once inflate has used every byte that
     * arrived, and every row those bytes hold is kept, as a streaming browser decoder shows. */
    size_t remaining = rows->size - rows->offset;
    if (rows->lenient && remaining < 2 * PNG_IDAT_READ_SIZE) {
        size_t piece = remaining / 2;
        png_set_compression_buffer_size(png, piece < 1 ? 1 : piece > PNG_IDAT_READ_SIZE ? PNG_IDAT_READ_SIZE : piece);
    }
}

static void rows_error(png_structp png, png_const_charp message) {
    struct imago_png_rows *rows = png_get_error_ptr(png);
    snprintf(rows->message, sizeof rows->message, "%s", message);
    png_longjmp(png, 1);
}

/* Warnings are dropped, except that a CRC mismatch libpng was told to use anyway is remembered so
 * the decoder can report it as a repair. */
static void rows_warning(png_structp png, png_const_charp message) {
    struct imago_png_rows *rows = png_get_error_ptr(png);
    if (rows && message && strstr(message, "CRC")) rows->ignored_checksum = 1;
}

imago_png_rows *imago_png_rows_create(const uint8_t *data, size_t size, int options) {
    imago_png_rows *rows = calloc(1, sizeof *rows);
    if (!rows) return NULL;
    rows->data = data;
    rows->size = size;
    rows->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, rows, rows_error, rows_warning);
    if (rows->png) rows->info = png_create_info_struct(rows->png);
    if (!rows->png || !rows->info) {
        snprintf(rows->message, sizeof rows->message, "libpng could not start (out of memory)");
        return rows;
    }
    if (setjmp(png_jmpbuf(rows->png))) return rows; /* header_ok stays 0; the message says why */
    png_set_read_fn(rows->png, rows, rows_read);
    /* Sizes are checked by the caller's limits, from the header, before any row is decoded. */
    png_set_user_limits(rows->png, 0x7fffffff, 0x7fffffff);
    if (options & IMAGO_PNG_LENIENT) {
        rows->lenient = 1;
        /* As browsers: a chunk whose CRC does not match is used anyway (with a warning, so it is
         * reported), zlib's Adler-32 is not checked (which also saves its cost on every inflated
         * byte), and benign errors are warnings. */
        png_set_crc_action(rows->png, PNG_CRC_WARN_USE, PNG_CRC_WARN_USE);
#ifdef PNG_IGNORE_ADLER32
        png_set_option(rows->png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
        png_set_benign_errors(rows->png, 1);
    }
    png_read_info(rows->png, rows->info);
    png_uint_32 width = 0, height = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(rows->png, rows->info, &width, &height, &depth, &color, &interlace, NULL, NULL);
    rows->width = width;
    rows->height = height;
    rows->interlaced = interlace != PNG_INTERLACE_NONE;
    int has_trns = png_get_valid(rows->png, rows->info, PNG_INFO_tRNS) != 0;
    rows->has_alpha = (color & PNG_COLOR_MASK_ALPHA) != 0 || has_trns;
    rows->header_ok = 1;
    return rows;
}

int imago_png_rows_start(imago_png_rows *rows, int options) {
    if (!rows->header_ok || rows->started) return 0;
    rows->started = 1;
    if (setjmp(png_jmpbuf(rows->png))) return 0;
    png_uint_32 width = 0, height = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(rows->png, rows->info, &width, &height, &depth, &color, &interlace, NULL, NULL);
    int has_trns = png_get_valid(rows->png, rows->info, PNG_INFO_tRNS) != 0;
    /* To RGB(A)8 as the simplified API does: palette and low depths expanded, tRNS as alpha, 16-bit
     * rounded to 8, grey to RGB, an opaque alpha added unless RGB rows were asked for, gAMA (if
     * any) converted to sRGB. */
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(rows->png);
    if ((color & PNG_COLOR_MASK_COLOR) == 0 && depth < 8) png_set_expand_gray_1_2_4_to_8(rows->png);
    if (has_trns) png_set_tRNS_to_alpha(rows->png);
    if (depth == 16) png_set_scale_16(rows->png);
    if ((color & PNG_COLOR_MASK_COLOR) == 0) png_set_gray_to_rgb(rows->png);
    rows->channels = 4;
    if (!rows->has_alpha) {
        if (options & IMAGO_PNG_RGB) rows->channels = 3;
        else png_set_filler(rows->png, 0xFF, PNG_FILLER_AFTER);
    }
    png_set_gamma(rows->png, PNG_DEFAULT_sRGB, PNG_DEFAULT_sRGB);
    /* No png_set_interlace_handling: an Adam7 file's rows come pass by pass, each pass's rows
     * holding only that pass's pixels (see imago_png_rows_pass). */
    png_read_update_info(rows->png, rows->info);
    if (png_get_rowbytes(rows->png, rows->info) != (size_t)width * (size_t)rows->channels) {
        snprintf(rows->message, sizeof rows->message, "libpng's rows are %zu bytes, not %d per pixel",
                 (size_t)png_get_rowbytes(rows->png, rows->info), rows->channels);
        return 0;
    }
    return 1;
}

void imago_png_rows_destroy(imago_png_rows *rows) {
    if (!rows) return;
    if (rows->png) png_destroy_read_struct(&rows->png, rows->info ? &rows->info : NULL, NULL);
    free(rows);
}

int imago_png_rows_header_ok(const imago_png_rows *rows) { return rows->header_ok; }
uint32_t imago_png_rows_width(const imago_png_rows *rows) { return rows->width; }
uint32_t imago_png_rows_height(const imago_png_rows *rows) { return rows->height; }
int imago_png_rows_interlaced(const imago_png_rows *rows) { return rows->interlaced; }
int imago_png_rows_has_alpha(const imago_png_rows *rows) { return rows->has_alpha; }
int imago_png_rows_channels(const imago_png_rows *rows) { return rows->channels; }
int imago_png_rows_ignored_checksum(const imago_png_rows *rows) { return rows->ignored_checksum; }
const char *imago_png_rows_message(const imago_png_rows *rows) { return rows->message; }

uint64_t imago_png_rows_count(const imago_png_rows *rows) {
    if (!rows->interlaced) return rows->height;
    uint64_t count = 0;
    for (int pass = 0; pass < 7; pass++) {
        if (PNG_PASS_COLS(rows->width, pass) == 0) continue;
        count += PNG_PASS_ROWS(rows->height, pass);
    }
    return count;
}

int imago_png_rows_pass(const imago_png_rows *rows, int *pass, uint32_t *row, uint32_t *columns) {
    if (!rows->started) return 0;
    int current = png_get_current_pass_number(rows->png);
    if (current < 0 || current > 6) return 0;
    *pass = current;
    *row = png_get_current_row_number(rows->png);
    *columns = rows->interlaced ? PNG_PASS_COLS(rows->width, current) : rows->width;
    return 1;
}

int imago_png_rows_read(imago_png_rows *rows, uint8_t *row) {
    if (!rows->header_ok || !rows->started) return 0;
    if (setjmp(png_jmpbuf(rows->png))) return 0;
    png_read_row(rows->png, row, NULL);
    return 1;
}

int imago_png_rows_finish(imago_png_rows *rows) {
    if (!rows->header_ok || !rows->started) return 0;
    if (setjmp(png_jmpbuf(rows->png))) return 0;
    png_read_end(rows->png, NULL);
    return 1;
}

/* ---------------------------------------------------------------- simplified API */

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

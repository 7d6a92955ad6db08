/* libpng: the row API behind setjmp (streamed decoding), and the simplified API (png_image_*) for
 * interlaced files and encoding, with the macros Swift cannot see. */
#if defined(__linux__) /* Apple platforms decode with ImageIO; Xcode still builds this target. */
#include "requirements.h"
#include "CImagoCodecs.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
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
    int bit_depth;        /* the file's */
    int color_type;       /* the file's */
    int sample_bytes;     /* of the rows delivered: 1, or 2 with IMAGO_PNG_KEEP16 on a 16-bit file */
    int ignored_checksum;
    int lenient;
    char message[200];
    struct fast_rows *fast; /* set when the fast path decodes the rows instead of libpng */
};

/* ---------------------------------------------------------------- the fast path
 *
 * The common PNG of a photograph (8-bit RGB or RGBA, not interlaced, no tRNS, no gamma to
 * convert), decoded leniently, skips libpng for its pixels: its IDAT stream is inflated with
 * ISA-L (igzip, about twice zlib's speed; libvips gets the same from zlib-ng) straight into the
 * row buffer, and the rows are unfiltered here. Like the lenient libpng path it checks neither
 * CRCs nor the Adler-32, and fails a row on a bad filter byte, corrupt deflate data or data that
 * ends early. libpng still reads and checks everything before the first IDAT. */

struct fast_rows {
    struct inflate_state inflate;
    const uint8_t *data;
    size_t size;
    size_t chunk_end;  /* end of the current IDAT's data */
    size_t next_chunk; /* offset of the chunk after it */
    int header_left;   /* bytes of the zlib header still to skip */
    int stream_ended;
    int checksum_mismatch; /* an IDAT's CRC did not match (ignored, reported) */
    size_t row_bytes;  /* width * source bytes per pixel */
    int bpp;           /* source bytes per pixel, 3 or 4 */
    int out_channels;  /* 3 or 4 */
    uint32_t rows_done;
    uint32_t height;
    uint8_t *previous; /* the previous unfiltered row (zeros before the first) */
    uint8_t *current;  /* filter byte + the row being decoded */
};

static uint32_t read_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Moves to the next IDAT chunk at `offset`; 0 when the data ends or another chunk comes. */
static int fast_enter_idat(struct fast_rows *fast, size_t offset) {
    if (offset > fast->size || fast->size - offset < 8) return 0;
    uint32_t length = read_be32(fast->data + offset);
    if (memcmp(fast->data + offset + 4, "IDAT", 4) != 0) return 0;
    size_t start = offset + 8;
    /* A chunk longer than the data is used as far as it goes (lenient: a cut-off file). */
    size_t available = fast->size - start;
    size_t take = length < available ? length : available;
    fast->chunk_end = start + take;
    fast->next_chunk = length < available && available - length >= 4 ? start + length + 4 : fast->size;
    /* The CRC (ISA-L's, with carry-less multiplication: about a millisecond for 14 MB) is only
     * compared, so that an ignored mismatch is reported as libpng's lenient path does. */
    if (take == length && available - length >= 4 &&
        crc32_gzip_refl(0, fast->data + offset + 4, (uint64_t)length + 4) != read_be32(fast->data + start + length))
        fast->checksum_mismatch = 1;
    fast->inflate.next_in = (uint8_t *)(fast->data + start);
    fast->inflate.avail_in = (uint32_t)take;
    return 1;
}

static struct fast_rows *fast_create(const uint8_t *data, size_t size, uint32_t width, uint32_t height, int bpp,
                                     int out_channels) {
    /* The first IDAT, walking the chunks from the signature. */
    size_t offset = 8;
    while (offset <= size && size - offset >= 8) {
        uint32_t length = read_be32(data + offset);
        if (memcmp(data + offset + 4, "IDAT", 4) == 0) break;
        if (length > size - offset - 8) return NULL;
        offset += 12 + (size_t)length;
    }
    if (offset > size || size - offset < 8) return NULL;
    struct fast_rows *fast = calloc(1, sizeof *fast);
    if (!fast) return NULL;
    fast->row_bytes = (size_t)width * (size_t)bpp;
    fast->previous = calloc(1, fast->row_bytes);
    fast->current = malloc(fast->row_bytes + 1);
    if (!fast->previous || !fast->current) {
        free(fast->previous);
        free(fast->current);
        free(fast);
        return NULL;
    }
    fast->data = data;
    fast->size = size;
    fast->bpp = bpp;
    fast->out_channels = out_channels;
    fast->height = height;
    fast->header_left = 2;
    isal_inflate_init(&fast->inflate);
    fast->inflate.crc_flag = ISAL_DEFLATE; /* the zlib header is skipped here, its Adler-32 ignored */
    if (!fast_enter_idat(fast, offset)) {
        free(fast->previous);
        free(fast->current);
        free(fast);
        return NULL;
    }
    return fast;
}

static void fast_destroy(struct fast_rows *fast) {
    if (!fast) return;
    free(fast->previous);
    free(fast->current);
    free(fast);
}

static void fast_fail(imago_png_rows *rows, const char *message) {
    snprintf(rows->message, sizeof rows->message, "%s", message);
}

/* Inflates the next filter byte + row into fast->current. 1, or 0 with the message set. */
static int fast_inflate_row(imago_png_rows *rows) {
    struct fast_rows *fast = rows->fast;
    struct inflate_state *state = &fast->inflate;
    size_t wanted = fast->row_bytes + 1;
    size_t filled = 0;
    while (filled < wanted) {
        if (fast->stream_ended) {
            fast_fail(rows, "Not enough image data");
            return 0;
        }
        if (state->avail_in == 0 && state->tmp_out_valid == state->tmp_out_processed) {
            /* The next IDAT, if any. */
            if (!fast_enter_idat(fast, fast->next_chunk)) {
                fast_fail(rows, fast->next_chunk >= fast->size ? "the data ends too early" : "Not enough image data");
                return 0;
            }
            continue;
        }
        while (fast->header_left > 0 && state->avail_in > 0) {
            /* CMF: deflate with a window of at most 32 KB; FLG: no preset dictionary. */
            uint8_t byte = *state->next_in;
            if (fast->header_left == 2 && ((byte & 0x0F) != 8 || (byte >> 4) > 7)) {
                fast_fail(rows, "invalid zlib header");
                return 0;
            }
            if (fast->header_left == 1 && (byte & 0x20) != 0) {
                fast_fail(rows, "a zlib preset dictionary is not supported in PNG");
                return 0;
            }
            state->next_in++;
            state->avail_in--;
            fast->header_left--;
        }
        if (fast->header_left > 0) continue;
        state->next_out = fast->current + filled;
        state->avail_out = (uint32_t)(wanted - filled);
        uint32_t before_in = state->avail_in;
        int result = isal_inflate(state);
        size_t produced = (wanted - filled) - state->avail_out;
        filled += produced;
        if (result < 0) {
            fast_fail(rows, "invalid deflate data in IDAT");
            return 0;
        }
        if (state->block_state == ISAL_BLOCK_FINISH) {
            fast->stream_ended = 1;
            if (filled == wanted) break;
        }
        if (produced == 0 && state->avail_in == before_in && state->avail_in > 0) {
            fast_fail(rows, "deflate data makes no progress");
            return 0;
        }
    }
    return 1;
}

static uint8_t paeth(uint8_t a, uint8_t b, uint8_t c) {
    int p = (int)a + (int)b - (int)c;
    int pa = abs(p - (int)a), pb = abs(p - (int)b), pc = abs(p - (int)c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

/* Unfilters fast->current (after its filter byte) against fast->previous. 1, or 0 for a bad filter. */
static int fast_unfilter(struct fast_rows *fast) {
    uint8_t *row = fast->current + 1;
    const uint8_t *up = fast->previous;
    size_t n = fast->row_bytes;
    size_t bpp = (size_t)fast->bpp;
    switch (fast->current[0]) {
    case 0:
        break;
    case 1:
        for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
        break;
    case 2:
        for (size_t i = 0; i < n; i++) row[i] = (uint8_t)(row[i] + up[i]);
        break;
    case 3:
        for (size_t i = 0; i < bpp; i++) row[i] = (uint8_t)(row[i] + (up[i] >> 1));
        for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + ((row[i - bpp] + up[i]) >> 1));
        break;
    case 4:
        for (size_t i = 0; i < bpp; i++) row[i] = (uint8_t)(row[i] + up[i]);
        for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + paeth(row[i - bpp], up[i], up[i - bpp]));
        break;
    default:
        return 0;
    }
    return 1;
}

static int fast_read(imago_png_rows *rows, uint8_t *out) {
    struct fast_rows *fast = rows->fast;
    if (fast->rows_done >= fast->height) {
        fast_fail(rows, "no rows left");
        return 0;
    }
    if (!fast_inflate_row(rows)) return 0;
    if (!fast_unfilter(fast)) {
        fast_fail(rows, "bad adaptive filter value");
        return 0;
    }
    const uint8_t *row = fast->current + 1;
    if (fast->out_channels == fast->bpp) {
        memcpy(out, row, fast->row_bytes);
    } else { /* RGB to RGBA */
        size_t pixels = fast->row_bytes / 3;
        for (size_t i = 0; i < pixels; i++) {
            out[i * 4] = row[i * 3];
            out[i * 4 + 1] = row[i * 3 + 1];
            out[i * 4 + 2] = row[i * 3 + 2];
            out[i * 4 + 3] = 0xFF;
        }
    }
    memcpy(fast->previous, row, fast->row_bytes);
    fast->rows_done++;
    return 1;
}

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

/* Whether the first chunk is an IHDR whose CRC matches. Anything else (too short, another chunk
 * first) is left for libpng to refuse with its own message, so it counts as a match here. */
static int ihdr_crc_matches(const uint8_t *data, size_t size) {
    if (size < 33 || read_be32(data + 8) != 13 || memcmp(data + 12, "IHDR", 4) != 0) return 1;
    return crc32_gzip_refl(0, data + 12, 17) == read_be32(data + 29);
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
        /* Lenient about damage as browsers are, but not about a damaged header: Chromium refuses a
         * file whose IHDR CRC does not match (PngSuite's xhdn0g08), as a strict decode does. */
        if (!ihdr_crc_matches(data, size)) {
            snprintf(rows->message, sizeof rows->message,
                     "the IHDR chunk's CRC does not match its bytes: the header is damaged");
            return rows;
        }
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
    rows->bit_depth = depth;
    rows->color_type = color;
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
     * rounded to 8 (or kept, big-endian, with IMAGO_PNG_KEEP16, for a colour transform to read),
     * grey to RGB, an opaque alpha added unless RGB rows were asked for. gAMA, cHRM and iCCP are
     * left to Imago's colour conversion: the gamma is set to sRGB on both sides, so libpng changes
     * no value. */
    int keep16 = depth == 16 && (options & IMAGO_PNG_KEEP16);
    rows->sample_bytes = keep16 ? 2 : 1;
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(rows->png);
    if ((color & PNG_COLOR_MASK_COLOR) == 0 && depth < 8) png_set_expand_gray_1_2_4_to_8(rows->png);
    if (has_trns) png_set_tRNS_to_alpha(rows->png);
    if (depth == 16 && !keep16) png_set_scale_16(rows->png);
    if ((color & PNG_COLOR_MASK_COLOR) == 0) png_set_gray_to_rgb(rows->png);
    rows->channels = 4;
    if (!rows->has_alpha) {
        if (options & IMAGO_PNG_RGB) rows->channels = 3;
        else png_set_filler(rows->png, keep16 ? 0xFFFF : 0xFF, PNG_FILLER_AFTER);
    }
    png_set_gamma(rows->png, PNG_DEFAULT_sRGB, PNG_DEFAULT_sRGB);
    png_fixed_point gamma = 0;
    int plain_gamma = !png_get_valid(rows->png, rows->info, PNG_INFO_gAMA) ||
                      (png_get_gAMA_fixed(rows->png, rows->info, &gamma) && gamma == 45455);
    if (rows->lenient && !rows->interlaced && depth == 8 && !has_trns && plain_gamma &&
        (color == PNG_COLOR_TYPE_RGB || color == PNG_COLOR_TYPE_RGB_ALPHA)) {
        rows->fast = fast_create(rows->data, rows->size, width, height, color == PNG_COLOR_TYPE_RGB ? 3 : 4,
                                 rows->channels);
        if (rows->fast) return 1;
    }
    /* No png_set_interlace_handling: an Adam7 file's rows come pass by pass, each pass's rows
     * holding only that pass's pixels (see imago_png_rows_pass). */
    png_read_update_info(rows->png, rows->info);
    if (png_get_rowbytes(rows->png, rows->info) != (size_t)width * (size_t)rows->channels * (size_t)rows->sample_bytes) {
        snprintf(rows->message, sizeof rows->message, "libpng's rows are %zu bytes, not %d per pixel",
                 (size_t)png_get_rowbytes(rows->png, rows->info), rows->channels * rows->sample_bytes);
        return 0;
    }
    return 1;
}

void imago_png_rows_destroy(imago_png_rows *rows) {
    if (!rows) return;
    fast_destroy(rows->fast);
    if (rows->png) png_destroy_read_struct(&rows->png, rows->info ? &rows->info : NULL, NULL);
    free(rows);
}

int imago_png_rows_header_ok(const imago_png_rows *rows) { return rows->header_ok; }
uint32_t imago_png_rows_width(const imago_png_rows *rows) { return rows->width; }
uint32_t imago_png_rows_height(const imago_png_rows *rows) { return rows->height; }
int imago_png_rows_interlaced(const imago_png_rows *rows) { return rows->interlaced; }
int imago_png_rows_has_alpha(const imago_png_rows *rows) { return rows->has_alpha; }
int imago_png_rows_channels(const imago_png_rows *rows) { return rows->channels; }
int imago_png_rows_bit_depth(const imago_png_rows *rows) { return rows->bit_depth; }
int imago_png_rows_is_gray(const imago_png_rows *rows) {
    return (rows->color_type & PNG_COLOR_MASK_COLOR) == 0 && rows->color_type != PNG_COLOR_TYPE_PALETTE;
}
int imago_png_rows_ignored_checksum(const imago_png_rows *rows) {
    return rows->ignored_checksum || (rows->fast && rows->fast->checksum_mismatch);
}
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
    if (rows->fast) return fast_read(rows, row);
    if (setjmp(png_jmpbuf(rows->png))) return 0;
    png_read_row(rows->png, row, NULL);
    return 1;
}

int imago_png_rows_finish(imago_png_rows *rows) {
    if (!rows->header_ok || !rows->started) return 0;
    if (rows->fast) return 1; /* lenient: what follows the pixels is not read */
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
/* ---------------------------------------------------------------- encoding with libpng's row API
 *
 * What the simplified API cannot write: Adam7 interlacing and palette images (PLTE, with tRNS
 * when an entry is not opaque). Errors longjmp back here; everything freed on the way out lives
 * in a struct outside the jump, so no local changes between setjmp and longjmp. */

struct png_sink {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
    int failed;
    char message[64];
};

static void png_sink_write(png_structp png, png_bytep data, png_size_t length) {
    struct png_sink *sink = png_get_io_ptr(png);
    if (sink->failed) return;
    if (length > SIZE_MAX - sink->size) {
        sink->failed = 1;
        png_error(png, "output larger than memory");
    }
    if (sink->size + length > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity : 4096;
        while (capacity < sink->size + length) {
            if (capacity > SIZE_MAX / 2) { capacity = sink->size + length; break; }
            capacity *= 2;
        }
        uint8_t *grown = realloc(sink->bytes, capacity);
        if (!grown) {
            sink->failed = 1;
            png_error(png, "out of memory for the output");
        }
        sink->bytes = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->bytes + sink->size, data, length);
    sink->size += length;
}

static void png_sink_flush(png_structp png) { (void)png; }

static void png_sink_error(png_structp png, png_const_charp text) {
    struct png_sink *sink = png_get_error_ptr(png);
    snprintf(sink->message, sizeof sink->message, "%s", text);
    png_longjmp(png, 1);
}

static void png_sink_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

int imago_png_encode_rows(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                          const uint8_t *palette, int palette_count, int interlaced, uint8_t **output,
                          size_t *output_size, char *message) {
    int color_type = channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA
                   : channels == 3 ? PNG_COLOR_TYPE_RGB
                   : PNG_COLOR_TYPE_PALETTE;
    if (width < 1 || height < 1 || (channels != 1 && channels != 3 && channels != 4) ||
        stride / (size_t)channels < (size_t)width ||
        (channels == 1 && (palette == NULL || palette_count < 1 || palette_count > 256))) {
        snprintf(message, 64, "bad arguments (%dx%d, %d channels, %d colours)", width, height, channels,
                 palette_count);
        return IMAGO_FAILED;
    }
    png_bytep *rows = malloc(sizeof(png_bytep) * (size_t)height);
    if (!rows) {
        snprintf(message, 64, "out of memory for %d row pointers", height);
        return IMAGO_FAILED;
    }
    for (int y = 0; y < height; y++) rows[y] = (png_bytep)(pixels + (size_t)y * stride);
    struct png_sink sink;
    memset(&sink, 0, sizeof sink);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, png_sink_error, png_sink_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, NULL);
        free(rows);
        snprintf(message, 64, "libpng could not start a write");
        return IMAGO_FAILED;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(rows);
        free(sink.bytes);
        snprintf(message, 64, "%s", sink.message[0] ? sink.message : "libpng failed");
        return IMAGO_FAILED;
    }
    png_set_write_fn(png, &sink, png_sink_write, png_sink_flush);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, color_type,
                 interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (channels == 1) {
        png_color colours[256];
        png_byte alphas[256];
        int last_translucent = -1;
        for (int i = 0; i < palette_count; i++) {
            colours[i].red = palette[4 * i];
            colours[i].green = palette[4 * i + 1];
            colours[i].blue = palette[4 * i + 2];
            alphas[i] = palette[4 * i + 3];
            if (alphas[i] != 255) last_translucent = i;
        }
        png_set_PLTE(png, info, colours, palette_count);
        if (last_translucent >= 0) png_set_tRNS(png, info, alphas, last_translucent + 1, NULL);
    }
    png_write_info(png, info);
    png_write_image(png, rows); /* all seven passes when interlaced */
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(rows);
    *output = sink.bytes;
    *output_size = sink.size;
    return IMAGO_OK;
}
#endif /* defined(__linux__) */

/* libjpeg-turbo behind setjmp: decoding to RGBA with limits, encoding from RGBX. */
#if defined(__linux__) /* Apple platforms decode with ImageIO; Xcode still builds this target. */
#include "requirements.h"
#include "CImagoCodecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

struct imago_jpeg_decoder {
    struct jpeg_decompress_struct info;
    struct jpeg_error_mgr errors;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    int maximum_scans;
    int outcome;
    int is_cmyk;
    int raw_cmyk; /* imago_jpeg_set_raw_cmyk: CMYK rows left as they are, for a colour profile */
    char message[JMSG_LENGTH_MAX];
    /* Lenient decoding (imago_jpeg_set_lenient): data warnings are counted, not fatal, and a
     * failure after the header keeps what decoded. */
    int lenient;
    int warnings;
    char warning[JMSG_LENGTH_MAX]; /* the first data warning passed over */
    int buffered;       /* a multi-scan file read in buffered-image mode (lenient only) */
    int start_failed;   /* jpeg_start_decompress failed: nothing decodes, the size is known */
    int input_stopped;  /* a scan failed while reading input: the scans before it are shown */
    int output_width, output_height;
    int rows_decoded;
    /* Preview decoding (imago_jpeg_set_preview): the bytes end after a complete scan and an end of
     * image follows them; multi-scan files are read in buffered-image mode, strictly. */
    int preview;
    int (*is_cancelled)(void); /* asked as scans are read and rows output; 1 stops the decoding */
    int no_block_smoothing; /* imago_jpeg_set_block_smoothing(decoder, 0): scans were left out on purpose */
};

static void fail(j_common_ptr info, int outcome) {
    imago_jpeg_decoder *decoder = (imago_jpeg_decoder *)info->client_data;
    decoder->outcome = outcome;
    if (outcome == IMAGO_FAILED) (*info->err->format_message)(info, decoder->message);
    longjmp(decoder->jump, 1);
}

static void error_exit(j_common_ptr info) { fail(info, IMAGO_FAILED); }

/* Warnings about the data itself mean missing or wrong pixels (libjpeg would pad a truncated file
 * with grey and carry on), so they fail the decoding. Warnings about metadata do not, nor do stray
 * bytes before a marker: the pixel data is intact then, and every browser shows such files. */
static void emit_message(j_common_ptr info, int level) {
    if (level >= 0) return; /* trace messages */
    switch (info->err->msg_code) {
    case JWRN_ADOBE_XFORM:
    case JWRN_JFIF_MAJOR:
    case JWRN_BOGUS_ICC:
    case JWRN_EXTRANEOUS_DATA:
        info->err->num_warnings++;
        return;
    default:
        break;
    }
    imago_jpeg_decoder *decoder = (imago_jpeg_decoder *)info->client_data;
    if (!decoder->lenient) fail(info, IMAGO_FAILED);
    /* Lenient: carry on as browsers do; libjpeg pads what is missing with grey. */
    info->err->num_warnings++;
    if (decoder->warnings++ == 0) (*info->err->format_message)(info, decoder->warning);
}

static void output_message(j_common_ptr info) { (void)info; /* never print to stderr */ }

/* Called while scans are read; a hostile progressive file uses thousands of scans to burn CPU. */
static void progress_monitor(j_common_ptr info) {
    imago_jpeg_decoder *decoder = (imago_jpeg_decoder *)info->client_data;
    if (decoder->info.input_scan_number > decoder->maximum_scans) fail(info, IMAGO_SCAN_LIMIT);
    if (decoder->is_cancelled && decoder->is_cancelled()) fail(info, IMAGO_CANCELLED);
}

/* The preview's data source: jpeg_mem_src's, except that past the last byte it supplies an end of
 * image without a warning (the bytes given end where a scan does; nothing is missing from them). */
static boolean preview_fill_input_buffer(j_decompress_ptr info) {
    static const JOCTET end_of_image[2] = {0xFF, (JOCTET)JPEG_EOI};
    info->src->next_input_byte = end_of_image;
    info->src->bytes_in_buffer = 2;
    return TRUE;
}

void imago_jpeg_set_preview(imago_jpeg_decoder *decoder, int (*is_cancelled)(void)) {
    decoder->preview = 1;
    decoder->lenient = 0;
    decoder->is_cancelled = is_cancelled;
    decoder->info.src->fill_input_buffer = preview_fill_input_buffer;
}

int imago_jpeg_scans_read(const imago_jpeg_decoder *decoder) { return decoder->info.input_scan_number; }

imago_jpeg_decoder *imago_jpeg_decoder_create(const uint8_t *data, size_t size, int maximum_scans) {
    imago_jpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->maximum_scans = maximum_scans;
    decoder->info.err = jpeg_std_error(&decoder->errors);
    decoder->errors.error_exit = error_exit;
    decoder->errors.emit_message = emit_message;
    decoder->errors.output_message = output_message;
    decoder->info.client_data = decoder;
    if (setjmp(decoder->jump)) {
        jpeg_destroy_decompress(&decoder->info);
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->info);
    decoder->progress.progress_monitor = progress_monitor;
    decoder->info.progress = &decoder->progress;
    jpeg_mem_src(&decoder->info, data, (unsigned long)size);
    return decoder;
}

void imago_jpeg_decoder_destroy(imago_jpeg_decoder *decoder) {
    if (!decoder) return;
    jpeg_destroy_decompress(&decoder->info);
    free(decoder);
}

int imago_jpeg_read_header(imago_jpeg_decoder *decoder, imago_jpeg_header *header) {
    if (setjmp(decoder->jump)) return decoder->outcome;
    jpeg_read_header(&decoder->info, TRUE);
    struct jpeg_decompress_struct *info = &decoder->info;
    header->width = (int)info->image_width;
    header->height = (int)info->image_height;
    header->components = info->num_components;
    header->is_progressive = jpeg_has_multiple_scans(info) ? 1 : 0;
    switch (info->jpeg_color_space) {
    case JCS_GRAYSCALE: header->color_model = IMAGO_JPEG_GRAY; break;
    case JCS_CMYK:
    case JCS_YCCK: header->color_model = IMAGO_JPEG_CMYK; break;
    default: header->color_model = IMAGO_JPEG_RGB; break;
    }
    return IMAGO_OK;
}

void imago_jpeg_set_lenient(imago_jpeg_decoder *decoder, int lenient) { decoder->lenient = lenient; }

void imago_jpeg_set_raw_cmyk(imago_jpeg_decoder *decoder, int raw) { decoder->raw_cmyk = raw; }

void imago_jpeg_set_block_smoothing(imago_jpeg_decoder *decoder, int smoothing) { decoder->no_block_smoothing = !smoothing; }

int imago_jpeg_cmyk_inverted(const imago_jpeg_decoder *decoder) { return decoder->info.saw_Adobe_marker ? 1 : 0; }

int imago_jpeg_start(imago_jpeg_decoder *decoder, int scale_numerator, int *width, int *height) {
    if (setjmp(decoder->jump)) {
        /* Lenient: once the output size is known, a scan that cannot start is a grey picture, as
         * a browser has the size from the header and shows what decoded (nothing). */
        if (decoder->outcome != IMAGO_FAILED || !decoder->lenient || decoder->output_width <= 0) return decoder->outcome;
        decoder->start_failed = 1;
        *width = decoder->output_width;
        *height = decoder->output_height;
        return IMAGO_PARTIAL;
    }
    struct jpeg_decompress_struct *info = &decoder->info;
    decoder->is_cmyk = info->jpeg_color_space == JCS_CMYK || info->jpeg_color_space == JCS_YCCK;
    /* libjpeg-turbo converts gray and YCbCr straight to RGBA; CMYK comes out as 4 bytes a pixel
     * and is converted in place, so both fill the same buffer. */
    info->out_color_space = decoder->is_cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    info->scale_num = (unsigned)scale_numerator;
    info->scale_denom = 8;
    info->dct_method = JDCT_ISLOW;
    if (decoder->no_block_smoothing) info->do_block_smoothing = FALSE;
    if (decoder->preview && !jpeg_has_multiple_scans(info)) {
        snprintf(decoder->message, sizeof decoder->message, "a single-scan JPEG has no preview");
        return IMAGO_FAILED;
    }
    if (decoder->lenient || decoder->preview) {
        jpeg_calc_output_dimensions(info);
        decoder->output_width = (int)info->output_width;
        decoder->output_height = (int)info->output_height;
        /* Buffered-image mode reads the scans one by one, so a scan that fails leaves the ones
         * before it to show; it holds the same whole-image coefficient buffer that libjpeg
         * allocates for any multi-scan file. */
        decoder->buffered = jpeg_has_multiple_scans(info) ? 1 : 0;
        info->buffered_image = decoder->buffered ? TRUE : FALSE;
    }
    jpeg_start_decompress(info);
    *width = (int)info->output_width;
    *height = (int)info->output_height;
    return IMAGO_OK;
}

/* CMYK to RGB without a colour profile, as browsers do: R = (1 - C)(1 - K). Adobe files (most CMYK
 * JPEGs, written by Photoshop) store the channels inverted. */
static void cmyk_to_rgba(uint8_t *row, JDIMENSION width, int inverted) {
    for (JDIMENSION x = 0; x < width; x++, row += 4) {
        unsigned c = row[0], m = row[1], y = row[2], k = row[3];
        if (!inverted) {
            c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k;
        }
        row[0] = (uint8_t)((c * k + 127) / 255);
        row[1] = (uint8_t)((m * k + 127) / 255);
        row[2] = (uint8_t)((y * k + 127) / 255);
        row[3] = 255;
    }
}

/* Rows from `first` on, grey as libjpeg pads missing data, opaque. */
static void fill_grey(imago_jpeg_decoder *decoder, uint8_t *pixels, size_t stride, int first) {
    for (int y = first < 0 ? 0 : first; y < decoder->output_height; y++) {
        memset(pixels + (size_t)y * stride, 128, (size_t)decoder->output_width * 4);
        for (int x = 0; x < decoder->output_width; x++) pixels[(size_t)y * stride + (size_t)x * 4 + 3] = 255;
    }
}

/* Buffered mode: reads every scan; when lenient, a failure stops the input and keeps the scans
 * before it (otherwise it fails the decoding). The scan limit holds as in jpeg_start_decompress. */
static int consume_scans(imago_jpeg_decoder *decoder) {
    struct jpeg_decompress_struct *info = &decoder->info;
    if (setjmp(decoder->jump)) {
        if (decoder->outcome != IMAGO_FAILED || !decoder->lenient) return decoder->outcome;
        decoder->input_stopped = 1;
        return IMAGO_OK;
    }
    while (!jpeg_input_complete(info)) {
        if (info->input_scan_number > decoder->maximum_scans) {
            decoder->outcome = IMAGO_SCAN_LIMIT;
            return IMAGO_SCAN_LIMIT;
        }
        if (decoder->is_cancelled && decoder->is_cancelled()) {
            decoder->outcome = IMAGO_CANCELLED;
            return IMAGO_CANCELLED;
        }
        if (jpeg_consume_input(info) == JPEG_SUSPENDED) break; /* the memory source never suspends */
    }
    return IMAGO_OK;
}

int imago_jpeg_read_pixels(imago_jpeg_decoder *decoder, uint8_t *pixels, size_t stride) {
    struct jpeg_decompress_struct *info = &decoder->info;
    if (decoder->start_failed) {
        fill_grey(decoder, pixels, stride, 0);
        decoder->rows_decoded = 0;
        return IMAGO_PARTIAL;
    }
    if (decoder->buffered) {
        int consumed = consume_scans(decoder);
        if (consumed != IMAGO_OK) return consumed;
    }
    if (setjmp(decoder->jump)) {
        if (decoder->outcome != IMAGO_FAILED || !decoder->lenient) return decoder->outcome;
        /* Lenient: keep the rows already output, grey below. */
        decoder->rows_decoded = (int)info->output_scanline;
        fill_grey(decoder, pixels, stride, decoder->rows_decoded);
        return IMAGO_PARTIAL;
    }
    if (decoder->buffered) {
        int scan = info->input_scan_number;
        if (decoder->input_stopped) {
            /* The input failed during or after scan `scan`. Rendering the coefficient buffer of
             * the scans before it made libjpeg read state the failed scan left half set (fuzzing
             * found reads of uninitialised pointers, Fuzz/jpeg/crashes), so a progressive file
             * whose input fails shows grey at its full size, as libjpeg pads missing data. */
            decoder->rows_decoded = 0;
            fill_grey(decoder, pixels, stride, 0);
            return IMAGO_PARTIAL;
        }
        jpeg_start_output(info, scan);
    }
    while (info->output_scanline < info->output_height) {
        JSAMPROW row = pixels + (size_t)info->output_scanline * stride;
        if (jpeg_read_scanlines(info, &row, 1) != 1) {
            /* Only a suspending data source returns 0 lines; the memory source never suspends. */
            snprintf(decoder->message, sizeof decoder->message, "libjpeg returned no scanline");
            return IMAGO_FAILED;
        }
        if (decoder->is_cmyk && !decoder->raw_cmyk) cmyk_to_rgba(row, info->output_width, info->saw_Adobe_marker);
    }
    decoder->rows_decoded = (int)info->output_height;
    if (decoder->input_stopped) return IMAGO_PARTIAL;
    /* No jpeg_finish_decompress: every pixel is in, and what follows the last scan does not matter. */
    return IMAGO_OK;
}

const char *imago_jpeg_message(const imago_jpeg_decoder *decoder) { return decoder->message; }

int imago_jpeg_warning_count(const imago_jpeg_decoder *decoder) { return decoder->warnings; }

const char *imago_jpeg_warning(const imago_jpeg_decoder *decoder) { return decoder->warning; }

int imago_jpeg_rows_decoded(const imago_jpeg_decoder *decoder) { return decoder->rows_decoded; }

/* One encoding: libjpeg's state, its error manager, the jump buffer and the output buffer, on the
 * heap so that nothing the longjmp path reads lives in a local modified after setjmp.
 *
 * The output buffer belongs to this struct alone (a destination manager of our own, not
 * jpeg_mem_dest, which frees and replaces the caller's buffer as it grows and would leave the
 * error path a stale pointer to free twice): grown with realloc, freed once on failure, handed to
 * the caller on success. */
struct imago_jpeg_encoder {
    struct jpeg_compress_struct info;
    struct jpeg_error_mgr errors;
    struct jpeg_destination_mgr destination;
    jmp_buf jump;
    char *message;
    uint8_t *buffer;
    size_t capacity;
    size_t output_limit;
};

static void encoder_error_exit(j_common_ptr info) {
    struct imago_jpeg_encoder *encoder = (struct imago_jpeg_encoder *)info->client_data;
    (*info->err->format_message)(info, encoder->message);
    longjmp(encoder->jump, 1);
}

static void init_destination(j_compress_ptr info) {
    struct imago_jpeg_encoder *encoder = (struct imago_jpeg_encoder *)info->client_data;
    encoder->destination.next_output_byte = encoder->buffer;
    encoder->destination.free_in_buffer = encoder->capacity;
}

/* The buffer is full: double it. On failure (out of memory, or past the output limit) the old
 * buffer stays in encoder->buffer, still owned by the encoder, and is freed once. */
static boolean empty_output_buffer(j_compress_ptr info) {
    struct imago_jpeg_encoder *encoder = (struct imago_jpeg_encoder *)info->client_data;
    size_t used = encoder->capacity;
    if (used > SIZE_MAX / 2) ERREXIT1(info, JERR_OUT_OF_MEMORY, 20);
    size_t grown = used * 2;
    if (encoder->output_limit && grown > encoder->output_limit) {
        if (used >= encoder->output_limit) ERREXIT1(info, JERR_OUT_OF_MEMORY, 21);
        grown = encoder->output_limit;
    }
    uint8_t *bigger = realloc(encoder->buffer, grown);
    if (!bigger) ERREXIT1(info, JERR_OUT_OF_MEMORY, 22);
    encoder->buffer = bigger;
    encoder->capacity = grown;
    encoder->destination.next_output_byte = bigger + used;
    encoder->destination.free_in_buffer = grown - used;
    return TRUE;
}

static void term_destination(j_compress_ptr info) { (void)info; /* the size is capacity - free_in_buffer */ }

int imago_jpeg_encode_limited(const uint8_t *pixels, int width, int height, size_t stride, int quality,
                              size_t output_limit, uint8_t **output, size_t *output_size, char *message) {
    return imago_jpeg_encode_progressive(pixels, width, height, stride, quality, 0, output_limit, output, output_size,
                                         message);
}

static int encode_jpeg(const uint8_t *pixels, int width, int height, size_t stride, int quality, int progressive,
                       int grayscale, size_t output_limit, uint8_t **output, size_t *output_size, char *message);

int imago_jpeg_encode_progressive(const uint8_t *pixels, int width, int height, size_t stride, int quality,
                                  int progressive, size_t output_limit, uint8_t **output, size_t *output_size,
                                  char *message) {
    return encode_jpeg(pixels, width, height, stride, quality, progressive, 0, output_limit, output, output_size,
                       message);
}

int imago_jpeg_encode_grayscale(const uint8_t *pixels, int width, int height, size_t stride, int quality,
                                uint8_t **output, size_t *output_size, char *message) {
    return encode_jpeg(pixels, width, height, stride, quality, 0, 1, 0, output, output_size, message);
}

static int encode_jpeg(const uint8_t *pixels, int width, int height, size_t stride, int quality, int progressive,
                       int grayscale, size_t output_limit, uint8_t **output, size_t *output_size, char *message) {
    struct imago_jpeg_encoder *encoder = calloc(1, sizeof *encoder);
    if (!encoder) {
        snprintf(message, 200, "out of memory");
        return IMAGO_FAILED;
    }
    encoder->message = message;
    encoder->output_limit = output_limit;
    encoder->capacity = 16384;
    if (output_limit && encoder->capacity > output_limit) encoder->capacity = output_limit;
    encoder->buffer = malloc(encoder->capacity);
    if (!encoder->buffer) {
        free(encoder);
        snprintf(message, 200, "out of memory");
        return IMAGO_FAILED;
    }
    struct jpeg_compress_struct *info = &encoder->info;
    info->err = jpeg_std_error(&encoder->errors);
    encoder->errors.error_exit = encoder_error_exit;
    encoder->errors.output_message = output_message;
    info->client_data = encoder;
    if (setjmp(encoder->jump)) {
        /* Every path out of libjpeg: destroy its state (safe on a partly created one), then free
         * the one buffer, whatever its size now. */
        jpeg_destroy_compress(info);
        free(encoder->buffer);
        free(encoder);
        return IMAGO_FAILED;
    }
    jpeg_create_compress(info);
    encoder->destination.init_destination = init_destination;
    encoder->destination.empty_output_buffer = empty_output_buffer;
    encoder->destination.term_destination = term_destination;
    info->dest = &encoder->destination;
    info->image_width = (JDIMENSION)width;
    info->image_height = (JDIMENSION)height;
    info->input_components = 4;
    info->in_color_space = JCS_EXT_RGBX;
    jpeg_set_defaults(info);
    /* libjpeg-turbo converts RGBX rows to one luma component itself (Y of R = G = B is R). */
    if (grayscale) jpeg_set_colorspace(info, JCS_GRAYSCALE);
    jpeg_set_quality(info, quality, TRUE);
    info->optimize_coding = TRUE;
    if (progressive && !grayscale) {
        /* Spectral selection only: the DC of all components (a 1/8-scale preview), the lowest
         * luma frequencies, each chroma component, then the rest of luma. libjpeg's simple
         * progression adds successive-approximation refinement scans (10 scans in all); on
         * thumbnails they made encoding 1.6 to 1.8 times slower (every scan is gathered for its
         * Huffman table and then written) and made files no smaller: 19 photos at 300 px,
         * quality 80, 224,316 bytes with these 5 scans against 224,901. */
        static const jpeg_scan_info scans[] = {
            {3, {0, 1, 2}, 0, 0, 0, 0},
            {1, {0}, 1, 5, 0, 0},
            {1, {2}, 1, 63, 0, 0},
            {1, {1}, 1, 63, 0, 0},
            {1, {0}, 6, 63, 0, 0},
        };
        /* The input is always RGBX, so jpeg_set_defaults chose YCbCr: three components. */
        info->scan_info = scans;
        info->num_scans = (int)(sizeof scans / sizeof scans[0]);
    }
    jpeg_start_compress(info, TRUE);
    while (info->next_scanline < info->image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)info->next_scanline * stride);
        jpeg_write_scanlines(info, &row, 1);
    }
    jpeg_finish_compress(info);
    size_t size = encoder->capacity - encoder->destination.free_in_buffer;
    jpeg_destroy_compress(info);
    *output = encoder->buffer; /* now the caller's, for imago_free */
    *output_size = size;
    free(encoder);
    return IMAGO_OK;
}

int imago_jpeg_encode(const uint8_t *pixels, int width, int height, size_t stride, int quality,
                      uint8_t **output, size_t *output_size, char *message) {
    return imago_jpeg_encode_limited(pixels, width, height, stride, quality, 0, output, output_size, message);
}

void imago_free(void *pointer) { free(pointer); }
#endif /* defined(__linux__) */

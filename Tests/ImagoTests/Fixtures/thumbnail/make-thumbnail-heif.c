/* Writes a 96x64 HEIF (HEVC) or AVIF (AV1) with a 24x16 embedded thumbnail through libheif;
 * `heic-p3` (HEVC) gives the thumbnail a colour of its own (nclx: Display P3 primaries, sRGB
 * transfer), and the primary image sRGB's (nclx 1/13/6).
 * cc make-thumbnail-heif.c -lheif -o make-thumbnail-heif && ./make-thumbnail-heif heic OUT */
#include <libheif/heif.h>
#include <stdio.h>
#include <string.h>

/* The 96x64 gradient at `width` x `height`: red grows to the right, green downwards. */
static struct heif_image *gradient(int width, int height) {
    struct heif_image *image = NULL;
    heif_image_create(width, height, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image);
    heif_image_add_plane(image, heif_channel_interleaved, width, height, 8);
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            uint8_t *p = plane + y * stride + x * 3;
            p[0] = (uint8_t)(x * 255 / (width - 1)); p[1] = (uint8_t)(y * 255 / (height - 1)); p[2] = 128;
        }
    return image;
}

/* nclx code points: `primaries` (1 BT.709, 12 Display P3), sRGB's transfer, BT.601's matrix, full range. */
static struct heif_color_profile_nclx *nclx(uint16_t primaries) {
    struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
    heif_nclx_color_profile_set_color_primaries(nclx, primaries);
    heif_nclx_color_profile_set_transfer_characteristics(nclx, 13);
    heif_nclx_color_profile_set_matrix_coefficients(nclx, 6);
    nclx->full_range_flag = 1;
    return nclx;
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    enum heif_compression_format format = strcmp(argv[1], "avif") == 0 ? heif_compression_AV1 : heif_compression_HEVC;
    struct heif_context *context = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_error error = heif_context_get_encoder_for_format(context, format, &encoder);
    if (error.code) { fprintf(stderr, "encoder: %s\n", error.message); return 1; }
    heif_encoder_set_lossy_quality(encoder, 60);
    struct heif_image *image = gradient(96, 64);
    int p3 = strcmp(argv[1], "heic-p3") == 0;
    struct heif_encoding_options *options = heif_encoding_options_alloc();
    options->macOS_compatibility_workaround_no_nclx_profile = 0;
    if (p3) heif_image_set_nclx_color_profile(image, nclx(1));
    struct heif_image_handle *handle = NULL;
    error = heif_context_encode_image(context, image, encoder, p3 ? options : NULL, &handle);
    if (error.code) { fprintf(stderr, "encode: %s\n", error.message); return 1; }
    struct heif_image_handle *thumbnail = NULL;
    if (p3) {
        /* Encoded as an image of its own, with its colour, then assigned as the thumbnail. */
        struct heif_image *small = gradient(24, 16);
        heif_image_set_nclx_color_profile(small, nclx(12));
        error = heif_context_encode_image(context, small, encoder, options, &thumbnail);
        /* libheif 1.15 writes the 'thmb' reference from its second argument to its first, the
         * reverse of its header's words: the thumbnail goes first. */
        if (!error.code) error = heif_context_assign_thumbnail(context, thumbnail, handle);
    } else {
        error = heif_context_encode_thumbnail(context, image, handle, encoder, NULL, 24, &thumbnail);
    }
    if (error.code) { fprintf(stderr, "thumbnail: %s\n", error.message); return 1; }
    error = heif_context_write_to_file(context, argv[2]);
    if (error.code) { fprintf(stderr, "write: %s\n", error.message); return 1; }
    printf("%dx%d, thumbnail %dx%d\n", heif_image_handle_get_width(handle), heif_image_handle_get_height(handle),
           heif_image_handle_get_width(thumbnail), heif_image_handle_get_height(thumbnail));
    return 0;
}

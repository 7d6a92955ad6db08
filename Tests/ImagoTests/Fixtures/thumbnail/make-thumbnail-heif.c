/* Writes a 96x64 HEIF (HEVC) or AVIF (AV1) with a 24x16 embedded thumbnail through libheif.
 * cc make-thumbnail-heif.c -lheif -o make-thumbnail-heif && ./make-thumbnail-heif heic OUT */
#include <libheif/heif.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    enum heif_compression_format format = strcmp(argv[1], "avif") == 0 ? heif_compression_AV1 : heif_compression_HEVC;
    struct heif_context *context = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_error error = heif_context_get_encoder_for_format(context, format, &encoder);
    if (error.code) { fprintf(stderr, "encoder: %s\n", error.message); return 1; }
    heif_encoder_set_lossy_quality(encoder, 60);
    struct heif_image *image = NULL;
    heif_image_create(96, 64, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image);
    heif_image_add_plane(image, heif_channel_interleaved, 96, 64, 8);
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 96; x++) {
            uint8_t *p = plane + y * stride + x * 3;
            p[0] = (uint8_t)(x * 255 / 95); p[1] = (uint8_t)(y * 255 / 63); p[2] = 128;
        }
    struct heif_image_handle *handle = NULL;
    error = heif_context_encode_image(context, image, encoder, NULL, &handle);
    if (error.code) { fprintf(stderr, "encode: %s\n", error.message); return 1; }
    struct heif_image_handle *thumbnail = NULL;
    error = heif_context_encode_thumbnail(context, image, handle, encoder, NULL, 24, &thumbnail);
    if (error.code) { fprintf(stderr, "thumbnail: %s\n", error.message); return 1; }
    error = heif_context_write_to_file(context, argv[2]);
    if (error.code) { fprintf(stderr, "write: %s\n", error.message); return 1; }
    printf("%dx%d, thumbnail %dx%d\n", heif_image_handle_get_width(handle), heif_image_handle_get_height(handle),
           heif_image_handle_get_width(thumbnail), heif_image_handle_get_height(thumbnail));
    return 0;
}

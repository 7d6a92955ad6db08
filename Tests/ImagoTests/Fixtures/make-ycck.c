/* Writes an Adobe YCCK JPEG (what Photoshop makes from CMYK) of a 32x24 CMYK pattern.
   Pillow cannot write YCCK, so make-fixtures.py compiles this once: cc make-ycck.c -ljpeg. */
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: make-ycck IN.cmyk OUT.jpg\n"); return 2; }
    enum { W = 32, H = 24 };
    unsigned char pixels[W * H * 4];
    FILE *in = fopen(argv[1], "rb");
    if (!in || fread(pixels, 1, sizeof pixels, in) != sizeof pixels) { perror(argv[1]); return 1; }
    fclose(in);
    FILE *out = fopen(argv[2], "wb");
    if (!out) { perror(argv[2]); return 1; }
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, out);
    c.image_width = W;
    c.image_height = H;
    c.input_components = 4;
    c.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&c);
    jpeg_set_colorspace(&c, JCS_YCCK); /* writes an Adobe marker with transform 2 */
    jpeg_set_quality(&c, 95, TRUE);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < H) {
        JSAMPROW row = pixels + c.next_scanline * W * 4;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    fclose(out);
    return 0;
}

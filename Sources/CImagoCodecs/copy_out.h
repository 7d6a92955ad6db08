/* A malloc'ed copy of an encoder's output for Swift, which frees it with imago_free: for libraries
 * whose output buffer belongs to their own free function (libwebp's WebPFree, libwebpmux's). */
#ifndef IMAGO_COPY_OUT_H
#define IMAGO_COPY_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies `size` bytes into a new buffer and returns 1 with *output and *output_size set; returns 0
 * with `message` (at least 160 bytes) saying why when the memory cannot be had. */
static inline int imago_copy_out(const uint8_t *bytes, size_t size, uint8_t **output, size_t *output_size, char *message) {
    uint8_t *buffer = malloc(size > 0 ? size : 1);
    if (!buffer) {
        snprintf(message, 160, "out of memory for %zu bytes", size);
        return 0;
    }
    if (size > 0) memcpy(buffer, bytes, size);
    *output = buffer;
    *output_size = size;
    return 1;
}

#endif

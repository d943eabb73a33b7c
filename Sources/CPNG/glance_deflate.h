// A fast deflate encoder in a zlib wrapper, for the PNG writer (see glance_deflate.c).
#ifndef GLANCE_DEFLATE_H
#define GLANCE_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

/// One zlib stream being written into a caller's buffer.
typedef struct glance_deflate glance_deflate;

/// Starts a zlib stream written into `out`, which holds `capacity` bytes; NULL when out of memory.
glance_deflate *glance_deflate_create(uint8_t *out, size_t capacity);

/// Adds `count` bytes to the stream.
void glance_deflate_write(glance_deflate *deflate, const uint8_t *data, size_t count);

/// Ends the stream: `*length` is how many bytes it took; -1 if they did not fit in `capacity`.
int glance_deflate_finish(glance_deflate *deflate, size_t *length);

/// Frees the encoder (the bytes written stay in the caller's buffer). NULL is allowed.
void glance_deflate_free(glance_deflate *deflate);

#endif

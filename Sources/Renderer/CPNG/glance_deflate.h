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

/// How many bytes the stream has written into its current output buffer.
size_t glance_deflate_output_length(const glance_deflate *deflate);

/// Moves the output to `out` (`capacity` bytes): what comes next is written there from its start.
/// The bytes already in the old buffer are complete and the caller's; bits the stream has not
/// written out yet stay with it and come first in the new buffer.
void glance_deflate_move_output(glance_deflate *deflate, uint8_t *out, size_t capacity);

/// Frees the encoder (the bytes written stay in the caller's buffer). NULL is allowed.
void glance_deflate_free(glance_deflate *deflate);

#endif

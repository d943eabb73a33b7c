// Lossless WebP encoding through libwebp (Debian's libwebp-dev): the store's smaller thumbnails
// of pages and graphics.
#ifndef GLANCE_WEBP_H
#define GLANCE_WEBP_H

#include <stddef.h>
#include <stdint.h>

/// Encodes `width` x `height` pixels of `channels` (3: RGB, 4: RGBA) bytes each, rows `stride`
/// bytes apart, as lossless WebP at libwebp's lossless preset `level` (0 fastest to 9 smallest).
/// On success returns 0 and sets `*output` to a buffer of `*length` bytes that the caller frees
/// with glance_webp_free; on failure returns libwebp's error code (a VP8_ENC_ERROR_ value) or -1
/// for bad arguments.
int glance_webp_encode_lossless(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                                int level, uint8_t **output, size_t *length);

/// Frees a buffer made by glance_webp_encode_lossless.
void glance_webp_free(uint8_t *buffer);

#endif

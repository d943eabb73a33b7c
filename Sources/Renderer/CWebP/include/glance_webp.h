// WebP through libwebp (Debian's libwebp-dev): lossless and lossy encoding for the store's smaller
// thumbnails of pages and graphics, and decoding WebP documents (libwebpdemux for animations
// and ICC profiles).
#ifndef GLANCE_WEBP_H
#define GLANCE_WEBP_H

#include <stddef.h>
#include <stdint.h>

#include "glance_failure.h"

/// Encodes `width` x `height` pixels of `channels` (3: RGB, 4: RGBA) bytes each, rows `stride`
/// bytes apart, as lossless WebP at libwebp's lossless preset `level` (0 fastest to 9 smallest).
/// On success returns 0 and sets `*output` to a buffer of `*length` bytes that the caller frees
/// with glance_webp_free; on failure returns libwebp's error code (a VP8_ENC_ERROR_ value) or -1
/// for bad arguments.
int glance_webp_encode_lossless(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                                int level, uint8_t **output, size_t *length);

/// Encodes the pixels as glance_webp_encode_lossless does, but lossy (VP8, libwebp's default
/// preset) at `quality` (0 to 100) and `method` (0 fastest to 6 smallest); alpha, when there is
/// any, is kept losslessly. Returns as glance_webp_encode_lossless does.
int glance_webp_encode_lossy(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                             float quality, int method, uint8_t **output, size_t *length);

/// Frees a buffer made by glance_webp_encode_lossless or glance_webp_encode_lossy.
void glance_webp_free(uint8_t *buffer);

/// Reads a WebP file's header (`data`, `size` bytes): its size in pixels, whether it has alpha,
/// whether it is an animation and whether it is lossy (VP8; not lossless VP8L, not mixed).
/// Returns 0, or libwebp's VP8StatusCode.
int glance_webp_info(const uint8_t *data, size_t size, int *width, int *height, int *has_alpha, int *has_animation,
                     int *is_lossy);

/// Decodes a still WebP scaled to `width` x `height` (libwebp's own scaling, while decoding) into
/// `out`: `channels` 4 (RGBA) or 3 (RGB) bytes a pixel, rows `stride` bytes apart. Returns 0, or
/// libwebp's VP8StatusCode (-1 for bad arguments).
int glance_webp_decode_scaled(const uint8_t *data, size_t size, int width, int height, int channels, uint8_t *out,
                              size_t stride);

/// The first frame of an animated WebP composed on its canvas (libwebpdemux's animation
/// decoder), RGBA into `out` of `length` bytes (canvas width x height x 4). Returns 0, or a
/// negative number when the file cannot be decoded or `length` is not the canvas's.
int glance_webp_decode_first_frame(const uint8_t *data, size_t size, uint8_t *out, size_t length);

/// Where the file's ICC profile and EXIF payload lie in `data` (one parse of its chunks): each
/// chunk's payload offset and length, 0 and 0 for one it does not have (the EXIF payload is a
/// TIFF header and its directories; some writers put `Exif\0\0` first). Returns 0, or -1 when
/// the file cannot be parsed.
int glance_webp_metadata(const uint8_t *data, size_t size, size_t *icc_offset, size_t *icc_length,
                         size_t *exif_offset, size_t *exif_length);

/// What a libwebp status (a VP8StatusCode, as the decoding functions above return) means, in the
/// shims' one list, with a line for `reason`.
glance_failure glance_webp_failure(int status, char *reason, size_t capacity);

#endif

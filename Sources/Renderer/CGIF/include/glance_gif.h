// GIF through giflib (Debian's libgif-dev): the first frame of a GIF composed on its logical
// screen, as RGBA. giflib parses and decompresses; this shim only walks the records to the first
// image and paints its rows (interlaced or not) through its colour table.
#ifndef GLANCE_GIF_H
#define GLANCE_GIF_H

#include <stddef.h>
#include <stdint.h>

/// What glance_gif_decode_first_frame returns.
typedef enum {
    GLANCE_GIF_OK = 0,
    /// The canvas would exceed the pixel limit (its size is in the result).
    GLANCE_GIF_TOO_LARGE = 1,
    /// The data ended before the first frame did.
    GLANCE_GIF_TRUNCATED = 2,
    /// giflib refused the data (its error code is in the result).
    GLANCE_GIF_CORRUPT = 3,
    /// The file ended without an image.
    GLANCE_GIF_NO_IMAGE = 4,
    /// The canvas could not be allocated.
    GLANCE_GIF_NO_MEMORY = 5,
} glance_gif_status;

/// The first frame, composed.
typedef struct {
    /// The canvas: the logical screen, grown to hold the first frame when that reaches past it.
    int width, height;
    /// RGBA, width x height x 4 bytes, freed by glance_gif_frame_free (NULL unless GLANCE_GIF_OK).
    uint8_t *pixels;
    /// Whether any pixel of the canvas is transparent (a transparent colour, or a frame smaller
    /// than the screen).
    int has_transparency;
    /// Whether a second image follows the first (an animation).
    int is_animation;
    /// Whether the first frame is interlaced.
    int interlaced;
    /// giflib's error code (a D_GIF_ERR_ value) for GLANCE_GIF_CORRUPT and GLANCE_GIF_TRUNCATED.
    int error;
} glance_gif_frame;

/// Decodes the first frame of the GIF in `data` (`size` bytes) onto a transparent canvas, unless
/// the canvas would hold more than `max_pixels` pixels (checked from the headers, before any
/// allocation).
glance_gif_status glance_gif_decode_first_frame(const uint8_t *data, size_t size, long max_pixels,
                                                glance_gif_frame *frame);

/// Frees the canvas of a decoded frame (and forgets it).
void glance_gif_frame_free(glance_gif_frame *frame);

/// giflib's text for one of its error codes (static storage).
const char *glance_gif_error_text(int error);

#endif

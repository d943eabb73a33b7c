// GIF through giflib (Debian's libgif-dev): the first frame of a GIF composed on its logical
// screen, as RGBA. giflib parses and decompresses; this shim only walks the records to the first
// image and paints its rows (interlaced or not) through its colour table.
#ifndef GLANCE_GIF_H
#define GLANCE_GIF_H

#include <stddef.h>
#include <stdint.h>

#include "glance_failure.h"

/// The first frame, composed.
typedef struct {
    /// The canvas: the logical screen, grown to hold the first frame when that reaches past it.
    int width, height;
    /// RGBA, width x height x 4 bytes, freed by glance_gif_frame_free (NULL unless decoded).
    uint8_t *pixels;
    /// Whether any pixel of the canvas is transparent (a transparent colour, or a frame smaller
    /// than the screen).
    int has_transparency;
    /// Whether a second image follows the first (an animation).
    int is_animation;
    /// Whether the first frame is interlaced.
    int interlaced;
    /// giflib's error code (a D_GIF_ERR_ value) when it refused the data.
    int error;
} glance_gif_frame;

/// Decodes the first frame of the GIF in `data` (`size` bytes) onto a transparent canvas, unless
/// the canvas would hold more than `max_pixels` pixels (checked from the headers, before any
/// allocation). Returns 1; or 0, with why in `failure` and a line in `reason`: the data ended
/// early (GLANCE_FAILURE_TRUNCATED), giflib refused it or it holds no image (CORRUPT, giflib's
/// words), the canvas is past the limit (TOO_LARGE, `WIDTHxHEIGHT`) or could not be allocated
/// (OUT_OF_MEMORY).
int glance_gif_decode_first_frame(const uint8_t *data, size_t size, long max_pixels, glance_gif_frame *frame,
                                  glance_failure *failure, char *reason, size_t capacity);

/// Frees the canvas of a decoded frame (and forgets it).
void glance_gif_frame_free(glance_gif_frame *frame);

#endif

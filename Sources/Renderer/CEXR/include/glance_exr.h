// OpenEXR through OpenEXRCore (Debian's libopenexr-dev, its C library), loaded the first time such
// a file comes. The file is read through its descriptor with pread, one chunk of scanlines at a
// time, so a large picture never exists whole in memory.
#ifndef GLANCE_EXR_H
#define GLANCE_EXR_H

#include "glance_failure.h"

#include <stddef.h>
#include <stdint.h>

/// Loads OpenEXRCore (`libOpenEXRCore-3_1.so.30`) once per process; later calls return the first
/// call's result. Returns 1 when ready, else 0 with the reason in `reason`.
int glance_exr_load(char *reason, size_t capacity);

/// An open OpenEXR file (opaque): OpenEXRCore's context, the channels chosen and their buffers.
typedef struct glance_exr glance_exr;

/// What the first part's header says, before a pixel is decoded.
typedef struct {
    /// The data window's size.
    int width, height;
    /// Whether an alpha channel is drawn, and whether the picture is one luminance channel (`Y`).
    int has_alpha, is_gray;
    /// Scanlines a chunk (or a row of tiles) holds: what glance_exr_read_chunk gives at a time.
    int rows_per_chunk;
    /// Whether the chromaticities attribute names other primaries than sRGB's (brought to sRGB's).
    int has_primaries;
    /// The layer drawn when the file holds no plain `R`, `G`, `B` (a multi-layer render), or "".
    char layer[64];
} glance_exr_info;

/// Opens the OpenEXR file on descriptor `fd` (not taken over), `size` bytes long, and chooses its
/// channels: `R`, `G`, `B` (and `A`), else `Y` (and `A`), else the beauty layer (`Combined`,
/// `beauty` or `RGBA`) or the first layer that has all of `layer.R`, `layer.G` and `layer.B`. Scanlines, or tiles (the full-resolution level of a
/// mipmapped file); deep files are refused.
/// Returns NULL with the reason and kind of failure when it cannot be drawn.
glance_exr *glance_exr_open(int fd, uint64_t size, int max_side, glance_exr_info *info, char *reason,
                            size_t capacity, glance_failure *failure);

/// Decodes the chunk (or row of tiles) that holds row `row` (from the data window's top; a
/// multiple of the info's `rows_per_chunk`) into `out` as 8-bit sRGB, RGB or RGBA (3 or 4 bytes a pixel), straight
/// alpha: the samples are linear light (what OpenEXR holds), brought to sRGB's primaries, clipped
/// at 1 and encoded by the sRGB curve. Returns the rows written, or 0 with the reason.
int glance_exr_read_chunk(glance_exr *file, int row, uint8_t *out, char *reason, size_t capacity,
                          glance_failure *failure);

void glance_exr_close(glance_exr *file);

#endif

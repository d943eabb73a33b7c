// HEIC/HEIF and AVIF through libheif (Debian's libheif-dev, with libde265 for HEVC and dav1d for
// AV1), loaded the first time such a file comes: libheif brings libde265, dav1d, libaom and x265
// into a process (about 12 libraries), which a batch without one should not map.
#ifndef GLANCE_HEIF_H
#define GLANCE_HEIF_H

#include "glance_failure.h"

#include <stddef.h>
#include <stdint.h>

/// Loads libheif (`libheif.so.1`) once per process and initialises it; later calls return the
/// first call's result. Returns 1 when ready, else 0 with the reason in `reason`.
int glance_heif_load(char *reason, size_t capacity);

/// An open HEIF file (opaque): its context, its primary image and, once decoded, its pixels.
typedef struct glance_heif glance_heif;

/// What the primary image says of itself, before decoding.
typedef struct {
    /// The displayed size: after the file's rotation, mirroring and crop.
    int width, height;
    /// Whether it has an alpha plane.
    int has_alpha;
    /// The largest thumbnail image the file holds (0 x 0: none), displayed size.
    int thumbnail_width, thumbnail_height;
} glance_heif_info;

/// Why glance_heif_open failed.

/// Opens the HEIF of `size` bytes on descriptor `fd` (read once with pread into a buffer the
/// handle owns and libheif parses in place; the descriptor stays the caller's). Returns NULL with
/// the reason in `reason` and what failed in `*failure`. Only after glance_heif_load.
glance_heif *glance_heif_open(int fd, size_t size, char *reason, size_t capacity, glance_failure *failure);

/// The primary image's description.
void glance_heif_describe(glance_heif *heif, glance_heif_info *info);

/// Decodes the primary image, or with `use_thumbnail` its largest thumbnail, to 8-bit RGB (and
/// alpha) planes with the file's transformations applied. On success returns 1 with its size
/// and its channels (3, or 4 with alpha); else 0 with libheif's reason in `reason`.
///
/// Planes, not libheif's interleaved RGB: libheif interleaves with a plain loop that cost a 12-
/// megapixel AVIF more time than dav1d took to decode it (8 photos: 0.94 s decoded interleaved,
/// 0.65 s as planes); glance_heif_read_rows interleaves a band at a time instead.
int glance_heif_decode(glance_heif *heif, int use_thumbnail, int *width, int *height, int *channels, char *reason,
                       size_t capacity);

/// Interleaves `count` decoded rows from `first_row` into `out` (width x count x channels bytes,
/// RGB or RGBA). Only after glance_heif_decode returned 1.
void glance_heif_read_rows(glance_heif *heif, int first_row, int count, uint8_t *out);

/// The primary image's ICC profile: returns its length (copied into `out` when it fits
/// `capacity`), or 0 when it has none.
size_t glance_heif_icc_profile(glance_heif *heif, uint8_t *out, size_t capacity);

/// The primary image's nclx colour description: returns 1 with its colour primaries code (ITU-T
/// H.273: 1 BT.709/sRGB, 2 unspecified, 9 BT.2020, 12 Display P3, ...) in `*primaries`, its
/// transfer code in `*transfer` and the primaries' chromaticities (white, red, green, blue x, y)
/// in `chromaticities`; 0 when it has none.
int glance_heif_nclx(glance_heif *heif, int *primaries, int *transfer, double chromaticities[8]);

/// Frees the handle, its decoded pixels and its copy of the data.
void glance_heif_close(glance_heif *heif);

#endif

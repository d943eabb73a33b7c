// TIFF through libtiff (Debian's libtiff-dev), loaded the first time a TIFF comes: libtiff brings
// zstd, lzma, Lerc, JBIG and libstdc++ into a process, which a batch without a TIFF should not
// map. The file is read through its descriptor with pread (no mmap, no seeking of a shared
// offset), one band of rows at a time, so a large TIFF never exists whole in memory.
#ifndef GLANCE_TIFF_H
#define GLANCE_TIFF_H

#include <stddef.h>
#include <stdint.h>

/// Loads libtiff (`libtiff.so.6`) once per process; later calls return the first call's
/// result. Returns 1 when ready, else 0 with the loader's reason in `reason`.
int glance_tiff_load(char *reason, size_t capacity);

/// An open TIFF (opaque): libtiff's handle, its options and the first error it reported.
typedef struct glance_tiff glance_tiff;

/// What a page of a TIFF says of itself.
typedef struct {
    /// The stored size in pixels (before the orientation tag is applied).
    uint32_t width, height;
    /// The Orientation tag (1-8; 1 when absent or out of range).
    int orientation;
    /// How many pages (image file directories) the file holds.
    int pages;
    /// Whether the page has an alpha channel (associated or not).
    int has_alpha;
    /// Whether its samples are CMYK, and whether they are gray (one colour sample).
    int is_cmyk, is_gray;
    /// Whether it is compressed with JPEG (a photo, lossily).
    int is_jpeg;
    /// Rows to read at a time: a strip's or a tile's height, so that no strip is decoded twice.
    uint32_t band_rows;
    /// Bytes a pixel of the rows glance_tiff_read_rows gives: 3 (RGB, read as stored: 8-bit
    /// contiguous RGB without alpha) or 4 (RGBA: as stored for 8-bit RGB with unassociated
    /// alpha, else through libtiff's RGBA reader, which takes every other layout).
    int channels;
    /// Whether its samples are floating-point (16, 32 or 64 bits): linear light, on the primaries
    /// of the page's ICC profile (sRGB's without one); the rows come as 8-bit sRGB already, so no
    /// profile is left to apply.
    int is_float;
    /// Whether such a page's ICC profile named no primaries (sRGB's were then taken).
    int float_profile_refused;
} glance_tiff_info;

/// Opens the TIFF on descriptor `fd` (not taken over; read with pread), `size` bytes long.
/// libtiff may allocate at most `max_allocation` bytes at once. Returns NULL with the reason in
/// `reason` when it is not a TIFF libtiff can read. Only after glance_tiff_load returned 1.
glance_tiff *glance_tiff_open(int fd, uint64_t size, size_t max_allocation, char *reason, size_t capacity);

/// Reads the description of page `page` (from 0; `info->pages` is set first, so a page past the
/// last is 0 with no error) into `info`; returns 1, or 0 when the page cannot be read as an
/// image (the reason is then glance_tiff_error's).
int glance_tiff_describe(glance_tiff *tiff, int page, glance_tiff_info *info);

/// Each page's size in points, in order, into `widths` and `heights` (at most `capacity` pages):
/// from its pixels and resolution (72 points an inch; a pixel a point when it names none), turned
/// as its orientation turns it. Walks the directories from the first: call before
/// glance_tiff_describe, which goes to the page it describes. Returns how many pages it read
/// (fewer than the file's when one cannot be read).
int glance_tiff_page_sizes(glance_tiff *tiff, double *widths, double *heights, int capacity);

/// The described page's ICC profile: its bytes (owned by the handle) and length, or NULL.
const uint8_t *glance_tiff_icc_profile(glance_tiff *tiff, uint32_t *length);

/// Reads `count` rows from `first_row` (a multiple of the band's rows), in stored order top to
/// bottom, as straight (not premultiplied) RGB or RGBA (the info's `channels`) into `out` (width x
/// count x channels bytes). Returns 1, or 0 on a decoding error.
int glance_tiff_read_rows(glance_tiff *tiff, uint32_t first_row, uint32_t count, uint8_t *out);

/// The first error libtiff reported for this handle, or "" (owned by the handle).
const char *glance_tiff_error(const glance_tiff *tiff);

/// Closes the handle (not the descriptor).
void glance_tiff_close(glance_tiff *tiff);

#endif

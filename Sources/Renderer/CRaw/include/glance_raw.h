// Camera raw photos through LibRaw (Debian's libraw-dev, its thread-safe libraw_r), loaded the
// first time a raw file comes: LibRaw brings OpenMP and its own JPEG and colour code into a
// process, which a batch without raw photos should not map.
//
// A raw file is mapped read-only from the caller's descriptor (never opened by name): LibRaw
// reads it from memory, and the pages it never touches (the sensor data, when the embedded
// preview serves) are never read from disk.
#ifndef GLANCE_RAW_H
#define GLANCE_RAW_H

#include "glance_failure.h"

#include <stddef.h>
#include <stdint.h>

/// Loads LibRaw (`libraw_r.so.20`) once per process; later calls return the first call's result.
/// Returns 1 when ready, else 0 with the reason in `reason`.
int glance_raw_load(char *reason, size_t capacity);

/// An open raw file (opaque): LibRaw's state and the mapping it reads.
typedef struct glance_raw glance_raw;

/// What a raw file's header says, before any pixel is decoded.
typedef struct {
    /// The developed image's size, as stored (before `flip`).
    int width, height;
    /// The sensor's size, what unpacking holds in memory.
    int raw_width, raw_height;
    /// LibRaw's turn for display: 0 none, 3 a half turn, 5 a quarter turn counter-clockwise,
    /// 6 a quarter turn clockwise.
    int flip;
    /// The largest embedded preview: 1 a JPEG (as far as the header tells: it is checked when
    /// read), 2 an RGB bitmap, 0 none.
    int preview_format;
    int preview_width, preview_height;
    /// The camera's maker and model as LibRaw normalises them ("Canon", "EOS 5D Mark IV").
    char make[64];
    char model[64];
    /// When the photo was taken, as the camera's clock said: year..second, 0 when unknown.
    int year, month, day, hour, minute, second;
} glance_raw_info;

/// Why glance_raw_open failed.

/// Opens the raw file of `size` bytes on descriptor `fd` (mapped read-only; the descriptor stays
/// the caller's) and reads its header. LibRaw allocates at most `max_memory_mb` MiB for the
/// sensor data. Returns NULL with the reason in `reason` and what failed in `*failure`. Only after
/// glance_raw_load.
glance_raw *glance_raw_open(int fd, size_t size, unsigned max_memory_mb, char *reason, size_t capacity,
                            glance_failure *failure);

/// The header's description.
void glance_raw_describe(glance_raw *raw, glance_raw_info *info);

/// The embedded JPEG preview: returns 1 with its bytes (owned by the handle, valid until it is
/// closed) in `*bytes` and `*length`; 0 with the reason in `reason` when there is none or it is
/// not a JPEG (`*failure` GLANCE_FAILURE_CORRUPT), or it runs past the end of the file
/// (GLANCE_FAILURE_TRUNCATED).
int glance_raw_preview(glance_raw *raw, const uint8_t **bytes, size_t *length, char *reason, size_t capacity,
                       glance_failure *failure);

/// Develops the sensor data: the camera's white balance, sRGB, 8 bits, bilinear interpolation,
/// and with `half_size` one pixel per 2x2 block of the sensor (no interpolation at all). Not
/// turned: `flip` is the caller's to apply. Returns 1 with the image's size, else 0 with
/// LibRaw's reason.
int glance_raw_develop(glance_raw *raw, int half_size, int *width, int *height, char *reason, size_t capacity);

/// Copies `count` developed RGB rows from `first_row` into `out` (width x count x 3 bytes). Only
/// after glance_raw_develop returned 1.
void glance_raw_read_rows(glance_raw *raw, int first_row, int count, uint8_t *out);

/// Frees LibRaw's state, the developed image and the mapping.
void glance_raw_close(glance_raw *raw);

#endif

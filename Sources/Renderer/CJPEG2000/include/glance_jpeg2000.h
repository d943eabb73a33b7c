// JPEG 2000 (a JP2 file or a bare codestream) through OpenJPEG (Debian's libopenjp2-7-dev),
// loaded the first time such a picture comes.
#ifndef GLANCE_JPEG2000_H
#define GLANCE_JPEG2000_H

#include "glance_failure.h"

#include <stddef.h>
#include <stdint.h>

/// Loads OpenJPEG (`libopenjp2.so.7`) once per process; later calls return the first call's
/// result. Returns 1 when ready, else 0 with the reason in `reason`.
int glance_jpeg2000_load(char *reason, size_t capacity);

/// An open JPEG 2000 picture (opaque): OpenJPEG's codec over the picture's bytes (copied) and,
/// once decoded, its components.
typedef struct glance_jpeg2000 glance_jpeg2000;

/// Opens the picture of `size` bytes at `data` and reads its header: its size in `*width` and
/// `*height`, its components (1 or 2: gray) in `*components`, and how many times it can be
/// halved as it is decoded in `*reductions`. Returns NULL with OpenJPEG's reason and what failed.
glance_jpeg2000 *glance_jpeg2000_open(const uint8_t *data, size_t size, int *width, int *height, int *components,
                                      int *reductions, char *reason, size_t capacity, glance_failure *failure);

/// Decodes the picture halved `reduce` times (OpenJPEG skips the finer resolution levels: the
/// work and memory of a quarter of the pixels a halving). Returns 1 with the decoded size and
/// the channels given (3, or 4 with alpha); else 0 with the reason and what failed. Gray is
/// given as RGB; sYCC is converted to RGB; components subsampled are repeated.
int glance_jpeg2000_decode(glance_jpeg2000 *picture, int reduce, int *width, int *height, int *channels, int *is_gray,
                           char *reason, size_t capacity, glance_failure *failure);

/// Writes `count` decoded rows from `first` into `out` (width x count x channels bytes, 8 bits a
/// sample). Only after glance_jpeg2000_decode returned 1.
void glance_jpeg2000_read_rows(glance_jpeg2000 *picture, int first, int count, uint8_t *out);

/// Frees the codec, the bytes and the components.
void glance_jpeg2000_close(glance_jpeg2000 *picture);

#endif

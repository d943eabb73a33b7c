// C shim for libjpeg-turbo.
//
// libjpeg reports fatal errors by calling error_exit, which must not return; the only way out is
// longjmp. Swift cannot use setjmp, so every libjpeg call that can fail is made here, inside a
// function that sets the jump point first and turns a longjmp into a status code plus a message.
#ifndef GLANCE_JPEG_H
#define GLANCE_JPEG_H

#include <stddef.h>
#include <stdint.h>

/// Result of a shim call: 0 on success, otherwise the failure and its message.
typedef enum {
    GLANCE_JPEG_OK = 0,
    GLANCE_JPEG_FAILED = 1,       ///< libjpeg raised a fatal error; see the message and code
    GLANCE_JPEG_IO = 2,           ///< the file could not be opened (errno is in `code`)
} glance_jpeg_status;

/// The kind of a failure, so that callers need not know libjpeg's message codes.
typedef enum {
    GLANCE_JPEG_CORRUPT = 0,      ///< damaged or invalid data
    GLANCE_JPEG_CANNOT_OPEN = 1,  ///< fopen failed; `code` is errno
    GLANCE_JPEG_NEEDS_MEMORY = 2, ///< over the working-memory cap (or out of memory)
    GLANCE_JPEG_UNSUPPORTED = 3,  ///< a coding process this build cannot decode (lossless, ...)
    GLANCE_JPEG_TOO_BIG = 4,      ///< dimensions beyond what libjpeg accepts
} glance_jpeg_failure_kind;

/// What went wrong, copied out of libjpeg before its state is torn down.
typedef struct {
    int kind;                     ///< glance_jpeg_failure_kind
    int code;                     ///< libjpeg message code (J_MESSAGE_CODE) or errno
    int hit_end_of_data;          ///< the data ran out before the image did (a truncated file)
    char message[200];
} glance_jpeg_error;

/// The header of a JPEG, read without decoding any pixel.
typedef struct {
    int width, height;
    int progressive;
    const uint8_t *exif;          ///< APP1 "Exif" payload, or NULL; valid until the decoder is freed
    size_t exif_length;
    int components;               ///< 1 gray, 3 YCbCr or RGB, 4 CMYK or YCCK
    int cmyk_inverted;            ///< CMYK stored inverted, as Adobe writes it (0 = full ink)
} glance_jpeg_header;

typedef struct glance_jpeg_decoder glance_jpeg_decoder;

/// Reads the header of the file open at `descriptor` (from its start; the descriptor stays the
/// caller's). Returns NULL and fills `error` on failure.
glance_jpeg_decoder *glance_jpeg_open(int descriptor, glance_jpeg_header *header,
                                      glance_jpeg_error *error);

/// The embedded ICC profile (APP2 `ICC_PROFILE` segments, reassembled in order), or 0 with
/// `*data` NULL when there is none or its segments do not fit together. On 1, `*data` is a
/// malloc'd copy the caller frees with free().
int glance_jpeg_icc_profile(glance_jpeg_decoder *decoder, uint8_t **data, size_t *length);

/// Starts decompression at scale 1/`scale_denom` (1, 2, 4 or 8), producing RGB (3 bytes a
/// pixel) whatever the file's colour space, within `max_memory` bytes of libjpeg working memory;
/// with `raw_cmyk`, a CMYK or YCCK file gives its CMYK samples instead (4 bytes a pixel, inverted
/// when the header says so), for a colour transform through its own profile.
/// On success `out_width`/`out_height` hold the size of the rows that `read_rows` returns.
int glance_jpeg_start(glance_jpeg_decoder *decoder, int scale_denom, long max_memory, int raw_cmyk,
                      int *out_width, int *out_height, glance_jpeg_error *error);

/// Reads up to `max_rows` RGB rows into `rows` (`stride` bytes apart); `*rows_read` says how many.
int glance_jpeg_read_rows(glance_jpeg_decoder *decoder, uint8_t *rows, size_t stride,
                          int max_rows, int *rows_read, glance_jpeg_error *error);

/// Warnings libjpeg gave so far (corrupt data it recovered from, premature end of data).
long glance_jpeg_warning_count(const glance_jpeg_decoder *decoder);
/// The output row at which the data first ran out, or -1 if it never did.
long glance_jpeg_end_of_data_row(const glance_jpeg_decoder *decoder);

/// Frees the decoder and closes its file.
void glance_jpeg_free(glance_jpeg_decoder *decoder);

/// Encodes `height` rows of RGB pixels as a baseline JPEG into `out` (`capacity` bytes, at least
/// `glance_jpeg_encoded_bound`), its luma table at `quality` and its chroma table at
/// `chroma_quality` (libjpeg's 1-100 scale), with Huffman tables made for this image;
/// `*out_length` is the JPEG's length. With `own_statistics`, the symbol counts those tables are
/// made from are gathered by Glance's code instead of libjpeg's, in half the time, to the same
/// bytes (0 is for the tests that check that).
int glance_jpeg_encode(const uint8_t *pixels, int width, int height, size_t stride,
                       int quality, int chroma_quality, int own_statistics, uint8_t *out, size_t capacity,
                       size_t *out_length, glance_jpeg_error *error);

/// A size that a JPEG of this image at quality <= 95 never exceeds.
size_t glance_jpeg_encoded_bound(int width, int height);

#endif

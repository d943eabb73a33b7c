// C shim for libpng, and Glance's own PNG writer.
//
// libpng reports fatal errors by longjmp to the jump buffer of its read struct; Swift cannot use
// setjmp, so every libpng call that can fail is made here, inside a function that sets the jump
// point and turns a longjmp into a status code plus the message libpng gave. Thumbnails are
// written without libpng, by glance_png_writer.c.
#ifndef GLANCE_PNG_H
#define GLANCE_PNG_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    GLANCE_PNG_OK = 0,
    GLANCE_PNG_FAILED = 1,        ///< libpng raised an error; see the message
    GLANCE_PNG_IO = 2,            ///< the file could not be opened (errno is in `code`)
    GLANCE_PNG_NOT_GRAY = 3,      ///< a pixel has colour: `glance_png_encode_sixteen_grays` wrote nothing
} glance_png_status;

/// What went wrong, copied out of libpng.
typedef struct {
    int code;                     ///< errno for GLANCE_PNG_IO
    int hit_end_of_data;          ///< the file ended before the image did
    char message[200];
} glance_png_error;

/// The header of a PNG (IHDR and the chunks before the image data).
typedef struct {
    uint32_t width, height;
    int bit_depth;
    int color_type;               ///< PNG_COLOR_TYPE_*
    int interlaced;               ///< Adam7
    int has_alpha;                ///< an alpha channel or a tRNS chunk: the output is RGBA
} glance_png_header;

typedef struct glance_png_decoder glance_png_decoder;

/// Reads the file open at `descriptor` (from its start; the descriptor stays the caller's),
/// checks the signature and reads the header chunks. NULL and `error` on failure.
glance_png_decoder *glance_png_open(int descriptor, glance_png_header *header, glance_png_error *error);

/// The colour chunks read before the image data, for conversion to sRGB.
typedef struct {
    int has_srgb;                 ///< an sRGB chunk: the samples are sRGB already
    const uint8_t *icc;           ///< the iCCP profile (inflated), or NULL; valid until the decoder is freed
    size_t icc_length;
    int has_gamma;                ///< a gAMA chunk
    double gamma;                 ///< its file gamma (0.45455 for the usual 1/2.2)
    int has_chromaticities;       ///< a cHRM chunk
    double chromaticities[8];     ///< white x, y, red x, y, green x, y, blue x, y
} glance_png_colour;

/// Fills `colour` from the chunks `glance_png_open` read.
void glance_png_colour_chunks(glance_png_decoder *decoder, glance_png_colour *colour);

/// Sets the transforms that turn any PNG into 8-bit RGB (3 bytes a pixel) or, when the header
/// says `has_alpha`, 8-bit RGBA with straight alpha. `*channels` is 3 or 4.
int glance_png_start(glance_png_decoder *decoder, int *channels, glance_png_error *error);

/// Reads the next `count` rows of a non-interlaced image into `rows` (`stride` bytes apart).
int glance_png_read_rows(glance_png_decoder *decoder, uint8_t *rows, size_t stride, int count,
                         glance_png_error *error);

/// Reads a whole interlaced image (all Adam7 passes) into `image` (`stride` bytes a row).
int glance_png_read_image(glance_png_decoder *decoder, uint8_t *image, size_t stride,
                          glance_png_error *error);

/// Frees the decoder and closes its file.
void glance_png_free(glance_png_decoder *decoder);

/// The PNG filter type every row is written with, for colour output and for gray output (an RGB
/// image whose pixels are all gray is written as gray): 0 None, 1 Sub, 2 Up.
typedef struct {
    int colour;
    int gray;
} glance_png_filters;

/// Encodes RGB (`channels` 3) or RGBA (4) rows as an 8-bit PNG tagged sRGB into `out` (without
/// libpng: see glance_png_writer.c), which holds
/// `capacity` bytes (at least `glance_png_encoded_bound`); `*out_length` is the PNG's length.
/// Writing into the caller's buffer saves a copy of every thumbnail (and its peak memory).
int glance_png_encode(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                      glance_png_filters filters, uint8_t *out, size_t capacity,
                      size_t *out_length, glance_png_error *error);

/// Sums of the channels of a sample of an image's pixels (every fourth pixel of every fourth row,
/// from the first), for its average colour.
typedef struct {
    uint64_t red, green, blue, count;
} glance_pixel_sums;

/// Encodes pixels held as native-endian 32-bit words 0x00RRGGBB (cairo's RGB24; `stride` bytes a
/// row) as an 8-bit PNG tagged sRGB, gray when every pixel is, RGB otherwise: a page drawn by
/// cairo goes to PNG without first becoming an RGB image. `capacity` is at least
/// `glance_png_encoded_bound(width, height, 3)`. `*sums` (if not NULL) gets the image's sample
/// sums, taken while its pixels are read anyway.
int glance_png_encode_words(const uint8_t *pixels, int width, int height, size_t stride, glance_png_filters filters,
                            uint8_t *out, size_t capacity, size_t *out_length, glance_pixel_sums *sums,
                            glance_png_error *error);

/// Encodes 8-bit gray rows (`stride` bytes apart) as a gray PNG tagged sRGB, the same bytes
/// `glance_png_encode_words` writes for a page of words whose pixels are those grays; `*sums` (if
/// not NULL) gets the same sample sums. `capacity` is at least
/// `glance_png_encoded_bound(width, height, 1)`.
int glance_png_encode_gray(const uint8_t *pixels, int width, int height, size_t stride, glance_png_filters filters,
                           uint8_t *out, size_t capacity, size_t *out_length, glance_pixel_sums *sums,
                           glance_png_error *error);

/// Encodes gray pixels (`channels` 1, or 3 whose samples are equal) in sixteen levels of gray: a
/// 4-bit gray PNG tagged sRGB, rows unfiltered, each sample the level nearest its 8-bit value.
/// GLANCE_PNG_NOT_GRAY, with nothing written, when a pixel has colour. `capacity` is at least
/// `glance_png_encoded_bound(width, height, 1)`.
int glance_png_encode_sixteen_grays(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                                    uint8_t *out, size_t capacity, size_t *out_length, glance_png_error *error);

/// The most bytes `glance_png_encode` can write for an image of this size.
size_t glance_png_encoded_bound(int width, int height, int channels);

/// A PNG written row by row, as a streaming scaler makes them: the thumbnail never exists whole.
typedef struct glance_png_writer glance_png_writer;

/// Starts an 8-bit PNG of RGB (`channels` 3) or RGBA (4) rows, tagged sRGB, written into `out`
/// (`capacity` at least `glance_png_encoded_bound`). With `gray_out` (RGB only; capacity at least
/// the bound for one channel), a gray PNG is written into it as well for as long as every row is
/// gray, as `glance_png_encode` writes gray images. NULL on failure.
glance_png_writer *glance_png_writer_create(int width, int height, int channels, glance_png_filters filters,
                                            uint8_t *out, size_t capacity, uint8_t *gray_out, size_t gray_capacity,
                                            glance_png_error *error);

/// Where a PNG's leading bytes go while it is still being written: `count` bytes of whole
/// chunks, in order; return 0 to stop (the PNG then fails).
typedef int (*glance_png_sink)(void *context, const uint8_t *bytes, size_t count);

/// Sends the PNG's bytes to `sink` as it goes, so that the writer never holds all of them: once
/// the colour PNG's open IDAT chunk holds at least `idat_bytes` (and no gray PNG is still a
/// candidate), the chunk is closed and everything written so far is handed over; a new IDAT
/// then starts at the beginning of `out`. `glance_png_writer_finish` leaves the bytes after the
/// last hand-over in `out`. Call before the first row.
void glance_png_writer_send_to(glance_png_writer *writer, glance_png_sink sink, void *context, size_t idat_bytes);

/// Writes the next row (`width * channels` bytes).
int glance_png_writer_write_row(glance_png_writer *writer, const uint8_t *row, glance_png_error *error);

/// Ends the PNG after the last row: `*out_length` is its length (with a sink, of the bytes after
/// those it was given), `*is_gray` 1 when every row was gray and the gray PNG (in `gray_out`,
/// whole: it is never sent in pieces) is the one to use, 0 for the one in `out`.
int glance_png_writer_finish(glance_png_writer *writer, size_t *out_length, int *is_gray, glance_png_error *error);

void glance_png_writer_free(glance_png_writer *writer);

#endif

// The PNG writer: thumbnails are written as 8-bit gray, RGB or RGBA PNGs tagged sRGB, their image
// compressed by glance_deflate straight into the caller's buffer: in one IDAT chunk, or, with a
// sink, in IDAT chunks closed and handed over as they fill (glance_png_writer_send_to).
//
// Why not libpng: writing a PNG is a few chunks around a zlib stream, and the stream is where the
// time goes. zlib's level 1 took twice as long as glance_deflate for about the same bytes (see
// glance_deflate.c), and libpng added a copy of every row on top.
#include "glance_png.h"
#include "glance_deflate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// --- the output buffer ----------------------------------------------------------------------

/// A PNG being written into the caller's buffer.
typedef struct {
    uint8_t *out;
    size_t capacity, length;
    size_t idat_at;              // where the IDAT chunk starts (its length field)
    glance_deflate *deflate;     // the IDAT's zlib stream, written after the chunk header
    int filter;                  // PNG filter type of every row: 0 None, 1 Sub, 2 Up
    int pixel_bytes;             // 1 gray, 3 RGB, 4 RGBA
    int bit_depth;               // 8, or 4 for sixteen levels of gray (two pixels a byte)
    size_t row_bytes;
    uint8_t *filtered;           // filter type byte + the filtered row
    uint8_t *previous;           // the row before, for Up (zeros before the first)
    int failed;
    glance_png_sink sink;        // where closed IDAT chunks go, with everything before them
    void *sink_context;
    size_t idat_bytes;           // how full an IDAT gets before it is closed and sent
    int sink_refused;
} glance_png_stream;

static void put_u32(uint8_t *p, uint32_t value) {
    p[0] = (uint8_t)(value >> 24);
    p[1] = (uint8_t)(value >> 16);
    p[2] = (uint8_t)(value >> 8);
    p[3] = (uint8_t)value;
}

static void put_bytes(glance_png_stream *stream, const void *bytes, size_t count) {
    if (stream->length + count > stream->capacity) {
        stream->failed = 1;
        return;
    }
    memcpy(stream->out + stream->length, bytes, count);
    stream->length += count;
}

/// Writes a whole chunk: length, type, data, CRC of type and data.
static void put_chunk(glance_png_stream *stream, const char type[4], const uint8_t *data, uint32_t count) {
    uint8_t header[8];
    put_u32(header, count);
    memcpy(header + 4, type, 4);
    put_bytes(stream, header, 8);
    if (count > 0) put_bytes(stream, data, count);
    uint32_t crc = (uint32_t)crc32_z(0, (const uint8_t *)type, 4);
    if (count > 0) crc = (uint32_t)crc32_z(crc, data, count);
    uint8_t trailer[4];
    put_u32(trailer, crc);
    put_bytes(stream, trailer, 4);
}

/// Frees what the stream allocated; the bytes written stay in the caller's buffer.
static void stream_end(glance_png_stream *stream) {
    glance_deflate_free(stream->deflate);
    free(stream->filtered);
    free(stream->previous);
    stream->deflate = NULL;
    stream->filtered = NULL;
    stream->previous = NULL;
}

/// Writes the signature, IHDR and sRGB and opens the IDAT chunk of an image of `bit_depth` bits a
/// sample (8; or 4, gray only); 0 when out of memory or room.
static int stream_start_at_depth(glance_png_stream *stream, uint8_t *out, size_t capacity, int width, int height,
                                 int pixel_bytes, int bit_depth, int filter) {
    memset(stream, 0, sizeof *stream);
    stream->out = out;
    stream->capacity = capacity;
    stream->filter = filter;
    stream->pixel_bytes = pixel_bytes;
    stream->bit_depth = bit_depth;
    stream->row_bytes = bit_depth == 4 ? ((size_t)width + 1) / 2 : (size_t)width * (size_t)pixel_bytes;
    stream->filtered = malloc(stream->row_bytes + 1);
    stream->previous = filter == 2 ? calloc(stream->row_bytes, 1) : NULL;
    if (stream->filtered == NULL || (filter == 2 && stream->previous == NULL)) return 0;

    static const uint8_t signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    put_bytes(stream, signature, 8);
    uint8_t header[13];
    put_u32(header, (uint32_t)width);
    put_u32(header + 4, (uint32_t)height);
    header[8] = (uint8_t)bit_depth;   // bits a sample
    header[9] = pixel_bytes == 1 ? 0 : pixel_bytes == 3 ? 2 : 6;   // gray, RGB, RGBA
    header[10] = 0;  // deflate
    header[11] = 0;  // adaptive filtering (one filter type a row)
    header[12] = 0;  // not interlaced
    put_chunk(stream, "IHDR", header, 13);
    // Every thumbnail is sRGB (sources with a profile are converted): say so, in 13 bytes.
    const uint8_t perceptual = 0;
    put_chunk(stream, "sRGB", &perceptual, 1);

    stream->idat_at = stream->length;
    // Room for the IDAT's length and type now, and for its CRC and the IEND chunk after it.
    if (stream->failed || stream->length + 8 + 4 + 12 > capacity) return 0;
    stream->length += 8;
    stream->deflate = glance_deflate_create(out + stream->length, capacity - stream->length - 4 - 12);
    return stream->deflate != NULL;
}

/// Writes the signature, IHDR and sRGB and opens the IDAT chunk; 0 when out of memory or room.
static int stream_start(glance_png_stream *stream, uint8_t *out, size_t capacity, int width, int height,
                        int pixel_bytes, int filter) {
    return stream_start_at_depth(stream, out, capacity, width, height, pixel_bytes, 8, filter);
}

/// Filters and compresses one row of `row_bytes`.
static void stream_write_row(glance_png_stream *stream, const uint8_t *row) {
    uint8_t *filtered = stream->filtered;
    size_t count = stream->row_bytes;
    filtered[0] = (uint8_t)stream->filter;
    switch (stream->filter) {
    case 1: {
        size_t step = (size_t)stream->pixel_bytes;
        for (size_t x = 0; x < count && x < step; x++) filtered[1 + x] = row[x];
        for (size_t x = step; x < count; x++) filtered[1 + x] = (uint8_t)(row[x] - row[x - step]);
        break;
    }
    case 2:
        for (size_t x = 0; x < count; x++) filtered[1 + x] = (uint8_t)(row[x] - stream->previous[x]);
        memcpy(stream->previous, row, count);
        break;
    default:
        memcpy(filtered + 1, row, count);
    }
    glance_deflate_write(stream->deflate, filtered, count + 1);
}

/// Closes the open IDAT chunk, whose `compressed` bytes of zlib stream follow its header:
/// writes its length and type, and its CRC after the data.
static void close_idat(glance_png_stream *stream, size_t compressed) {
    uint8_t *idat = stream->out + stream->idat_at;
    put_u32(idat, (uint32_t)compressed);
    memcpy(idat + 4, "IDAT", 4);
    stream->length = stream->idat_at + 8 + compressed;
    uint8_t crc[4];
    put_u32(crc, (uint32_t)crc32_z(0, idat + 4, compressed + 4));
    put_bytes(stream, crc, 4);
}

/// With a sink, once the open IDAT holds `idat_bytes`: closes it (length, type, CRC), hands
/// everything written so far to the sink and opens the next IDAT at the start of the buffer.
/// The zlib stream runs on across IDAT chunks, as PNG allows.
static void stream_send_if_full(glance_png_stream *stream) {
    if (stream->sink == NULL || stream->failed) return;
    size_t compressed = glance_deflate_output_length(stream->deflate);
    if (compressed < stream->idat_bytes) return;
    close_idat(stream, compressed);
    if (stream->failed) return;
    if (!stream->sink(stream->sink_context, stream->out, stream->length)) {
        stream->failed = 1;
        stream->sink_refused = 1;
        return;
    }
    stream->idat_at = 0;
    stream->length = 8;
    glance_deflate_move_output(stream->deflate, stream->out + 8, stream->capacity - 8 - 4 - 12);
}

/// Ends the zlib stream, closes IDAT and writes IEND; the PNG's length, or 0 if it did not fit.
static size_t stream_finish(glance_png_stream *stream) {
    size_t compressed = 0;
    if (glance_deflate_finish(stream->deflate, &compressed) != 0 || stream->failed) return 0;
    close_idat(stream, compressed);
    put_chunk(stream, "IEND", NULL, 0);
    return stream->failed ? 0 : stream->length;
}

static void set_message(glance_png_error *error, const char *message) {
    if (error != NULL) snprintf(error->message, sizeof error->message, "%s", message);
}

// --- whole images ---------------------------------------------------------------------------

/// Whether every pixel of `width` RGB pixels has R == G == B.
static int row_is_gray(const uint8_t *row, int width) {
    for (int x = 0; x < width; x++) {
        if (row[3 * x] != row[3 * x + 1] || row[3 * x] != row[3 * x + 2]) return 0;
    }
    return 1;
}

static void gray_of(const uint8_t *row, int width, uint8_t *gray) {
    for (int x = 0; x < width; x++) gray[x] = row[3 * x];
}

/// Whether every pixel of a row of 0x00RRGGBB words has R == G == B.
static int word_row_is_gray(const uint32_t *row, int width) {
    uint32_t differs = 0;
    for (int x = 0; x < width; x++) {
        uint32_t word = row[x];
        differs |= ((word >> 16) ^ word) & 0xFF;
        differs |= ((word >> 8) ^ word) & 0xFF;
    }
    return differs == 0;
}

static void gray_of_words(const uint8_t *row, int width, uint8_t *gray) {
    const uint32_t *words = (const uint32_t *)row;
    for (int x = 0; x < width; x++) gray[x] = (uint8_t)words[x];
}

static void rgb_of_words(const uint8_t *row, int width, uint8_t *rgb) {
    const uint32_t *words = (const uint32_t *)row;
    for (int x = 0; x < width; x++) {
        rgb[3 * x] = (uint8_t)(words[x] >> 16);
        rgb[3 * x + 1] = (uint8_t)(words[x] >> 8);
        rgb[3 * x + 2] = (uint8_t)words[x];
    }
}

/// Turns a source row of `width` pixels into the PNG's row.
typedef void (*row_converter)(const uint8_t *source, int width, uint8_t *target);

/// Writes a whole image of `bit_depth` bits a sample (8; or 4, gray, two pixels a byte): `height`
/// rows `stride` bytes apart, each turned by `convert` (NULL: taken as they are) into the PNG's
/// rows of `pixel_bytes` a pixel, filtered with `filter`.
static int encode_rows_at_depth(const uint8_t *pixels, int width, int height, size_t stride, int pixel_bytes,
                                int bit_depth, int filter, row_converter convert, uint8_t *out, size_t capacity,
                                size_t *out_length, glance_png_error *error) {
    size_t row_bytes = bit_depth == 4 ? ((size_t)width + 1) / 2 : (size_t)width * (size_t)pixel_bytes;
    uint8_t *converted = convert != NULL ? malloc(row_bytes) : NULL;
    glance_png_stream stream;
    if (convert != NULL && converted == NULL) {
        set_message(error, "out of memory");
        return GLANCE_PNG_FAILED;
    }
    if (!stream_start_at_depth(&stream, out, capacity, width, height, pixel_bytes, bit_depth, filter)) {
        set_message(error, stream.failed ? "encoded image larger than its bound" : "out of memory");
        stream_end(&stream);
        free(converted);
        return GLANCE_PNG_FAILED;
    }
    for (int y = 0; y < height; y++) {
        const uint8_t *row = pixels + (size_t)y * stride;
        if (convert != NULL) {
            convert(row, width, converted);
            row = converted;
        }
        stream_write_row(&stream, row);
    }
    size_t length = stream_finish(&stream);
    stream_end(&stream);
    free(converted);
    if (length == 0) {
        set_message(error, "encoded image larger than its bound");
        return GLANCE_PNG_FAILED;
    }
    *out_length = length;
    return GLANCE_PNG_OK;
}

/// Writes a whole image: `height` rows `stride` bytes apart, each turned by `convert` (NULL: taken
/// as they are) into rows of `pixel_bytes` a pixel, filtered with `filter`.
static int encode_rows(const uint8_t *pixels, int width, int height, size_t stride, int pixel_bytes, int filter,
                       row_converter convert, uint8_t *out, size_t capacity, size_t *out_length,
                       glance_png_error *error) {
    return encode_rows_at_depth(pixels, width, height, stride, pixel_bytes, 8, filter, convert, out, capacity,
                                out_length, error);
}

int glance_png_encode(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                      glance_png_filters filters, uint8_t *out, size_t capacity, size_t *out_length,
                      glance_png_error *error) {
    if (width <= 0 || height <= 0 || (channels != 3 && channels != 4)) {
        set_message(error, "bad image size or channels");
        return GLANCE_PNG_FAILED;
    }
    // An RGB image whose pixels are all gray (text pages, most PDF pages, gray photos) is
    // written as 8-bit gray: a third of the bytes to filter and deflate, and a smaller file.
    int gray = channels == 3;
    for (int y = 0; gray && y < height; y++) gray = row_is_gray(pixels + (size_t)y * stride, width);
    return gray ? encode_rows(pixels, width, height, stride, 1, filters.gray, gray_of, out, capacity, out_length, error)
                : encode_rows(pixels, width, height, stride, channels, filters.colour, NULL, out, capacity,
                              out_length, error);
}

/// Adds the sample of row `y` (every fourth pixel of every fourth row) of 0x00RRGGBB words.
static void add_word_sums(const uint32_t *row, int width, int y, glance_pixel_sums *sums) {
    if (sums == NULL || y % 4 != 0) return;
    for (int x = 0; x < width; x += 4) {
        sums->red += (row[x] >> 16) & 0xFF;
        sums->green += (row[x] >> 8) & 0xFF;
        sums->blue += row[x] & 0xFF;
        sums->count++;
    }
}

int glance_png_encode_words(const uint8_t *pixels, int width, int height, size_t stride, glance_png_filters filters,
                            uint8_t *out, size_t capacity, size_t *out_length, glance_pixel_sums *sums,
                            glance_png_error *error) {
    if (width <= 0 || height <= 0) {
        set_message(error, "bad image size");
        return GLANCE_PNG_FAILED;
    }
    if (sums != NULL) memset(sums, 0, sizeof *sums);
    // The sample for the average colour is taken in the pass that finds whether the page is gray,
    // not in a pass of its own over the page's words (3 MB for a text page).
    int gray = 1;
    for (int y = 0; y < height; y++) {
        const uint32_t *row = (const uint32_t *)(pixels + (size_t)y * stride);
        if (gray) gray = word_row_is_gray(row, width);
        add_word_sums(row, width, y, sums);
    }
    return gray ? encode_rows(pixels, width, height, stride, 1, filters.gray, gray_of_words, out, capacity, out_length,
                              error)
                : encode_rows(pixels, width, height, stride, 3, filters.colour, rgb_of_words, out, capacity,
                              out_length, error);
}

int glance_png_encode_gray(const uint8_t *pixels, int width, int height, size_t stride, glance_png_filters filters,
                           uint8_t *out, size_t capacity, size_t *out_length, glance_pixel_sums *sums,
                           glance_png_error *error) {
    if (width <= 0 || height <= 0) {
        set_message(error, "bad image size");
        return GLANCE_PNG_FAILED;
    }
    if (sums != NULL) {
        memset(sums, 0, sizeof *sums);
        for (int y = 0; y < height; y += 4) {
            const uint8_t *row = pixels + (size_t)y * stride;
            for (int x = 0; x < width; x += 4) {
                sums->red += row[x];
                sums->count++;
            }
        }
        sums->green = sums->red;
        sums->blue = sums->red;
    }
    return encode_rows(pixels, width, height, stride, 1, filters.gray, NULL, out, capacity, out_length, error);
}

// The nearest of the sixteen levels a 4-bit sample holds (level * 17 when read back), of each
// 8-bit gray: a table, as dividing each sample made the encoding a fifth slower.
#define LEVEL(v) (uint8_t)(((v) * 15 + 127) / 255)
#define LEVELS4(v) LEVEL(v), LEVEL((v) + 1), LEVEL((v) + 2), LEVEL((v) + 3)
#define LEVELS16(v) LEVELS4(v), LEVELS4((v) + 4), LEVELS4((v) + 8), LEVELS4((v) + 12)
#define LEVELS64(v) LEVELS16(v), LEVELS16((v) + 16), LEVELS16((v) + 32), LEVELS16((v) + 48)
static const uint8_t sixteen_levels[256] = {LEVELS64(0), LEVELS64(64), LEVELS64(128), LEVELS64(192)};
#undef LEVELS64
#undef LEVELS16
#undef LEVELS4
#undef LEVEL

/// Packs `width` gray samples, `step` bytes apart, two a byte, each its nearest of the sixteen
/// levels.
static inline void pack_sixteen_grays(const uint8_t *row, int width, int step, uint8_t *packed) {
    for (int x = 0; x < width; x += 2) {
        uint8_t high = sixteen_levels[row[(size_t)x * (size_t)step]];
        uint8_t low = x + 1 < width ? sixteen_levels[row[(size_t)(x + 1) * (size_t)step]] : 0;
        packed[x / 2] = (uint8_t)(high << 4 | low);
    }
}

/// A gray row: sixteen samples at a time with SSE2 (part of every x86-64), each level worked out
/// as the table holds it (t / 255 is (t + 1 + (t >> 8)) >> 8 for every t the levels need), then
/// the rest by the table. The table alone took 1.5% of a text batch's samples (perf, the small
/// bench corpus's 40 texts 24 times over: their 512s and 256s); this, 0.55%.
static void sixteen_grays_of_gray(const uint8_t *row, int width, uint8_t *packed) {
    int x = 0;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128(), fifteen = _mm_set1_epi16(15), bias = _mm_set1_epi16(127),
                  one = _mm_set1_epi16(1), low_byte = _mm_set1_epi16(0x00FF);
    for (; x + 16 <= width; x += 16) {
        __m128i samples = _mm_loadu_si128((const __m128i *)(const void *)(row + x));
        __m128i halves[2] = {_mm_unpacklo_epi8(samples, zero), _mm_unpackhi_epi8(samples, zero)};
        for (int k = 0; k < 2; k++) {
            __m128i t = _mm_add_epi16(_mm_mullo_epi16(halves[k], fifteen), bias);
            halves[k] = _mm_srli_epi16(_mm_add_epi16(_mm_add_epi16(t, one), _mm_srli_epi16(t, 8)), 8);
        }
        // A level a byte, then each pair of bytes as one: the first in the high half.
        __m128i pairs = _mm_packus_epi16(halves[0], halves[1]);
        __m128i joined = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(pairs, low_byte), 4), _mm_srli_epi16(pairs, 8));
        _mm_storel_epi64((__m128i *)(void *)(packed + x / 2), _mm_packus_epi16(joined, zero));
    }
#endif
    pack_sixteen_grays(row + x, width - x, 1, packed + x / 2);
}

static void sixteen_grays_of_rgb(const uint8_t *row, int width, uint8_t *packed) {
    pack_sixteen_grays(row, width, 3, packed);
}

int glance_png_encode_sixteen_grays(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                                    uint8_t *out, size_t capacity, size_t *out_length, glance_png_error *error) {
    if (width <= 0 || height <= 0 || (channels != 1 && channels != 3)) {
        set_message(error, "bad image size or channels");
        return GLANCE_PNG_FAILED;
    }
    for (int y = 0; channels == 3 && y < height; y++) {
        if (!row_is_gray(pixels + (size_t)y * stride, width)) return GLANCE_PNG_NOT_GRAY;
    }
    return encode_rows_at_depth(pixels, width, height, stride, 1, 4, 0,
                                channels == 1 ? sixteen_grays_of_gray : sixteen_grays_of_rgb, out, capacity,
                                out_length, error);
}

size_t glance_png_encoded_bound(int width, int height, int channels) {
    // Deflate falls back to stored blocks when it cannot compress, so the stream is at most the
    // filtered rows plus a few bytes per 64 KiB block; the chunks around it are under 100 bytes.
    size_t raw = (size_t)height * (1 + (size_t)width * (size_t)channels);
    return raw + raw / 64 + 4096;
}

// --- row by row -----------------------------------------------------------------------------

struct glance_png_writer {
    glance_png_stream colour;   // RGB or RGBA: always written
    glance_png_stream gray;     // written too while every row so far is gray (RGB only)
    int gray_active;
    int width;
    uint8_t *gray_row;
};

glance_png_writer *glance_png_writer_create(int width, int height, int channels, glance_png_filters filters,
                                            uint8_t *out, size_t capacity, uint8_t *gray_out, size_t gray_capacity,
                                            glance_png_error *error) {
    if (width <= 0 || height <= 0 || (channels != 3 && channels != 4)) {
        set_message(error, "bad image size or channels");
        return NULL;
    }
    glance_png_writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) {
        set_message(error, "out of memory");
        return NULL;
    }
    writer->width = width;
    if (!stream_start(&writer->colour, out, capacity, width, height, channels, filters.colour)) {
        set_message(error, writer->colour.failed ? "encoded image larger than its bound" : "out of memory");
        glance_png_writer_free(writer);
        return NULL;
    }
    if (channels == 3 && gray_out != NULL) {
        writer->gray_row = malloc((size_t)width);
        // The gray candidate is an optimisation: when it cannot be made, the colour PNG serves.
        writer->gray_active = writer->gray_row != NULL &&
                              stream_start(&writer->gray, gray_out, gray_capacity, width, height, 1, filters.gray);
        if (!writer->gray_active) stream_end(&writer->gray);
    }
    return writer;
}

void glance_png_writer_send_to(glance_png_writer *writer, glance_png_sink sink, void *context, size_t idat_bytes) {
    writer->colour.sink = sink;
    writer->colour.sink_context = context;
    writer->colour.idat_bytes = idat_bytes > 0 ? idat_bytes : 1;
}

int glance_png_writer_write_row(glance_png_writer *writer, const uint8_t *row, glance_png_error *error) {
    (void)error;   // writing a row cannot fail: running out of room is found at the end
    if (writer->gray_active) {
        if (row_is_gray(row, writer->width)) {
            gray_of(row, writer->width, writer->gray_row);
            stream_write_row(&writer->gray, writer->gray_row);
        } else {
            writer->gray_active = 0;
            stream_end(&writer->gray);
        }
    }
    stream_write_row(&writer->colour, row);
    // Nothing is sent while the gray PNG may still be the one: it would replace these bytes.
    if (!writer->gray_active) stream_send_if_full(&writer->colour);
    return GLANCE_PNG_OK;
}

int glance_png_writer_finish(glance_png_writer *writer, size_t *out_length, int *is_gray, glance_png_error *error) {
    if (writer->gray_active) {
        size_t length = stream_finish(&writer->gray);
        writer->gray_active = 0;
        stream_end(&writer->gray);
        if (length > 0) {
            *out_length = length;
            *is_gray = 1;
            return GLANCE_PNG_OK;
        }
    }
    size_t length = stream_finish(&writer->colour);
    if (length == 0) {
        set_message(error, writer->colour.sink_refused ? "the encoded image could not be sent"
                                                       : "encoded image larger than its bound");
        return GLANCE_PNG_FAILED;
    }
    *out_length = length;
    *is_gray = 0;
    return GLANCE_PNG_OK;
}

void glance_png_writer_free(glance_png_writer *writer) {
    if (writer == NULL) return;
    stream_end(&writer->colour);
    stream_end(&writer->gray);
    free(writer->gray_row);
    free(writer);
}

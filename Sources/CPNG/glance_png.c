// The libpng shim: see include/glance_png.h for why it exists.
#include "glance_png.h"
#include "glance_file_access.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

struct glance_png_decoder {
    png_structp png;
    png_infop info;
    FILE *file;
    glance_png_error last;       // filled by the error callback before it jumps
};

static void glance_png_on_error(png_structp png, png_const_charp message) {
    glance_png_decoder *decoder = (glance_png_decoder *)png_get_error_ptr(png);
    if (decoder != NULL) {
        snprintf(decoder->last.message, sizeof decoder->last.message, "%s", message);
    }
    png_longjmp(png, 1);
}

static void glance_png_on_warning(png_structp png, png_const_charp message) {
    (void)png; (void)message;  // benign problems (bad ancillary chunks) are not worth a line
}

/// Reads through stdio, remembering a short read so that it can be told apart from corruption.
static void glance_png_read_data(png_structp png, png_bytep data, size_t length) {
    glance_png_decoder *decoder = (glance_png_decoder *)png_get_io_ptr(png);
    size_t got = fread(data, 1, length, decoder->file);
    if (got != length) {
        decoder->last.hit_end_of_data = 1;
        png_error(png, "file ended before the image data did");
    }
}

static int glance_png_fail(glance_png_decoder *decoder, glance_png_error *error) {
    if (error != NULL) *error = decoder->last;
    return GLANCE_PNG_FAILED;
}

glance_png_decoder *glance_png_open(int descriptor, glance_png_header *header, glance_png_error *error) {
    glance_png_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) {
        if (error) { error->code = ENOMEM; snprintf(error->message, sizeof error->message, "out of memory"); }
        return NULL;
    }
    decoder->file = glance_stream_from_start(descriptor);
    if (decoder->file == NULL) {
        if (error) { error->code = errno; snprintf(error->message, sizeof error->message, "%s", strerror(errno)); }
        free(decoder);
        return NULL;
    }
    decoder->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, decoder, glance_png_on_error,
                                          glance_png_on_warning);
    if (decoder->png != NULL) decoder->info = png_create_info_struct(decoder->png);
    if (decoder->png == NULL || decoder->info == NULL) {
        if (error) { error->code = ENOMEM; snprintf(error->message, sizeof error->message, "out of memory"); }
        glance_png_free(decoder);
        return NULL;
    }
    if (setjmp(png_jmpbuf(decoder->png))) {
        glance_png_fail(decoder, error);
        glance_png_free(decoder);
        return NULL;
    }
    png_set_read_fn(decoder->png, decoder, glance_png_read_data);
    // Glance checks the pixel count itself, with a message that says so; libpng's own limits
    // stay as the second line of defence.
    png_read_info(decoder->png, decoder->info);
    header->width = png_get_image_width(decoder->png, decoder->info);
    header->height = png_get_image_height(decoder->png, decoder->info);
    header->bit_depth = png_get_bit_depth(decoder->png, decoder->info);
    header->color_type = png_get_color_type(decoder->png, decoder->info);
    header->interlaced = png_get_interlace_type(decoder->png, decoder->info) != PNG_INTERLACE_NONE;
    header->has_alpha = (header->color_type & PNG_COLOR_MASK_ALPHA) != 0 ||
                        png_get_valid(decoder->png, decoder->info, PNG_INFO_tRNS) != 0;
    return decoder;
}

void glance_png_colour_chunks(glance_png_decoder *decoder, glance_png_colour *colour) {
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    memset(colour, 0, sizeof *colour);
    // None of these getters raises a libpng error: they only read what png_read_info stored
    // (libpng has already dropped, with a warning, chunks it found inconsistent).
    int intent = 0;
    colour->has_srgb = png_get_sRGB(png, info, &intent) != 0;
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 length = 0;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &length) != 0 && profile != NULL) {
        colour->icc = profile;
        colour->icc_length = length;
    }
    colour->has_gamma = png_get_gAMA(png, info, &colour->gamma) != 0;
    double *c = colour->chromaticities;
    colour->has_chromaticities = png_get_cHRM(png, info, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7]) != 0;
}

int glance_png_start(glance_png_decoder *decoder, int *channels, glance_png_error *error) {
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    if (setjmp(png_jmpbuf(png))) return glance_png_fail(decoder, error);
    int color_type = png_get_color_type(png, info);
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    png_set_expand(png);                 // palette -> RGB, gray < 8 bits -> 8, tRNS -> alpha
    png_set_scale_16(png);               // 16 -> 8 bits, rounded (not truncated)
    if (!(color_type & PNG_COLOR_MASK_COLOR)) png_set_gray_to_rgb(png);
    int alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 || has_trns;
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) png_set_interlace_handling(png);
    png_read_update_info(png, info);
    *channels = alpha ? 4 : 3;
    if ((int)png_get_channels(png, info) != *channels || png_get_bit_depth(png, info) != 8) {
        snprintf(decoder->last.message, sizeof decoder->last.message,
                 "unexpected layout after transforms (%d channels, %d bits)",
                 png_get_channels(png, info), png_get_bit_depth(png, info));
        return glance_png_fail(decoder, error);
    }
    return GLANCE_PNG_OK;
}

int glance_png_read_rows(glance_png_decoder *decoder, uint8_t *rows, size_t stride, int count,
                         glance_png_error *error) {
    if (setjmp(png_jmpbuf(decoder->png))) return glance_png_fail(decoder, error);
    for (int i = 0; i < count; i++) png_read_row(decoder->png, rows + (size_t)i * stride, NULL);
    return GLANCE_PNG_OK;
}

int glance_png_read_image(glance_png_decoder *decoder, uint8_t *image, size_t stride,
                          glance_png_error *error) {
    png_structp png = decoder->png;
    uint32_t height = png_get_image_height(png, decoder->info);
    png_bytep *pointers = malloc(sizeof(png_bytep) * (height ? height : 1));
    if (pointers == NULL) {
        snprintf(decoder->last.message, sizeof decoder->last.message, "out of memory");
        return glance_png_fail(decoder, error);
    }
    for (uint32_t y = 0; y < height; y++) pointers[y] = image + (size_t)y * stride;
    if (setjmp(png_jmpbuf(png))) {
        free(pointers);
        return glance_png_fail(decoder, error);
    }
    png_read_image(png, pointers);
    free(pointers);
    return GLANCE_PNG_OK;
}

void glance_png_free(glance_png_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->png != NULL) png_destroy_read_struct(&decoder->png, decoder->info ? &decoder->info : NULL, NULL);
    if (decoder->file != NULL) fclose(decoder->file);
    free(decoder);
}

/// The caller's buffer the encoder writes into.
typedef struct {
    uint8_t *bytes;
    size_t length, capacity;
} glance_png_sink;

static void glance_png_write_data(png_structp png, png_bytep data, size_t length) {
    glance_png_sink *sink = (glance_png_sink *)png_get_io_ptr(png);
    if (sink->length + length > sink->capacity) png_error(png, "encoded image larger than its bound");
    memcpy(sink->bytes + sink->length, data, length);
    sink->length += length;
}

static void glance_png_flush(png_structp png) { (void)png; }

/// Whether every pixel of an RGB image has R == G == B.
static int glance_png_is_gray(const uint8_t *pixels, int width, int height, size_t stride) {
    for (int y = 0; y < height; y++) {
        const uint8_t *row = pixels + (size_t)y * stride;
        for (int x = 0; x < width; x++) {
            if (row[3 * x] != row[3 * x + 1] || row[3 * x] != row[3 * x + 2]) return 0;
        }
    }
    return 1;
}

static void glance_png_on_encode_error(png_structp png, png_const_charp message) {
    glance_png_error *error = (glance_png_error *)png_get_error_ptr(png);
    if (error != NULL) snprintf(error->message, sizeof error->message, "%s", message);
    png_longjmp(png, 1);
}

/// Sets up the output, compression and header, and writes the header. The caller has set the
/// error jump for `png`.
static void glance_png_begin(png_structp png, png_infop info, glance_png_sink *sink, int width, int height,
                             int color_type, glance_png_compression compression) {
    png_set_write_fn(png, sink, glance_png_write_data, glance_png_flush);
    png_set_compression_level(png, compression.level);
    png_set_compression_strategy(png, compression.strategy);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, compression.filters);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    // Every thumbnail is sRGB (sources with a profile are converted): say so, in 13 bytes.
    png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_write_info(png, info);
}

int glance_png_encode(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                      glance_png_compression compression, uint8_t *out, size_t capacity,
                      size_t *out_length, glance_png_error *error) {
    glance_png_sink sink = {out, 0, capacity};
    // An RGB image whose pixels are all gray (text pages, most PDF pages, gray photos) is
    // written as 8-bit gray: a third of the bytes to filter and deflate, and a smaller file.
    int gray = channels == 3 && glance_png_is_gray(pixels, width, height, stride);
    png_bytep gray_row = gray ? malloc((size_t)width) : NULL;
    if (gray && gray_row == NULL) gray = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, error, glance_png_on_encode_error,
                                              glance_png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (png == NULL || info == NULL) {
        if (error) snprintf(error->message, sizeof error->message, "out of memory");
        png_destroy_write_struct(&png, info ? &info : NULL);
        free(gray_row);
        return GLANCE_PNG_FAILED;
    }
    // gray and gray_row are set before setjmp and not changed after: safe to use after longjmp.
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(gray_row);
        return GLANCE_PNG_FAILED;
    }
    glance_png_begin(png, info, &sink, width, height,
                     gray ? PNG_COLOR_TYPE_GRAY : channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                     compression);
    for (int y = 0; y < height; y++) {
        const uint8_t *row = pixels + (size_t)y * stride;
        if (gray) {
            for (int x = 0; x < width; x++) gray_row[x] = row[3 * x];
            png_write_row(png, gray_row);
        } else {
            png_write_row(png, (png_const_bytep)row);
        }
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(gray_row);
    *out_length = sink.length;
    return GLANCE_PNG_OK;
}

size_t glance_png_encoded_bound(int width, int height, int channels) {
    // Deflate falls back to stored blocks when it cannot compress, so the stream is at most the
    // filtered rows plus a few bytes per block; PNG adds 12 bytes per IDAT chunk (8 KiB each).
    size_t raw = (size_t)height * (1 + (size_t)width * (size_t)channels);
    return raw + raw / 64 + 4096;
}

/// One PNG being written row by row.
typedef struct {
    png_structp png;
    png_infop info;
    glance_png_sink sink;
} glance_png_stream;

struct glance_png_writer {
    glance_png_stream colour;   // RGB or RGBA: always written
    glance_png_stream gray;     // written too while every row so far is gray (RGB only)
    int gray_active;
    int width, channels, rows_written;
    png_bytep gray_row;
};

/// Creates a stream's libpng structures and writes its header; 0 on failure (`error` says why).
static int glance_png_stream_start(glance_png_stream *stream, uint8_t *out, size_t capacity, int width, int height,
                                   int color_type, glance_png_compression compression, glance_png_error *error) {
    stream->sink = (glance_png_sink){out, 0, capacity};
    stream->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, error, glance_png_on_encode_error,
                                          glance_png_on_warning);
    stream->info = stream->png ? png_create_info_struct(stream->png) : NULL;
    if (stream->png == NULL || stream->info == NULL) {
        if (error) snprintf(error->message, sizeof error->message, "out of memory");
        return 0;
    }
    if (setjmp(png_jmpbuf(stream->png))) return 0;
    glance_png_begin(stream->png, stream->info, &stream->sink, width, height, color_type, compression);
    return 1;
}

static void glance_png_stream_end(glance_png_stream *stream) {
    if (stream->png != NULL) png_destroy_write_struct(&stream->png, stream->info ? &stream->info : NULL);
    stream->png = NULL;
    stream->info = NULL;
}

glance_png_writer *glance_png_writer_create(int width, int height, int channels, glance_png_compression compression,
                                            uint8_t *out, size_t capacity, uint8_t *gray_out, size_t gray_capacity,
                                            glance_png_error *error) {
    if (width <= 0 || height <= 0 || (channels != 3 && channels != 4)) {
        if (error) snprintf(error->message, sizeof error->message, "bad image size or channels");
        return NULL;
    }
    glance_png_writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) {
        if (error) snprintf(error->message, sizeof error->message, "out of memory");
        return NULL;
    }
    writer->width = width;
    writer->channels = channels;
    int colour_type = channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB;
    if (!glance_png_stream_start(&writer->colour, out, capacity, width, height, colour_type, compression, error)) {
        glance_png_writer_free(writer);
        return NULL;
    }
    if (channels == 3 && gray_out != NULL) {
        writer->gray_row = malloc((size_t)width);
        // The gray candidate is an optimisation: when it cannot be made, the colour PNG serves.
        writer->gray_active = writer->gray_row != NULL &&
                              glance_png_stream_start(&writer->gray, gray_out, gray_capacity, width, height,
                                                      PNG_COLOR_TYPE_GRAY, compression, NULL);
        if (!writer->gray_active) glance_png_stream_end(&writer->gray);
    }
    return writer;
}

int glance_png_writer_write_row(glance_png_writer *writer, const uint8_t *row, glance_png_error *error) {
    if (writer->gray_active) {
        int gray = glance_png_is_gray(row, writer->width, 1, 0);
        if (gray) {
            for (int x = 0; x < writer->width; x++) writer->gray_row[x] = row[3 * x];
            if (setjmp(png_jmpbuf(writer->gray.png))) {
                gray = 0;
            } else {
                png_write_row(writer->gray.png, writer->gray_row);
            }
        }
        if (!gray) {
            writer->gray_active = 0;
            glance_png_stream_end(&writer->gray);
        }
    }
    png_set_error_fn(writer->colour.png, error, glance_png_on_encode_error, glance_png_on_warning);
    if (setjmp(png_jmpbuf(writer->colour.png))) return GLANCE_PNG_FAILED;
    png_write_row(writer->colour.png, (png_const_bytep)row);
    writer->rows_written += 1;
    return GLANCE_PNG_OK;
}

int glance_png_writer_finish(glance_png_writer *writer, size_t *out_length, int *is_gray, glance_png_error *error) {
    if (writer->gray_active) {
        if (!setjmp(png_jmpbuf(writer->gray.png))) {
            png_write_end(writer->gray.png, NULL);
            glance_png_stream_end(&writer->colour);
            *out_length = writer->gray.sink.length;
            *is_gray = 1;
            return GLANCE_PNG_OK;
        }
        writer->gray_active = 0;
        glance_png_stream_end(&writer->gray);
    }
    png_set_error_fn(writer->colour.png, error, glance_png_on_encode_error, glance_png_on_warning);
    if (setjmp(png_jmpbuf(writer->colour.png))) return GLANCE_PNG_FAILED;
    png_write_end(writer->colour.png, NULL);
    *out_length = writer->colour.sink.length;
    *is_gray = 0;
    return GLANCE_PNG_OK;
}

void glance_png_writer_free(glance_png_writer *writer) {
    if (writer == NULL) return;
    glance_png_stream_end(&writer->colour);
    glance_png_stream_end(&writer->gray);
    free(writer->gray_row);
    free(writer);
}

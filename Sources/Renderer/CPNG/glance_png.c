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
#ifdef PNG_IGNORE_ADLER32
    // Every IDAT byte is checked by its chunk's CRC already; zlib's Adler-32 of the inflated
    // rows would check them again (3% of a PNG's decoding time).
    png_set_option(decoder->png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
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

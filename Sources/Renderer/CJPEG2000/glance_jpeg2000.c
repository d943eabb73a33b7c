// See include/glance_jpeg2000.h.
#include "glance_jpeg2000.h"

#include <openjpeg-2.5/openjpeg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glance_library_loader.h"

/// OpenJPEG's functions, typed by its own header, found once and read-only after.
#define JPEG2000_FUNCTIONS(X)                                                   \
    GLANCE_TYPED(X, stream_create, opj_stream_create)                            \
    GLANCE_TYPED(X, stream_destroy, opj_stream_destroy)                          \
    GLANCE_TYPED(X, stream_read, opj_stream_set_read_function)                   \
    GLANCE_TYPED(X, stream_skip, opj_stream_set_skip_function)                   \
    GLANCE_TYPED(X, stream_seek, opj_stream_set_seek_function)                   \
    GLANCE_TYPED(X, stream_user_data, opj_stream_set_user_data)                  \
    GLANCE_TYPED(X, stream_length, opj_stream_set_user_data_length)              \
    GLANCE_TYPED(X, create_decompress, opj_create_decompress)                    \
    GLANCE_TYPED(X, destroy_codec, opj_destroy_codec)                            \
    GLANCE_TYPED(X, default_parameters, opj_set_default_decoder_parameters)      \
    GLANCE_TYPED(X, setup_decoder, opj_setup_decoder)                            \
    GLANCE_TYPED(X, error_handler, opj_set_error_handler)                        \
    GLANCE_TYPED(X, read_header, opj_read_header)                                \
    GLANCE_TYPED(X, resolution_factor, opj_set_decoded_resolution_factor)        \
    GLANCE_TYPED(X, decode, opj_decode)                                          \
    GLANCE_TYPED(X, end_decompress, opj_end_decompress)                          \
    GLANCE_TYPED(X, image_destroy, opj_image_destroy)                            \
    GLANCE_TYPED(X, codestream_info, opj_get_cstr_info)                          \
    GLANCE_TYPED(X, destroy_codestream_info, opj_destroy_cstr_info)

/// The soname: OpenJPEG 2's ABI has been 7 since 2.0.
GLANCE_LIBRARY(jp2, "libopenjp2.so.7", JPEG2000_FUNCTIONS, GLANCE_LIBRARY_NO_START)

int glance_jpeg2000_load(char *reason, size_t capacity) { return jp2_ensure(reason, capacity); }

struct glance_jpeg2000 {
    uint8_t *data;
    size_t size, position;
    opj_codec_t *codec;
    opj_stream_t *stream;
    opj_image_t *image;
    /// OpenJPEG's first error message.
    char error[256];
    int width, height, channels, gray, ycc;
};

// The stream over the picture's bytes in memory.
static OPJ_SIZE_T read_bytes(void *buffer, OPJ_SIZE_T count, void *data) {
    glance_jpeg2000 *picture = data;
    if (picture->position >= picture->size) return (OPJ_SIZE_T)-1;
    size_t left = picture->size - picture->position;
    size_t taken = count < left ? count : left;
    memcpy(buffer, picture->data + picture->position, taken);
    picture->position += taken;
    return taken;
}

static OPJ_OFF_T skip_bytes(OPJ_OFF_T count, void *data) {
    glance_jpeg2000 *picture = data;
    if (count < 0 && (size_t)(-count) > picture->position) count = -(OPJ_OFF_T)picture->position;
    if (count > 0 && (size_t)count > picture->size - picture->position) count = (OPJ_OFF_T)(picture->size - picture->position);
    picture->position = (size_t)((OPJ_OFF_T)picture->position + count);
    return count;
}

static OPJ_BOOL seek_bytes(OPJ_OFF_T to, void *data) {
    glance_jpeg2000 *picture = data;
    if (to < 0 || (size_t)to > picture->size) return OPJ_FALSE;
    picture->position = (size_t)to;
    return OPJ_TRUE;
}

static void keep_error(const char *message, void *data) {
    glance_jpeg2000 *picture = data;
    if (picture->error[0] == 0 && message != NULL) {
        snprintf(picture->error, sizeof picture->error, "%.*s", (int)strcspn(message, "\n"), message);
    }
}

/// OpenJPEG's error (or `fallback`) into `reason`; a picture that ends early says so.
static void fail(glance_jpeg2000 *picture, const char *fallback, char *reason, size_t capacity, glance_failure *failure) {
    snprintf(reason, capacity, "%s", picture->error[0] ? picture->error : fallback);
    *failure = picture->position >= picture->size || strstr(picture->error, "end of") != NULL ||
                       strstr(picture->error, "truncated") != NULL
                   ? GLANCE_FAILURE_TRUNCATED
                   : GLANCE_FAILURE_CORRUPT;
}

glance_jpeg2000 *glance_jpeg2000_open(const uint8_t *data, size_t size, int *width, int *height, int *components,
                                      int *reductions, char *reason, size_t capacity, glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    glance_jpeg2000 *picture = calloc(1, sizeof *picture);
    if (picture == NULL || (picture->data = malloc(size ? size : 1)) == NULL) {
        snprintf(reason, capacity, "out of memory for the picture");
        *failure = GLANCE_FAILURE_OUT_OF_MEMORY;
        free(picture);
        return NULL;
    }
    memcpy(picture->data, data, size);
    picture->size = size;
    // A JP2 file starts with its signature box; a bare codestream with SOC and SIZ.
    int boxed = size >= 12 && memcmp(data, "\0\0\0\x0cjP  ", 8) == 0;
    picture->codec = jp2.create_decompress(boxed ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
    picture->stream = jp2.stream_create(1 << 16, OPJ_TRUE);
    opj_dparameters_t parameters;
    jp2.default_parameters(&parameters);
    if (picture->codec == NULL || picture->stream == NULL || !jp2.setup_decoder(picture->codec, &parameters)) {
        snprintf(reason, capacity, "OpenJPEG did not start");
        glance_jpeg2000_close(picture);
        return NULL;
    }
    jp2.error_handler(picture->codec, keep_error, picture);
    jp2.stream_read(picture->stream, read_bytes);
    jp2.stream_skip(picture->stream, skip_bytes);
    jp2.stream_seek(picture->stream, seek_bytes);
    jp2.stream_user_data(picture->stream, picture, NULL);
    jp2.stream_length(picture->stream, size);
    if (!jp2.read_header(picture->stream, picture->codec, &picture->image) || picture->image == NULL ||
        picture->image->numcomps == 0 || picture->image->x1 <= picture->image->x0 ||
        picture->image->y1 <= picture->image->y0) {
        fail(picture, "OpenJPEG could not read the header", reason, capacity, failure);
        glance_jpeg2000_close(picture);
        return NULL;
    }
    opj_image_t *image = picture->image;
    *width = (int)(image->x1 - image->x0);
    *height = (int)(image->y1 - image->y0);
    *components = (int)image->numcomps;
    *reductions = 0;
    opj_codestream_info_v2_t *info = jp2.codestream_info(picture->codec);
    if (info != NULL) {
        if (info->m_default_tile_info.tccp_info != NULL) {
            *reductions = (int)info->m_default_tile_info.tccp_info[0].numresolutions - 1;
        }
        jp2.destroy_codestream_info(&info);
    }
    return picture;
}

int glance_jpeg2000_decode(glance_jpeg2000 *picture, int reduce, int *width, int *height, int *channels, int *is_gray,
                           char *reason, size_t capacity, glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    if (reduce > 0 && !jp2.resolution_factor(picture->codec, (OPJ_UINT32)reduce)) reduce = 0;
    if (!jp2.decode(picture->codec, picture->stream, picture->image) ||
        !jp2.end_decompress(picture->codec, picture->stream)) {
        fail(picture, "OpenJPEG could not decode the picture", reason, capacity, failure);
        return 0;
    }
    opj_image_t *image = picture->image;
    unsigned int count = image->numcomps;
    for (unsigned int i = 0; i < count && i < 4; i++) {
        if (image->comps[i].data == NULL || image->comps[i].w == 0 || image->comps[i].h == 0 ||
            image->comps[i].prec == 0 || image->comps[i].prec > 31) {
            snprintf(reason, capacity, "component %u was not decoded", i);
            return 0;
        }
    }
    picture->gray = count < 3;
    picture->ycc = !picture->gray && image->color_space == OPJ_CLRSPC_SYCC;
    int alpha = count == 2 || count >= 4;
    if (image->color_space == OPJ_CLRSPC_CMYK) {
        snprintf(reason, capacity, "a CMYK picture");
        *failure = GLANCE_FAILURE_UNSUPPORTED;
        return 0;
    }
    // The first component is the picture's full size at this reduction; others may be subsampled.
    picture->width = (int)image->comps[0].w;
    picture->height = (int)image->comps[0].h;
    picture->channels = alpha ? 4 : 3;
    *width = picture->width;
    *height = picture->height;
    *channels = picture->channels;
    *is_gray = picture->gray;
    return 1;
}

/// Component `c`'s sample for the pixel (x, y) of the first component's grid, as 8 bits
/// (unsigned; a signed component moved up by half its range), the component's subsampling
/// repeated.
static int sample(const opj_image_t *image, unsigned int c, int x, int y, int width, int height) {
    const opj_image_comp_t *comp = &image->comps[c];
    int cx = (int)((long)x * comp->w / width), cy = (int)((long)y * comp->h / height);
    if (cx >= (int)comp->w) cx = (int)comp->w - 1;
    if (cy >= (int)comp->h) cy = (int)comp->h - 1;
    long value = comp->data[(size_t)cy * comp->w + (size_t)cx];
    if (comp->sgnd) value += 1L << (comp->prec - 1);
    value = comp->prec > 8 ? value >> (comp->prec - 8) : value << (8 - comp->prec);
    return value < 0 ? 0 : value > 255 ? 255 : (int)value;
}

static uint8_t clamp(double value) { return value < 0 ? 0 : value > 255 ? 255 : (uint8_t)(value + 0.5); }

void glance_jpeg2000_read_rows(glance_jpeg2000 *picture, int first, int count, uint8_t *out) {
    const opj_image_t *image = picture->image;
    int width = picture->width, height = picture->height, channels = picture->channels;
    for (int y = first; y < first + count && y < height; y++) {
        uint8_t *row = out + (size_t)(y - first) * (size_t)width * (size_t)channels;
        for (int x = 0; x < width; x++) {
            uint8_t *pixel = row + (size_t)x * (size_t)channels;
            if (picture->gray) {
                pixel[0] = pixel[1] = pixel[2] = (uint8_t)sample(image, 0, x, y, width, height);
                if (channels == 4) pixel[3] = (uint8_t)sample(image, 1, x, y, width, height);
                continue;
            }
            int a = sample(image, 0, x, y, width, height), b = sample(image, 1, x, y, width, height),
                c = sample(image, 2, x, y, width, height);
            if (picture->ycc) {
                // sYCC (BT.601, full range) to RGB.
                pixel[0] = clamp(a + 1.402 * (c - 128));
                pixel[1] = clamp(a - 0.344136 * (b - 128) - 0.714136 * (c - 128));
                pixel[2] = clamp(a + 1.772 * (b - 128));
            } else {
                pixel[0] = (uint8_t)a;
                pixel[1] = (uint8_t)b;
                pixel[2] = (uint8_t)c;
            }
            if (channels == 4) pixel[3] = (uint8_t)sample(image, 3, x, y, width, height);
        }
    }
}

void glance_jpeg2000_close(glance_jpeg2000 *picture) {
    if (picture == NULL) return;
    if (picture->image != NULL) jp2.image_destroy(picture->image);
    if (picture->stream != NULL) jp2.stream_destroy(picture->stream);
    if (picture->codec != NULL) jp2.destroy_codec(picture->codec);
    free(picture->data);
    free(picture);
}

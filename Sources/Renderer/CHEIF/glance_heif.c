// See include/glance_heif.h.
#include "glance_heif.h"

#include <errno.h>
#include <libheif/heif.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "glance_library_loader.h"

/// libheif's functions, typed by its own header, found once and read-only after.
#define HEIF_FUNCTIONS(X)                                                         \
    GLANCE_TYPED(X, init, heif_init)                                              \
    GLANCE_TYPED(X, context_alloc, heif_context_alloc)                            \
    GLANCE_TYPED(X, context_free, heif_context_free)                              \
    GLANCE_TYPED(X, read_from_memory, heif_context_read_from_memory_without_copy) \
    GLANCE_TYPED(X, primary_handle, heif_context_get_primary_image_handle)        \
    GLANCE_TYPED(X, handle_release, heif_image_handle_release)                    \
    GLANCE_TYPED(X, handle_width, heif_image_handle_get_width)                    \
    GLANCE_TYPED(X, handle_height, heif_image_handle_get_height)                  \
    GLANCE_TYPED(X, handle_has_alpha, heif_image_handle_has_alpha_channel)        \
    GLANCE_TYPED(X, thumbnail_count, heif_image_handle_get_number_of_thumbnails)  \
    GLANCE_TYPED(X, thumbnail_ids, heif_image_handle_get_list_of_thumbnail_IDs)   \
    GLANCE_TYPED(X, thumbnail, heif_image_handle_get_thumbnail)                   \
    GLANCE_TYPED(X, options_alloc, heif_decoding_options_alloc)                   \
    GLANCE_TYPED(X, options_free, heif_decoding_options_free)                     \
    GLANCE_TYPED(X, decode, heif_decode_image)                                    \
    GLANCE_TYPED(X, image_release, heif_image_release)                            \
    GLANCE_TYPED(X, plane, heif_image_get_plane_readonly)                         \
    GLANCE_TYPED(X, image_width, heif_image_get_width)                            \
    GLANCE_TYPED(X, image_height, heif_image_get_height)                          \
    GLANCE_TYPED(X, bits_per_pixel, heif_image_get_bits_per_pixel)                \
    GLANCE_TYPED(X, bits_per_pixel_range, heif_image_get_bits_per_pixel_range)    \
    GLANCE_TYPED(X, icc_size, heif_image_handle_get_raw_color_profile_size)       \
    GLANCE_TYPED(X, icc, heif_image_handle_get_raw_color_profile)                 \
    GLANCE_TYPED(X, nclx, heif_image_handle_get_nclx_color_profile)               \
    GLANCE_TYPED(X, nclx_free, heif_nclx_color_profile_free)

static int start_heif(char *failure, size_t capacity);

/// The soname: libheif's ABI has been 1 since its first release.
GLANCE_LIBRARY(heif, "libheif.so.1", HEIF_FUNCTIONS, start_heif)

/// Registers the built-in decoders once; never undone (the process ends instead).
static int start_heif(char *failure, size_t capacity) {
    struct heif_error error = heif.init(NULL);
    if (error.code == heif_error_Ok) return 1;
    snprintf(failure, capacity, "libheif did not start: %s", error.message);
    return 0;
}

int glance_heif_load(char *reason, size_t capacity) { return heif_ensure(reason, capacity); }

struct glance_heif {
    uint8_t *data;
    struct heif_context *context;
    struct heif_image_handle *primary;
    struct heif_image_handle *thumbnail;
    struct heif_image *image;
    /// The decoded planes (R, G, B, and alpha or NULL) and their strides.
    const uint8_t *planes[4];
    int strides[4];
    /// 0 for 8-bit planes; else how far a 16-bit sample is shifted down to 8 bits (a 10-bit
    /// plane: 2). libheif turns high bit depths to 8 for interleaved output only.
    int shift;
    int width, channels;
};

static void copy_reason(struct heif_error error, char *reason, size_t capacity) {
    if (reason != NULL && capacity > 0) snprintf(reason, capacity, "%s", error.message ? error.message : "");
}

glance_heif *glance_heif_open(int fd, size_t size, char *reason, size_t capacity, glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    glance_heif *file = calloc(1, sizeof *file);
    if (file == NULL) return NULL;
    file->data = malloc(size ? size : 1);
    file->context = heif.context_alloc();
    if (file->data == NULL || file->context == NULL) {
        snprintf(reason, capacity, "out of memory");
        glance_heif_close(file);
        return NULL;
    }
    // The whole file, read once into the buffer libheif then parses in place.
    size_t filled = 0;
    while (filled < size) {
        ssize_t got = pread(fd, file->data + filled, size - filled, (off_t)filled);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            snprintf(reason, capacity, "%s", strerror(errno));
            *failure = GLANCE_FAILURE_UNREADABLE;
            glance_heif_close(file);
            return NULL;
        }
        if (got == 0) break;
        filled += (size_t)got;
    }
    size = filled;
    struct heif_error error = heif.read_from_memory(file->context, file->data, size, NULL);
    if (error.code == heif_error_Ok) error = heif.primary_handle(file->context, &file->primary);
    if (error.code != heif_error_Ok) {
        if (error.subcode == heif_suberror_End_of_data) *failure = GLANCE_FAILURE_TRUNCATED;
        copy_reason(error, reason, capacity);
        glance_heif_close(file);
        return NULL;
    }
    // The largest thumbnail, if any.
    int count = heif.thumbnail_count(file->primary);
    if (count > 0 && count < 64) {
        heif_item_id ids[64];
        count = heif.thumbnail_ids(file->primary, ids, count);
        for (int i = 0; i < count; i++) {
            struct heif_image_handle *candidate = NULL;
            if (heif.thumbnail(file->primary, ids[i], &candidate).code != heif_error_Ok) continue;
            if (file->thumbnail == NULL ||
                heif.handle_width(candidate) * heif.handle_height(candidate) >
                    heif.handle_width(file->thumbnail) * heif.handle_height(file->thumbnail)) {
                if (file->thumbnail != NULL) heif.handle_release(file->thumbnail);
                file->thumbnail = candidate;
            } else {
                heif.handle_release(candidate);
            }
        }
    }
    return file;
}

void glance_heif_describe(glance_heif *file, glance_heif_info *info) {
    memset(info, 0, sizeof *info);
    info->width = heif.handle_width(file->primary);
    info->height = heif.handle_height(file->primary);
    info->has_alpha = heif.handle_has_alpha(file->primary);
    if (file->thumbnail != NULL) {
        info->thumbnail_width = heif.handle_width(file->thumbnail);
        info->thumbnail_height = heif.handle_height(file->thumbnail);
    }
}

int glance_heif_decode(glance_heif *file, int use_thumbnail, int *width, int *height, int *channels, char *reason,
                       size_t capacity) {
    const struct heif_image_handle *handle =
        use_thumbnail && file->thumbnail != NULL ? file->thumbnail : file->primary;
    int alpha = heif.handle_has_alpha(handle);
    struct heif_decoding_options *options = heif.options_alloc();
    if (options == NULL) {
        snprintf(reason, capacity, "out of memory");
        return 0;
    }
    options->ignore_transformations = 0;  // rotation, mirroring and crop applied
    if (options->version >= 2) options->convert_hdr_to_8bit = 1;
    if (file->image != NULL) {
        heif.image_release(file->image);
        file->image = NULL;
    }
    struct heif_error error = heif.decode(handle, &file->image, heif_colorspace_RGB, heif_chroma_444, options);
    heif.options_free(options);
    if (error.code != heif_error_Ok) {
        copy_reason(error, reason, capacity);
        return 0;
    }
    static const enum heif_channel channel[4] = {heif_channel_R, heif_channel_G, heif_channel_B,
                                                 heif_channel_Alpha};
    file->channels = alpha ? 4 : 3;
    for (int index = 0; index < 4; index++) {
        file->planes[index] = NULL;
        if (index < file->channels) {
            file->planes[index] = heif.plane(file->image, channel[index], &file->strides[index]);
            // (Asking libheif the depth of a plane it does not have aborts the process: only
            // those there are.)
            int storage = file->planes[index] != NULL ? heif.bits_per_pixel(file->image, channel[index]) : 0;
            int range = storage > 0 ? heif.bits_per_pixel_range(file->image, channel[index]) : 0;
            int shift = storage == 16 && range > 8 && range <= 16 ? range - 8 : storage == 8 ? 0 : -1;
            if (shift < 0 || (index > 0 && shift != file->shift)) {
                snprintf(reason, capacity, "the decoder gave planes of %d bits", storage);
                return 0;
            }
            file->shift = shift;
        }
    }
    *width = file->width = heif.image_width(file->image, heif_channel_R);
    *height = heif.image_height(file->image, heif_channel_R);
    *channels = file->channels;
    for (int index = 1; index < file->channels; index++) {
        if (heif.image_width(file->image, channel[index]) < *width ||
            heif.image_height(file->image, channel[index]) < *height) {
            snprintf(reason, capacity, "the decoder gave planes of different sizes");
            return 0;
        }
    }
    if (*width <= 0 || *height <= 0) {
        snprintf(reason, capacity, "the decoder gave no pixels");
        return 0;
    }
    return 1;
}

/// One sample of plane `index`, 8 bits, at (x, y).
static inline uint8_t sample(const glance_heif *file, int index, size_t x, size_t y) {
    const uint8_t *row = file->planes[index] + y * (size_t)file->strides[index];
    if (file->shift == 0) return row[x];
    uint16_t wide;
    memcpy(&wide, row + 2 * x, 2);
    unsigned value = wide >> file->shift;
    return (uint8_t)(value > 255 ? 255 : value);
}

void glance_heif_read_rows(glance_heif *file, int first_row, int count, uint8_t *out) {
    size_t width = (size_t)file->width;
    size_t channels = (size_t)file->channels;
    for (int row = 0; row < count; row++) {
        size_t y = (size_t)(first_row + row);
        uint8_t *target = out + (size_t)row * width * channels;
        if (file->shift != 0) {
            for (size_t x = 0; x < width; x++) {
                for (size_t index = 0; index < channels; index++) target[channels * x + index] = sample(file, (int)index, x, y);
            }
            continue;
        }
        const uint8_t *r = file->planes[0] + y * (size_t)file->strides[0];
        const uint8_t *g = file->planes[1] + y * (size_t)file->strides[1];
        const uint8_t *b = file->planes[2] + y * (size_t)file->strides[2];
        if (channels == 4) {
            const uint8_t *a = file->planes[3] + y * (size_t)file->strides[3];
            for (size_t x = 0; x < width; x++) {
                target[4 * x] = r[x];
                target[4 * x + 1] = g[x];
                target[4 * x + 2] = b[x];
                target[4 * x + 3] = a[x];
            }
        } else {
            for (size_t x = 0; x < width; x++) {
                target[3 * x] = r[x];
                target[3 * x + 1] = g[x];
                target[3 * x + 2] = b[x];
            }
        }
    }
}

size_t glance_heif_icc_profile(glance_heif *file, uint8_t *out, size_t capacity) {
    size_t size = heif.icc_size(file->primary);
    if (size > 0 && out != NULL && size <= capacity) {
        if (heif.icc(file->primary, out).code != heif_error_Ok) return 0;
    }
    return size;
}

int glance_heif_nclx(glance_heif *file, int *primaries, int *transfer, double chromaticities[8]) {
    struct heif_color_profile_nclx *nclx = NULL;
    // libheif can fill in the profile and still answer an error (primaries it does not know):
    // the profile is freed either way.
    if (heif.nclx(file->primary, &nclx).code != heif_error_Ok || nclx == NULL) {
        if (nclx != NULL) heif.nclx_free(nclx);
        return 0;
    }
    *primaries = (int)nclx->color_primaries;
    *transfer = (int)nclx->transfer_characteristics;
    const float values[8] = {nclx->color_primary_white_x, nclx->color_primary_white_y,
                             nclx->color_primary_red_x,   nclx->color_primary_red_y,
                             nclx->color_primary_green_x, nclx->color_primary_green_y,
                             nclx->color_primary_blue_x,  nclx->color_primary_blue_y};
    for (int i = 0; i < 8; i++) chromaticities[i] = values[i];
    heif.nclx_free(nclx);
    return 1;
}

void glance_heif_close(glance_heif *file) {
    if (file == NULL) return;
    if (file->image != NULL) heif.image_release(file->image);
    if (file->thumbnail != NULL) heif.handle_release(file->thumbnail);
    if (file->primary != NULL) heif.handle_release(file->primary);
    if (file->context != NULL) heif.context_free(file->context);
    free(file->data);
    free(file);
}

// See include/glance_raw.h.
#define _GNU_SOURCE
#include "glance_raw.h"

#include <errno.h>
#include <libraw/libraw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "glance_library_loader.h"

/// LibRaw's functions, typed by its own header, found once and read-only after.
#define RAW_FUNCTIONS(X)                                          \
    GLANCE_TYPED(X, init, libraw_init)                            \
    GLANCE_TYPED(X, open_buffer, libraw_open_buffer)              \
    GLANCE_TYPED(X, unpack, libraw_unpack)                        \
    GLANCE_TYPED(X, unpack_thumb, libraw_unpack_thumb)            \
    GLANCE_TYPED(X, process, libraw_dcraw_process)                \
    GLANCE_TYPED(X, make_mem_image, libraw_dcraw_make_mem_image)  \
    GLANCE_TYPED(X, clear_mem, libraw_dcraw_clear_mem)            \
    GLANCE_TYPED(X, close, libraw_close)                          \
    GLANCE_TYPED(X, strerror, libraw_strerror)                    \
    GLANCE_TYPED(X, set_dataerror_handler, libraw_set_dataerror_handler)

/// The soname of Debian 12's LibRaw (0.20), the reentrant build: one state per handle.
GLANCE_LIBRARY(libraw, "libraw_r.so.20", RAW_FUNCTIONS, GLANCE_LIBRARY_NO_START)

int glance_raw_load(char *reason, size_t capacity) { return libraw_ensure(reason, capacity); }

struct glance_raw {
    libraw_data_t *data;
    void *mapping;
    size_t size;
    libraw_processed_image_t *developed;
};

static void copy_reason(char *reason, size_t capacity, const char *text) {
    if (reason != NULL && capacity > 0) snprintf(reason, capacity, "%s", text);
}

/// LibRaw's message for `code`, in its own words but without its trailing period.
static void libraw_reason(int code, char *reason, size_t capacity) {
    const char *text = libraw.strerror(code);
    copy_reason(reason, capacity, text != NULL ? text : "unknown LibRaw error");
    size_t length = reason != NULL ? strlen(reason) : 0;
    if (length > 0 && reason[length - 1] == '.') reason[length - 1] = 0;
}

/// LibRaw's default handler prints damaged data to stderr; damage is found by the return codes.
static void ignore_data_error(void *context, const char *file, const int offset) {
    (void)context;
    (void)file;
    (void)offset;
}

glance_raw *glance_raw_open(int fd, size_t size, unsigned max_memory_mb, char *reason, size_t capacity,
                            glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    if (size < 16) {
        *failure = GLANCE_FAILURE_TRUNCATED;
        copy_reason(reason, capacity, "the file is shorter than any raw header");
        return NULL;
    }
    void *mapping = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping == MAP_FAILED) {
        *failure = GLANCE_FAILURE_UNREADABLE;
        copy_reason(reason, capacity, strerror(errno));
        return NULL;
    }
    glance_raw *raw = calloc(1, sizeof *raw);
    libraw_data_t *data = raw != NULL ? libraw.init(LIBRAW_OPIONS_NO_DATAERR_CALLBACK) : NULL;
    if (data == NULL) {
        free(raw);
        munmap(mapping, size);
        *failure = GLANCE_FAILURE_UNREADABLE;
        copy_reason(reason, capacity, "out of memory starting LibRaw");
        return NULL;
    }
    raw->data = data;
    raw->mapping = mapping;
    raw->size = size;
    libraw.set_dataerror_handler(data, ignore_data_error, NULL);
    data->params.max_raw_memory_mb = max_memory_mb;
    // LibRaw reads the buffer only; its prototype predates const.
    int code = libraw.open_buffer(data, mapping, size);
    if (code != LIBRAW_SUCCESS) {
        libraw_reason(code, reason, capacity);
        if (code == LIBRAW_IO_ERROR) *failure = GLANCE_FAILURE_TRUNCATED;
        if (code == LIBRAW_NOT_IMPLEMENTED) *failure = GLANCE_FAILURE_UNSUPPORTED;
        glance_raw_close(raw);
        return NULL;
    }
    return raw;
}

void glance_raw_describe(glance_raw *raw, glance_raw_info *info) {
    libraw_data_t *data = raw->data;
    memset(info, 0, sizeof *info);
    info->width = data->sizes.width;
    info->height = data->sizes.height;
    info->raw_width = data->sizes.raw_width;
    info->raw_height = data->sizes.raw_height;
    info->flip = data->sizes.flip;
    // LibRaw names the preview's format only once it is unpacked; before, a preview with a
    // length is taken for the JPEG nearly every camera writes (glance_raw_preview_file checks).
    switch (data->thumbnail.tformat) {
    case LIBRAW_THUMBNAIL_JPEG: info->preview_format = 1; break;
    case LIBRAW_THUMBNAIL_BITMAP: info->preview_format = 2; break;
    default: info->preview_format = data->thumbnail.tlength > 0 ? 1 : 0; break;
    }
    info->preview_width = data->thumbnail.twidth;
    info->preview_height = data->thumbnail.theight;
    snprintf(info->make, sizeof info->make, "%s", data->idata.normalized_make[0] ? data->idata.normalized_make
                                                                                  : data->idata.make);
    snprintf(info->model, sizeof info->model, "%s", data->idata.normalized_model[0] ? data->idata.normalized_model
                                                                                    : data->idata.model);
    // LibRaw made the timestamp with mktime from the camera's wall clock: localtime turns it
    // back into the same wall clock, whatever the zone.
    time_t stamp = data->other.timestamp;
    struct tm clock;
    if (stamp > 0 && localtime_r(&stamp, &clock) != NULL) {
        info->year = clock.tm_year + 1900;
        info->month = clock.tm_mon + 1;
        info->day = clock.tm_mday;
        info->hour = clock.tm_hour;
        info->minute = clock.tm_min;
        info->second = clock.tm_sec;
    }
}

int glance_raw_preview(glance_raw *raw, const uint8_t **bytes, size_t *length, char *reason, size_t capacity,
                       glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    int code = libraw.unpack_thumb(raw->data);
    if (code != LIBRAW_SUCCESS) {
        libraw_reason(code, reason, capacity);
        return 0;
    }
    const libraw_thumbnail_t *preview = &raw->data->thumbnail;
    if (preview->tformat != LIBRAW_THUMBNAIL_JPEG || preview->thumb == NULL || preview->tlength < 4) {
        copy_reason(reason, capacity, "the embedded preview is not a JPEG");
        return 0;
    }
    // A preview that runs past the end of the file: LibRaw copied what there was into a buffer
    // of the declared length, whose tail is whatever that memory held (the same preview, freed by
    // an earlier document, as often as not). Where the preview's start is found in the file, its
    // declared length must fit there.
    size_t probe = preview->tlength < 256 ? preview->tlength : 256;
    const uint8_t *found = memmem(raw->mapping, raw->size, preview->thumb, probe);
    if (found != NULL && (size_t)(found - (const uint8_t *)raw->mapping) + preview->tlength > raw->size) {
        copy_reason(reason, capacity, "the embedded preview runs past the end of the file");
        *failure = GLANCE_FAILURE_TRUNCATED;
        return 0;
    }
    *bytes = (const uint8_t *)preview->thumb;
    *length = preview->tlength;
    return 1;
}

int glance_raw_develop(glance_raw *raw, int half_size, int *width, int *height, char *reason, size_t capacity) {
    libraw_data_t *data = raw->data;
    data->params.half_size = half_size ? 1 : 0;
    data->params.use_camera_wb = 1;
    data->params.output_color = 1; // sRGB
    data->params.output_bps = 8;
    data->params.user_qual = 0;  // bilinear: a thumbnail gains nothing from AHD's cost
    data->params.user_flip = 0;  // the pipeline turns the thumbnail, not LibRaw the whole image
    int code = libraw.unpack(data);
    if (code == LIBRAW_SUCCESS) code = libraw.process(data);
    if (code != LIBRAW_SUCCESS) {
        libraw_reason(code, reason, capacity);
        return 0;
    }
    libraw_processed_image_t *image = libraw.make_mem_image(data, &code);
    if (image == NULL || code != LIBRAW_SUCCESS) {
        libraw_reason(code != LIBRAW_SUCCESS ? code : LIBRAW_UNSPECIFIED_ERROR, reason, capacity);
        if (image != NULL) libraw.clear_mem(image);
        return 0;
    }
    if (image->type != LIBRAW_IMAGE_BITMAP || image->colors != 3 || image->bits != 8) {
        copy_reason(reason, capacity, "LibRaw developed an image other than 8-bit RGB");
        libraw.clear_mem(image);
        return 0;
    }
    raw->developed = image;
    *width = image->width;
    *height = image->height;
    return 1;
}

void glance_raw_read_rows(glance_raw *raw, int first_row, int count, uint8_t *out) {
    const libraw_processed_image_t *image = raw->developed;
    size_t stride = (size_t)image->width * 3;
    memcpy(out, image->data + (size_t)first_row * stride, stride * (size_t)count);
}

void glance_raw_close(glance_raw *raw) {
    if (raw == NULL) return;
    if (raw->developed != NULL) libraw.clear_mem(raw->developed);
    if (raw->data != NULL) libraw.close(raw->data);
    if (raw->mapping != NULL) munmap(raw->mapping, raw->size);
    free(raw);
}

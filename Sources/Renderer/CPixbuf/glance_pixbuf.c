// See include/glance_pixbuf.h.
#include "glance_pixbuf.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glance_library_loader.h"

typedef struct glance_pixbuf_gerror_layout glance_pixbuf_gerror;

#include "glance_pixbuf_functions.h"

GLANCE_LIBRARY(pixbuf, "libgdk_pixbuf-2.0.so.0", GLANCE_PIXBUF_FUNCTIONS, GLANCE_LIBRARY_NO_START)

/// gdk-pixbuf's GdkPixbufError codes CPixbuf tells apart.
enum { PIXBUF_ERROR_CORRUPT_IMAGE = 0, PIXBUF_ERROR_UNKNOWN_TYPE = 3, PIXBUF_ERROR_UNSUPPORTED_OPERATION = 4 };

/// How much is handed to the loader at a time.
enum { WRITE_CHUNK = 1 << 20 };

struct glance_pixbuf {
    void *pixbuf;
};

/// What the size-prepared handler sees and decides.
typedef struct {
    uint64_t max_pixels;
    int width, height;
    int announced, refused;
} size_check;

int glance_pixbuf_load(char *reason, size_t capacity) { return pixbuf_ensure(reason, capacity); }

static void say(char *reason, size_t capacity, const char *text) {
    if (reason != NULL && capacity > 0) snprintf(reason, capacity, "%s", text);
}

/// The message of `error` into `reason` (or `fallback`); frees it.
static void take_error(glance_pixbuf_gerror *error, const char *fallback, char *reason, size_t capacity) {
    say(reason, capacity, error != NULL && error->message != NULL ? error->message : fallback);
    if (error != NULL) pixbuf.error_free(error);
}

/// gdk-pixbuf's size-prepared signal: the header's size, before a pixel is allocated. Past the
/// limit, asking for a size of 0x0 makes every loader stop with an error.
static void size_prepared(void *loader, int width, int height, void *data) {
    size_check *check = data;
    check->width = width;
    check->height = height;
    check->announced = 1;
    if (width <= 0 || height <= 0 || (uint64_t)width * (uint64_t)height > check->max_pixels) {
        check->refused = 1;
        pixbuf.loader_set_size(loader, 0, 0);
    }
}

/// Why the decode failed, from the loader's `error` (freed) and what the size check saw.
static glance_failure failure_of(glance_pixbuf_gerror *error, const size_check *check, int closing, char *reason,
                                 size_t capacity) {
    if (check->refused) {
        if (error != NULL) pixbuf.error_free(error);
        if (reason != NULL && capacity > 0) snprintf(reason, capacity, "%dx%d", check->width, check->height);
        return GLANCE_FAILURE_TOO_LARGE;
    }
    int code = error != NULL ? error->code : PIXBUF_ERROR_CORRUPT_IMAGE;
    take_error(error, "gdk-pixbuf could not decode it", reason, capacity);
    if (code == PIXBUF_ERROR_UNSUPPORTED_OPERATION || code == PIXBUF_ERROR_UNKNOWN_TYPE) {
        return GLANCE_FAILURE_UNSUPPORTED;
    }
    // The data was all taken and the image is still not whole: the file ended early.
    return closing && check->announced ? GLANCE_FAILURE_TRUNCATED : GLANCE_FAILURE_CORRUPT;
}

glance_pixbuf *glance_pixbuf_decode(const char *format, const uint8_t *data, size_t size, uint64_t max_pixels,
                                    int *width, int *height, glance_failure *failure, char *reason,
                                    size_t capacity) {
    *failure = GLANCE_FAILURE_CORRUPT;
    if (!pixbuf_ensure(reason, capacity)) {
        *failure = GLANCE_FAILURE_UNSUPPORTED;
        return NULL;
    }
    glance_pixbuf_gerror *error = NULL;
    void *loader = pixbuf.loader_new_with_type(format, &error);
    if (loader == NULL) {
        take_error(error, "gdk-pixbuf has no loader for it", reason, capacity);
        *failure = GLANCE_FAILURE_UNSUPPORTED;
        return NULL;
    }
    size_check check = {max_pixels, 0, 0, 0, 0};
    pixbuf.signal_connect_data(loader, "size-prepared", (void (*)(void))size_prepared, &check, NULL, 0);
    int written = 1;
    for (size_t offset = 0; offset < size && written; offset += WRITE_CHUNK) {
        size_t count = size - offset < WRITE_CHUNK ? size - offset : WRITE_CHUNK;
        written = pixbuf.loader_write(loader, data + offset, count, &error);
    }
    if (!written) {
        *failure = failure_of(error, &check, 0, reason, capacity);
        glance_pixbuf_gerror *ignored = NULL;
        pixbuf.loader_close(loader, &ignored);
        if (ignored != NULL) pixbuf.error_free(ignored);
        pixbuf.object_unref(loader);
        return NULL;
    }
    int closed = pixbuf.loader_close(loader, &error);
    void *image = pixbuf.loader_get_pixbuf(loader);
    if (!closed || image == NULL || pixbuf.bits_per_sample(image) != 8) {
        if (closed && image != NULL) say(reason, capacity, "gdk-pixbuf gave samples of another depth than 8 bits");
        *failure = closed && image != NULL ? GLANCE_FAILURE_UNSUPPORTED : failure_of(error, &check, 1, reason, capacity);
        pixbuf.object_unref(loader);
        return NULL;
    }
    glance_pixbuf *result = malloc(sizeof *result);
    if (result == NULL) {
        say(reason, capacity, "out of memory");
        pixbuf.object_unref(loader);
        return NULL;
    }
    result->pixbuf = pixbuf.object_ref(image);
    pixbuf.object_unref(loader);
    *width = pixbuf.width(result->pixbuf);
    *height = pixbuf.height(result->pixbuf);
    return result;
}

const uint8_t *glance_pixbuf_pixels(const glance_pixbuf *image, int *channels, size_t *stride) {
    *channels = pixbuf.channels(image->pixbuf);
    *stride = (size_t)pixbuf.rowstride(image->pixbuf);
    return pixbuf.read_pixels(image->pixbuf);
}

void glance_pixbuf_free(glance_pixbuf *image) {
    if (image == NULL) return;
    pixbuf.object_unref(image->pixbuf);
    free(image);
}

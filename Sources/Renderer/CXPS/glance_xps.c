// See include/glance_xps.h.
#include "glance_xps.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glance_library_loader.h"

/// GLib's error as its header lays it out.
typedef struct {
    uint32_t domain;
    int code;
    char *message;
} glance_gerror;

/// libgxps's functions (and GIO's and GObject's, found through it), declared by hand with their
/// types erased (GFile, GXPSFile, GXPSDocument and GXPSPage are GObjects, cairo_t a context;
/// guint is unsigned int, gboolean int, gdouble double), looked up once.
#define XPS_FUNCTIONS(X)                                                                   \
    X(file_for_path, g_file_new_for_path, void *(const char *path))                       \
    X(object_unref, g_object_unref, void(void *object))                                   \
    X(error_free, g_error_free, void(glance_gerror * error))                              \
    X(file_new, gxps_file_new, void *(void *file, glance_gerror **error))                  \
    X(document_count, gxps_file_get_n_documents, unsigned int(void *xps))                  \
    X(document, gxps_file_get_document, void *(void *xps, unsigned int n, glance_gerror **error)) \
    X(page_count, gxps_document_get_n_pages, unsigned int(void *document))                 \
    X(page, gxps_document_get_page, void *(void *document, unsigned int n, glance_gerror **error)) \
    X(page_size, gxps_page_get_size, void(void *page, double *width, double *height))      \
    X(page_render, gxps_page_render, int(void *page, void *cairo, glance_gerror **error))

/// The soname: libgxps's ABI has been 2 since 0.2.
GLANCE_LIBRARY(xps, "libgxps.so.2", XPS_FUNCTIONS, GLANCE_LIBRARY_NO_START)

int glance_xps_load(char *reason, size_t capacity) { return xps_ensure(reason, capacity); }

struct glance_xps {
    void *file;
    void *document;
};

/// Copies `error`'s message into `reason` and frees it.
static void take_error(glance_gerror *error, const char *fallback, char *reason, size_t capacity) {
    snprintf(reason, capacity, "%s", error != NULL && error->message != NULL ? error->message : fallback);
    if (error != NULL) xps.error_free(error);
}

glance_xps *glance_xps_open(int fd, int *pages, char *reason, size_t capacity) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    glance_xps *package = calloc(1, sizeof *package);
    if (package == NULL) {
        snprintf(reason, capacity, "out of memory");
        return NULL;
    }
    void *name = xps.file_for_path(path);
    glance_gerror *error = NULL;
    package->file = name != NULL ? xps.file_new(name, &error) : NULL;
    if (name != NULL) xps.object_unref(name);
    if (package->file == NULL) {
        take_error(error, "libgxps could not open the package", reason, capacity);
        glance_xps_close(package);
        return NULL;
    }
    if (xps.document_count(package->file) == 0 ||
        (package->document = xps.document(package->file, 0, &error)) == NULL) {
        take_error(error, "the package holds no fixed document", reason, capacity);
        glance_xps_close(package);
        return NULL;
    }
    *pages = (int)xps.page_count(package->document);
    if (*pages <= 0) {
        snprintf(reason, capacity, "its document has no pages");
        glance_xps_close(package);
        return NULL;
    }
    return package;
}

int glance_xps_page_size(glance_xps *package, int index, double *width, double *height, char *reason,
                         size_t capacity) {
    glance_gerror *error = NULL;
    void *page = xps.page(package->document, (unsigned int)index, &error);
    if (page == NULL) {
        take_error(error, "the page cannot be read", reason, capacity);
        return 0;
    }
    double w = 0, h = 0;
    xps.page_size(page, &w, &h);
    xps.object_unref(page);
    *width = w * 72 / 96;
    *height = h * 72 / 96;
    return 1;
}

int glance_xps_render(glance_xps *package, int index, void *cairo, char *reason, size_t capacity) {
    glance_gerror *error = NULL;
    void *page = xps.page(package->document, (unsigned int)index, &error);
    if (page == NULL) {
        take_error(error, "the page cannot be read", reason, capacity);
        return 0;
    }
    int drawn = xps.page_render(page, cairo, &error);
    xps.object_unref(page);
    if (!drawn) {
        take_error(error, "libgxps could not draw the page", reason, capacity);
        return 0;
    }
    return 1;
}

void glance_xps_close(glance_xps *package) {
    if (package == NULL) return;
    if (package->document != NULL) xps.object_unref(package->document);
    if (package->file != NULL) xps.object_unref(package->file);
    free(package);
}

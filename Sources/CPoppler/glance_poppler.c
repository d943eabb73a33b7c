// See include/glance_poppler.h.
#include "glance_poppler.h"

#include <pthread.h>
#include <stdio.h>

#include "glance_library_loader.h"

/// The library's soname: poppler-glib's ABI has been 8 since poppler 0.18 (2011).
static const char library_name[] = "libpoppler-glib.so.8";

/// poppler-glib's functions, found once by `load_library` and read-only after it.
static struct {
    void *(*document_new_from_fd)(int fd, const char *password, void **error);
    int (*document_get_n_pages)(void *document);
    void *(*document_get_page)(void *document, int index);
    void (*page_get_size)(void *page, double *width, double *height);
    void (*page_render)(void *page, void *cairo);
    uint32_t (*error_quark)(void);
} poppler;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
/// Why the library is not ready, when it is not.
static char load_failure[512];

static void load_library(void) {
    // Lazy binding matters here: of poppler's thousands of symbols, a render needs a few hundred.
    static const char *const names[] = {
        "poppler_document_new_from_fd", "poppler_document_get_n_pages", "poppler_document_get_page",
        "poppler_page_get_size",        "poppler_page_render",          "poppler_error_quark",
    };
    void **const slots[] = {
        (void **)&poppler.document_new_from_fd, (void **)&poppler.document_get_n_pages,
        (void **)&poppler.document_get_page,    (void **)&poppler.page_get_size,
        (void **)&poppler.page_render,          (void **)&poppler.error_quark,
    };
    loaded = glance_library_load(library_name, names, slots, sizeof names / sizeof names[0], load_failure,
                                 sizeof load_failure);
}

int glance_poppler_load(char *reason, size_t capacity) {
    pthread_once(&load_once, load_library);
    if (!loaded && reason != NULL && capacity > 0) snprintf(reason, capacity, "%s", load_failure);
    return loaded;
}

void *glance_poppler_document_new_from_fd(int fd, void **error) {
    return poppler.document_new_from_fd(fd, NULL, error);
}

int glance_poppler_document_get_n_pages(void *document) { return poppler.document_get_n_pages(document); }

void *glance_poppler_document_get_page(void *document, int index) {
    return poppler.document_get_page(document, index);
}

void glance_poppler_page_get_size(void *page, double *width, double *height) {
    poppler.page_get_size(page, width, height);
}

void glance_poppler_page_render(void *page, void *cairo) { poppler.page_render(page, cairo); }

uint32_t glance_poppler_error_quark(void) { return poppler.error_quark(); }

// See include/glance_poppler.h.
#include "glance_poppler.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "glance_library_loader.h"

// poppler-glib's types, erased (this target sees no GLib headers): glance_poppler_functions.h
// uses these names, which the tests' ABI check defines as the real types instead.
typedef void glance_poppler_document;
typedef void glance_poppler_page;
typedef void glance_gerror;
typedef void glance_cairo;

#include "glance_poppler_functions.h"

// poppler-glib's functions, found once and read-only after. The soname: poppler-glib's ABI has
// been 8 since poppler 0.18 (2011). The loader binds lazily, which matters here: of poppler's
// thousands of symbols, a render needs a few hundred.
GLANCE_LIBRARY(poppler, "libpoppler-glib.so.8", GLANCE_POPPLER_FUNCTIONS, GLANCE_LIBRARY_NO_START)

int glance_poppler_load(char *reason, size_t capacity) { return poppler_ensure(reason, capacity); }

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

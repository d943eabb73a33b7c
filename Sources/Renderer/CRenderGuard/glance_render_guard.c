// See include/glance_render_guard.h.
#define _GNU_SOURCE
#include "glance_render_guard.h"

#include <dlfcn.h>
#include <stdlib.h>

// cairo's types, declared here rather than through cairo.h: this target is a plain C target and
// gets no pkg-config include paths. An enum is passed as an int in the x86-64 and AArch64 ABIs.
typedef struct _cairo_surface cairo_surface_t;
typedef cairo_surface_t *(*image_surface_create)(int format, int width, int height);
extern int cairo_surface_status(cairo_surface_t *surface);

// One counter per thread: a worker renders on one thread, and threads never share a page.
static _Thread_local unsigned failed_surfaces = 0;

cairo_surface_t *cairo_image_surface_create(int format, int width, int height) {
    // dlsym is thread-safe and cheap after the first call; the result never changes, so a race
    // between two first calls stores the same pointer twice.
    static image_surface_create real = NULL;
    if (real == NULL) {
        real = (image_surface_create)dlsym(RTLD_NEXT, "cairo_image_surface_create");
        if (real == NULL) abort();
    }
    cairo_surface_t *surface = real(format, width, height);
    if (cairo_surface_status(surface) != 0) failed_surfaces++;
    return surface;
}

unsigned glance_take_failed_surface_count(void) {
    unsigned count = failed_surfaces;
    failed_surfaces = 0;
    return count;
}

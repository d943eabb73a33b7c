// See include/glance_svg.h.
#include "glance_svg.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "glance_library_loader.h"

static const char library_name[] = "librsvg-2.so.2";

/// GLib's GError: its layout is GLib's stable ABI (a quark, a code, a message).
typedef struct {
    uint32_t domain;
    int code;
    char *message;
} glance_gerror;

/// librsvg's RsvgRectangle and RsvgLength, as its header lays them out.
typedef struct {
    double x, y, width, height;
} glance_rsvg_rectangle;

typedef struct {
    double length;
    int unit;
} glance_rsvg_length;

/// librsvg's functions (and two of GLib's, found through it), looked up once.
static struct {
    void *(*new_from_data)(const unsigned char *data, size_t size, glance_gerror **error);
    int (*intrinsic_size_in_pixels)(void *handle, double *width, double *height);
    void (*intrinsic_dimensions)(void *handle, int *has_width, glance_rsvg_length *width, int *has_height,
                                 glance_rsvg_length *height, int *has_viewbox, glance_rsvg_rectangle *viewbox);
    int (*render_document)(void *handle, void *cairo, const glance_rsvg_rectangle *viewport, glance_gerror **error);
    void (*set_dpi)(void *handle, double dpi);
    void (*object_unref)(void *object);
    void (*error_free)(glance_gerror *error);
} rsvg;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_failure[512];

static void load_library(void) {
    static const char *const names[] = {
        "rsvg_handle_new_from_data", "rsvg_handle_get_intrinsic_size_in_pixels",
        "rsvg_handle_get_intrinsic_dimensions", "rsvg_handle_render_document",
        "rsvg_handle_set_dpi", "g_object_unref", "g_error_free",
    };
    void **const slots[] = {
        (void **)&rsvg.new_from_data,   (void **)&rsvg.intrinsic_size_in_pixels,
        (void **)&rsvg.intrinsic_dimensions, (void **)&rsvg.render_document,
        (void **)&rsvg.set_dpi,         (void **)&rsvg.object_unref,
        (void **)&rsvg.error_free,
    };
    loaded = glance_library_load(library_name, names, slots, sizeof names / sizeof names[0], load_failure,
                                 sizeof load_failure);
}

int glance_svg_load(char *reason, size_t capacity) {
    pthread_once(&load_once, load_library);
    if (!loaded && reason != NULL && capacity > 0) snprintf(reason, capacity, "%s", load_failure);
    return loaded;
}

/// Copies `error`'s message into `reason` and frees it.
static void take_error(glance_gerror *error, const char *fallback, char *reason, size_t capacity) {
    if (reason != NULL && capacity > 0) {
        snprintf(reason, capacity, "%s", error != NULL && error->message != NULL ? error->message : fallback);
    }
    if (error != NULL) rsvg.error_free(error);
}

void *glance_svg_open(const unsigned char *data, size_t size, char *reason, size_t capacity) {
    glance_gerror *error = NULL;
    void *handle = rsvg.new_from_data(data, size, &error);
    if (handle == NULL) {
        take_error(error, "librsvg could not read it", reason, capacity);
        return NULL;
    }
    if (error != NULL) rsvg.error_free(error);
    rsvg.set_dpi(handle, 96.0);
    return handle;
}

int glance_svg_intrinsic_size(void *svg, double *width, double *height) {
    if (rsvg.intrinsic_size_in_pixels(svg, width, height) && *width > 0 && *height > 0) return 1;
    int has_width = 0, has_height = 0, has_viewbox = 0;
    glance_rsvg_length w = {0, 0}, h = {0, 0};
    glance_rsvg_rectangle viewbox = {0, 0, 0, 0};
    rsvg.intrinsic_dimensions(svg, &has_width, &w, &has_height, &h, &has_viewbox, &viewbox);
    if (has_viewbox && viewbox.width > 0 && viewbox.height > 0) {
        *width = viewbox.width;
        *height = viewbox.height;
        return 1;
    }
    return 0;
}

int glance_svg_render(void *svg, void *cairo, double width, double height, char *reason, size_t capacity) {
    glance_rsvg_rectangle viewport = {0, 0, width, height};
    glance_gerror *error = NULL;
    if (!rsvg.render_document(svg, cairo, &viewport, &error)) {
        take_error(error, "librsvg could not draw it", reason, capacity);
        return 0;
    }
    if (error != NULL) rsvg.error_free(error);
    return 1;
}

void glance_svg_free(void *svg) {
    if (svg != NULL) rsvg.object_unref(svg);
}

// See include/glance_svg.h.
#include "glance_svg.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "glance_library_loader.h"
#include "glance_svg_functions.h"

// librsvg's and GLib's types as this file knows them (glance_svg_functions.h uses these names,
// which the tests' ABI check defines as the real types instead): a handle is a GObject, erased,
// as is cairo's context; the structs it reads are laid out as their headers lay them out.
typedef void glance_rsvg_handle;
typedef void glance_cairo;
typedef struct glance_gerror_layout glance_gerror;
typedef struct glance_rsvg_rectangle_layout glance_rsvg_rectangle;
typedef struct glance_rsvg_length_layout glance_rsvg_length;

/// librsvg's functions (and two of GLib's, found through it), looked up once.
GLANCE_LIBRARY(rsvg, "librsvg-2.so.2", GLANCE_SVG_FUNCTIONS, GLANCE_LIBRARY_NO_START)

int glance_svg_load(char *reason, size_t capacity) { return rsvg_ensure(reason, capacity); }

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

// The librsvg functions CSVG uses (and two of GLib's, found through it), as one list (see
// GLANCE_LIBRARY in glance_library_loader.h): X(field, symbol, type). The types are written with
// names the includer defines: CSVG erases the objects to `void` and lays out the structs it reads
// as below (it sees no GLib headers), and the tests' ABI check (Tests/Renderer/CRenderABICheck) defines
// them as librsvg's, GLib's and cairo's own types, so that each type here is held against
// librsvg's header, and each layout below against the real struct's.
#ifndef GLANCE_SVG_FUNCTIONS_H
#define GLANCE_SVG_FUNCTIONS_H

#include <stdint.h>

/// GLib's GError, as CSVG reads it: its layout is GLib's stable ABI (a quark, a code, a message).
struct glance_gerror_layout {
    uint32_t domain;
    int code;
    char *message;
};

/// librsvg's RsvgRectangle.
struct glance_rsvg_rectangle_layout {
    double x, y, width, height;
};

/// librsvg's RsvgLength (its unit an RsvgUnit, an enum).
struct glance_rsvg_length_layout {
    double length;
    int unit;
};

// glance_rsvg_handle is RsvgHandle, glance_gerror GError, glance_rsvg_length RsvgLength,
// glance_rsvg_rectangle RsvgRectangle and glance_cairo cairo_t; guint8, gsize, gboolean and
// gdouble are unsigned char, size_t, int and double, and gpointer is void *.
#define GLANCE_SVG_FUNCTIONS(X)                                                                    \
    X(new_from_data, rsvg_handle_new_from_data,                                                    \
      glance_rsvg_handle *(const unsigned char *data, size_t size, glance_gerror **error))         \
    X(intrinsic_size_in_pixels, rsvg_handle_get_intrinsic_size_in_pixels,                          \
      int(glance_rsvg_handle *handle, double *width, double *height))                              \
    X(intrinsic_dimensions, rsvg_handle_get_intrinsic_dimensions,                                  \
      void(glance_rsvg_handle *handle, int *has_width, glance_rsvg_length *width, int *has_height, \
           glance_rsvg_length *height, int *has_viewbox, glance_rsvg_rectangle *viewbox))          \
    X(render_document, rsvg_handle_render_document,                                                \
      int(glance_rsvg_handle *handle, glance_cairo *cairo, const glance_rsvg_rectangle *viewport,  \
          glance_gerror **error))                                                                  \
    X(set_dpi, rsvg_handle_set_dpi, void(glance_rsvg_handle *handle, double dpi))                  \
    X(object_unref, g_object_unref, void(void *object))                                            \
    X(error_free, g_error_free, void(glance_gerror *error))

#endif

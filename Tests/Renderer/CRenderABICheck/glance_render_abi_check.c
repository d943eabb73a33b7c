// CPoppler and CSVG load poppler-glib and librsvg on first use and declare the functions they call
// for themselves, with GLib's types erased, so that glance needs neither library's headers. Each
// keeps those declarations as one list (glance_poppler_functions.h, glance_svg_functions.h) whose
// types are written with names the includer defines. This file, built with the tests only, defines
// those names as the real types and holds each function's type in the lists against the libraries'
// own headers, and each struct CSVG reads against the real one: a mismatch does not compile.
#include "glance_render_abi_check.h"

#include <librsvg/rsvg.h>
#include <poppler.h>
#include <stddef.h>
#include <stdint.h>

typedef PopplerDocument glance_poppler_document;
typedef PopplerPage glance_poppler_page;
typedef GError glance_gerror;
typedef cairo_t glance_cairo;
typedef RsvgHandle glance_rsvg_handle;
typedef RsvgLength glance_rsvg_length;
typedef RsvgRectangle glance_rsvg_rectangle;

#include "glance_poppler_functions.h"
#include "glance_svg_functions.h"

/// The X of a list that asserts that the type the list gives `symbol` is the header's.
#define GLANCE_CHECK_TYPE(field, symbol, type) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(symbol), type), #symbol);

GLANCE_POPPLER_FUNCTIONS(GLANCE_CHECK_TYPE)
GLANCE_SVG_FUNCTIONS(GLANCE_CHECK_TYPE)

// The structs CSVG reads through its own layouts.
_Static_assert(sizeof(GError) == sizeof(struct glance_gerror_layout), "GError's size");
_Static_assert(offsetof(GError, domain) == offsetof(struct glance_gerror_layout, domain), "GError.domain");
_Static_assert(offsetof(GError, code) == offsetof(struct glance_gerror_layout, code), "GError.code");
_Static_assert(offsetof(GError, message) == offsetof(struct glance_gerror_layout, message), "GError.message");
_Static_assert(sizeof(GQuark) == sizeof(uint32_t) && sizeof(gint) == sizeof(int), "GQuark and gint");
_Static_assert(sizeof(RsvgRectangle) == sizeof(struct glance_rsvg_rectangle_layout), "RsvgRectangle's size");
_Static_assert(offsetof(RsvgRectangle, x) == offsetof(struct glance_rsvg_rectangle_layout, x), "RsvgRectangle.x");
_Static_assert(offsetof(RsvgRectangle, y) == offsetof(struct glance_rsvg_rectangle_layout, y), "RsvgRectangle.y");
_Static_assert(offsetof(RsvgRectangle, width) == offsetof(struct glance_rsvg_rectangle_layout, width),
               "RsvgRectangle.width");
_Static_assert(offsetof(RsvgRectangle, height) == offsetof(struct glance_rsvg_rectangle_layout, height),
               "RsvgRectangle.height");
_Static_assert(sizeof(RsvgLength) == sizeof(struct glance_rsvg_length_layout), "RsvgLength's size");
_Static_assert(offsetof(RsvgLength, length) == offsetof(struct glance_rsvg_length_layout, length),
               "RsvgLength.length");
_Static_assert(offsetof(RsvgLength, unit) == offsetof(struct glance_rsvg_length_layout, unit), "RsvgLength.unit");
_Static_assert(sizeof(RsvgUnit) == sizeof(int), "RsvgUnit is an int");

int glance_poppler_header_version(void) {
    return POPPLER_MAJOR_VERSION * 10000 + POPPLER_MINOR_VERSION * 100 + POPPLER_MICRO_VERSION;
}

int glance_rsvg_header_version(void) {
    return LIBRSVG_MAJOR_VERSION * 10000 + LIBRSVG_MINOR_VERSION * 100 + LIBRSVG_MICRO_VERSION;
}

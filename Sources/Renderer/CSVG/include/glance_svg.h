// SVG through librsvg (Debian's librsvg2-dev), loaded the first time an SVG comes: librsvg brings
// its Rust runtime, libxml2 and gdk-pixbuf's loaders into a process, which a batch without an SVG
// should not map. Its types are erased to pointers here, as CPoppler's are (this target sees no
// glib headers): a handle is a GObject, `cairo` a `cairo_t *`.
//
// What an SVG may reach: a document is read from memory with no base file, so librsvg resolves
// no relative reference and loads no file or URL (it loads only `data:` URLs without a base);
// the renderer's sandbox has no sockets and sees the file system read-only (bubblewrap: /usr and
// the few files fontconfig needs), as a second wall.
#ifndef GLANCE_SVG_H
#define GLANCE_SVG_H

#include <stddef.h>

/// Loads librsvg (`librsvg-2.so.2`, its ABI since 2.0) once per process. Returns 1 when ready,
/// else 0 with the loader's reason in `reason`.
int glance_svg_load(char *reason, size_t capacity);

/// Parses the SVG (or gzip-compressed SVG) in `data`, with librsvg's limits on the size of the
/// XML and the number of elements kept. Returns a handle that glance_svg_free frees, or NULL with
/// librsvg's reason in `reason`.
void *glance_svg_open(const unsigned char *data, size_t size, char *reason, size_t capacity);

/// The SVG's intrinsic size in pixels at 96 dpi: its width and height when both are absolute
/// lengths, else its viewBox's. Returns 1, or 0 when it has neither (a size the caller chooses).
int glance_svg_intrinsic_size(void *svg, double *width, double *height);

/// Draws the whole document into `width` x `height` pixels of `cairo` (fitted, its aspect kept).
/// Returns 1, or 0 with librsvg's reason in `reason`.
int glance_svg_render(void *svg, void *cairo, double width, double height, char *reason, size_t capacity);

/// Frees a handle from glance_svg_open.
void glance_svg_free(void *svg);

#endif

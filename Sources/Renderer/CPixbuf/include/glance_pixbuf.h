// The simple raster formats (BMP, ICO and CUR, TGA, PNM, the older icns pictures) through
// gdk-pixbuf's loaders (Debian's libgdk-pixbuf-2.0-0, which librsvg already brings), loaded on the
// first such file, with that format's loader module. Only the loader of the format sniffed is
// asked for, by name: gdk-pixbuf's own guess among all its loaders is never used.
#ifndef GLANCE_PIXBUF_H
#define GLANCE_PIXBUF_H

#include <stddef.h>
#include <stdint.h>

#include "glance_failure.h"

/// A decoded image: gdk-pixbuf's pixels, 8 bits a sample, RGB or RGBA (not premultiplied).
typedef struct glance_pixbuf glance_pixbuf;

/// Loads gdk-pixbuf (once per process). Returns 1, or 0 with the reason in `reason`.
int glance_pixbuf_load(char *reason, size_t capacity);

/// Decodes `data` (`size` bytes) with gdk-pixbuf's loader for `format`. The size the header
/// declares is held to `max_pixels` when the loader announces it, before it allocates a pixel:
/// past it, the decode stops with GLANCE_FAILURE_TOO_LARGE and `reason` WIDTHxHEIGHT. On success
/// returns the image (freed with glance_pixbuf_free) and its size in `width` and `height`; else
/// NULL, with why in `failure` and `reason` (a file that ends early is GLANCE_FAILURE_TRUNCATED).
glance_pixbuf *glance_pixbuf_decode(const char *format, const uint8_t *data, size_t size, uint64_t max_pixels,
                                    int *width, int *height, glance_failure *failure, char *reason, size_t capacity);

/// The image's rows: `channels` (3 or 4) bytes a pixel, rows `stride` bytes apart.
const uint8_t *glance_pixbuf_pixels(const glance_pixbuf *image, int *channels, size_t *stride);

/// Frees an image from glance_pixbuf_decode (NULL is ignored).
void glance_pixbuf_free(glance_pixbuf *image);

#endif

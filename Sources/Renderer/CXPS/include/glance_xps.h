// XPS and OpenXPS through libgxps (Debian's libgxps-dev), loaded the first time such a file
// comes. Its GLib and GIO types are erased here (a handle is a pointer), as CSVG erases
// librsvg's: this module needs none of their headers.
#ifndef GLANCE_XPS_H
#define GLANCE_XPS_H

#include <stddef.h>

/// Loads libgxps (`libgxps.so.2`) once per process; later calls return the first call's result.
/// Returns 1 when ready, else 0 with the reason in `reason`.
int glance_xps_load(char *reason, size_t capacity);

/// An open XPS package's first document (opaque).
typedef struct glance_xps glance_xps;

/// Opens the XPS package at descriptor `fd` (a file of the document's bytes in memory, reached
/// by its /proc/self/fd name: libgxps reads through GIO, which takes names, not descriptors) and
/// its first fixed document. Returns NULL with libgxps's reason; else the package, its page
/// count in `*pages`.
glance_xps *glance_xps_open(int fd, int *pages, char *reason, size_t capacity);

/// Page `index`'s (from 0) size in points (libgxps gives 1/96 inch; converted). Returns 1, or 0
/// with the reason.
int glance_xps_page_size(glance_xps *xps, int index, double *width, double *height, char *reason, size_t capacity);

/// Draws page `index` on the cairo context `cairo` (scaled by the caller to fit the page in its
/// surface). Returns 1, or 0 with libgxps's reason.
int glance_xps_render(glance_xps *xps, int index, void *cairo, char *reason, size_t capacity);

/// Frees the package and its document.
void glance_xps_close(glance_xps *xps);

#endif

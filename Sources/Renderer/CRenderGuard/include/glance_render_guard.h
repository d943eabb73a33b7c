// C shim that notices what poppler's cairo output device drops in silence.
#ifndef GLANCE_RENDER_GUARD_H
#define GLANCE_RENDER_GUARD_H

/// How many cairo image surfaces could not be created on this thread since the last call (the
/// count is then reset to 0).
///
/// Why: poppler draws a PDF image by first making a cairo surface of the image's full size, and
/// when that fails (a 20000x20000 image under the worker's memory limit) it skips the image
/// without a word, so a page would be stored as a good, blank thumbnail. This shim defines
/// `cairo_image_surface_create` in the executable, which the dynamic linker then binds
/// poppler's calls to; it calls cairo's own function (dlsym RTLD_NEXT) and counts the failures,
/// so that the PDF renderer can refuse a page that was not drawn in full.
unsigned glance_take_failed_surface_count(void);

#endif

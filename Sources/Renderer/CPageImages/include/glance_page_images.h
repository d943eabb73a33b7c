// C shim that reduces the images poppler draws on a page to the page's pixels before cairo
// paints them.
#ifndef GLANCE_PAGE_IMAGES_H
#define GLANCE_PAGE_IMAGES_H

#include <stdbool.h>

/// Whether images are reduced on this thread (the default), and how many were since the last
/// call to ``glance_page_images_take_reduced_count``.
///
/// Why: poppler draws a PDF image by making a cairo surface of the image's full size (a photo of
/// 2400x1800 pixels) and painting it through a pattern with cairo's GOOD filter, scaled to the
/// page's thumbnail. For a reduction by s, pixman then runs a separable convolution that weighs
/// about (s+1)x(s+1) source pixels for each output pixel, one pixel at a time with bounds checks:
/// measured, about 30% of a worker's time on the benchmark's PDFs. This shim defines
/// `cairo_set_source` in the executable, which the dynamic linker then binds poppler's calls to.
/// When the new source is an image pattern (padded at its edges) that the current
/// transformation reduces by 2x or more on both axes without rotating it, it averages the image
/// over each device pixel's footprint (the box filter cairo's GOOD filter is made of, in two
/// separable passes, each source row filtered once) into a new image aligned to the device's
/// pixels, and sets that instead, which cairo then copies. Anything else (other patterns,
/// rotated, tiled or enlarged images, masks) passes through untouched.
void glance_page_images_set_reducing(bool enabled);

/// How many images were reduced on this thread since the last call (the count is then reset).
unsigned glance_page_images_take_reduced_count(void);

#endif

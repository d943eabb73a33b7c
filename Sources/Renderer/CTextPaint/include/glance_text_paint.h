// Compositing of glyph coverage onto gray paper, for text pages that Glance draws itself (see
// GlanceRender's TextGlyphPainter). Kept in C so that the compiler vectorises the per-pixel
// arithmetic.
#ifndef GLANCE_TEXT_PAINT_H
#define GLANCE_TEXT_PAINT_H

#include <stddef.h>
#include <stdint.h>

/// Composites `height` rows of `width` coverage bytes (`coverage_stride` apart) in gray `ink`
/// over the gray pixels at `target` (`target_stride` apart): pixman's OVER of a solid colour
/// through an 8-bit mask, `ink * m / 255 + pixel * (255 - m) / 255`, each product rounded as
/// pixman rounds it. A zero coverage leaves the pixel as it was.
void glance_composite_coverage(uint8_t *target, size_t target_stride, const uint8_t *coverage,
                               size_t coverage_stride, int width, int height, uint8_t ink);

#endif

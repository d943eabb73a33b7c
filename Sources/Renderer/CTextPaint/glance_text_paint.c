#include "glance_text_paint.h"

/// a * b / 255, rounded as pixman's MUL_UN8 rounds it (exact for every pair of bytes).
static inline uint32_t multiply(uint32_t a, uint32_t b) {
    uint32_t t = a * b + 0x80;
    return ((t >> 8) + t) >> 8;
}

void glance_composite_coverage(uint8_t *target, size_t target_stride, const uint8_t *coverage,
                               size_t coverage_stride, int width, int height, uint8_t ink) {
    for (int y = 0; y < height; y++) {
        uint8_t *pixels = target + (size_t)y * target_stride;
        const uint8_t *masks = coverage + (size_t)y * coverage_stride;
        // No branch on a zero mask: multiply(p, 255) is p, so the loop vectorises.
        for (int x = 0; x < width; x++) {
            uint32_t mask = masks[x];
            uint32_t value = multiply(ink, mask) + multiply(pixels[x], 255 - mask);
            pixels[x] = (uint8_t)(value > 255 ? 255 : value);
        }
    }
}

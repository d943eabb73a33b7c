// Halving: each target pixel the mean of a 2x2 block of the source (an exact box filter).
//
// The store's smaller sizes are made from the 1024 thumbnail, which the Lanczos scaler already
// made free of aliasing; where a size is exactly half (1024 -> 512 -> 256 of most pages and
// photos), averaging 2x2 blocks costs a fraction of a Lanczos pass (one add a source byte, no
// filter tables). Measured against pdftoppm's own 512-pixel drawing of the bench's PDF pages, the
// halved 1024 scored SSIM 0.963 on a photo page (Lanczos to 512: 0.959) and 0.799 on a text page
// (Lanczos: 0.810); on the bench's 40 text documents generating the 256 and 512 took about a
// third of the worker's time through the Lanczos scaler.
#include "glance_scaler.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// One target row of `channels` (a constant in each caller below, so that the compiler unrolls
/// and vectorises the sum): `whole` full 2x2 blocks, then a last half block when the width is odd.
static inline void halve_row(const uint8_t *top, const uint8_t *bottom, int width, int channels, uint8_t *out) {
    int whole = width / 2;
    for (int x = 0; x < whole; x++) {
        const uint8_t *a = top + 2 * channels * x, *b = bottom + 2 * channels * x;
        for (int c = 0; c < channels; c++) {
            out[channels * x + c] = (uint8_t)((a[c] + a[c + channels] + b[c] + b[c + channels] + 2) >> 2);
        }
    }
    if (width % 2) {
        const uint8_t *a = top + 2 * channels * whole, *b = bottom + 2 * channels * whole;
        for (int c = 0; c < channels; c++) out[channels * whole + c] = (uint8_t)((a[c] + b[c] + 1) >> 1);
    }
}

/// A gray row: sixteen target pixels at a time with SSE2 (part of every x86-64), then the rest as
/// halve_row does, the same bytes. With halve_row alone (as the compiler vectorised it), the
/// halvings were 2.8% of a text batch's samples (perf, the small bench corpus's 40 texts 24
/// times over); with this, 0.8%.
static void halve_gray_row(const uint8_t *top, const uint8_t *bottom, int width, uint8_t *out) {
    int done = 0;
#if defined(__SSE2__)
    const __m128i low_bytes = _mm_set1_epi16(0x00FF), two = _mm_set1_epi16(2);
    // Each 16-bit lane: the sum of a horizontal pair of bytes (the even byte and the odd one).
    #define PAIR_SUMS(v) _mm_add_epi16(_mm_and_si128((v), low_bytes), _mm_srli_epi16((v), 8))
    for (; done + 16 <= width / 2; done += 16) {
        const uint8_t *a = top + 2 * done, *b = bottom + 2 * done;
        __m128i a0 = _mm_loadu_si128((const __m128i *)(const void *)a);
        __m128i a1 = _mm_loadu_si128((const __m128i *)(const void *)(a + 16));
        __m128i b0 = _mm_loadu_si128((const __m128i *)(const void *)b);
        __m128i b1 = _mm_loadu_si128((const __m128i *)(const void *)(b + 16));
        __m128i first = _mm_srli_epi16(_mm_add_epi16(_mm_add_epi16(PAIR_SUMS(a0), PAIR_SUMS(b0)), two), 2);
        __m128i second = _mm_srli_epi16(_mm_add_epi16(_mm_add_epi16(PAIR_SUMS(a1), PAIR_SUMS(b1)), two), 2);
        _mm_storeu_si128((__m128i *)(void *)(out + done), _mm_packus_epi16(first, second));
    }
    #undef PAIR_SUMS
#endif
    halve_row(top + 2 * done, bottom + 2 * done, width - 2 * done, 1, out + done);
}

static void halve_rgb_row(const uint8_t *top, const uint8_t *bottom, int width, uint8_t *out) {
    halve_row(top, bottom, width, 3, out);
}

/// RGBA weighted by alpha, so that a transparent pixel's colour does not bleed into its
/// neighbours' (the same reason the Lanczos scaler premultiplies).
static void halve_rgba_row(const uint8_t *top, const uint8_t *bottom, int width, uint8_t *out) {
    int half_width = (width + 1) / 2;
    for (int x = 0; x < half_width; x++) {
        int left = 2 * x, right = 2 * x + 1 < width ? 2 * x + 1 : 2 * x;
        const uint8_t *p[4] = {top + 4 * left, top + 4 * right, bottom + 4 * left, bottom + 4 * right};
        unsigned alpha = p[0][3] + p[1][3] + p[2][3] + p[3][3];
        for (int c = 0; c < 3; c++) {
            unsigned weighted = p[0][c] * p[0][3] + p[1][c] * p[1][3] + p[2][c] * p[2][3] + p[3][c] * p[3][3];
            out[4 * x + c] = alpha == 0 ? 0 : (uint8_t)((weighted + alpha / 2) / alpha);
        }
        out[4 * x + 3] = (uint8_t)((alpha + 2) / 4);
    }
}

void glance_halve(const uint8_t *source, int width, int height, size_t stride, int channels, uint8_t *target) {
    int half_width = (width + 1) / 2;
    int half_height = (height + 1) / 2;
    size_t target_stride = (size_t)half_width * (size_t)channels;
    for (int y = 0; y < half_height; y++) {
        const uint8_t *top = source + (size_t)(2 * y) * stride;
        // An odd last row is averaged with itself.
        const uint8_t *bottom = 2 * y + 1 < height ? top + stride : top;
        uint8_t *out = target + (size_t)y * target_stride;
        switch (channels) {
        case 1: halve_gray_row(top, bottom, width, out); break;
        case 3: halve_rgb_row(top, bottom, width, out); break;
        default: halve_rgba_row(top, bottom, width, out); break;
        }
    }
}

/// One channel of a cairo word (`shift` 16 red, 8 green, 0 blue).
static inline unsigned word_channel(uint32_t word, int shift) { return (word >> shift) & 0xFF; }

void glance_halve_words(const uint8_t *words, int width, int height, size_t stride, uint8_t *target) {
    int half_width = (width + 1) / 2;
    int half_height = (height + 1) / 2;
    int whole = width / 2;
    static const int shifts[3] = {16, 8, 0};
    for (int y = 0; y < half_height; y++) {
        const uint32_t *top = (const uint32_t *)(const void *)(words + (size_t)(2 * y) * stride);
        const uint32_t *bottom =
            2 * y + 1 < height ? (const uint32_t *)(const void *)((const uint8_t *)top + stride) : top;
        uint8_t *out = target + (size_t)y * (size_t)half_width * 3;
        for (int x = 0; x < whole; x++) {
            uint32_t a = top[2 * x], b = top[2 * x + 1], c = bottom[2 * x], d = bottom[2 * x + 1];
            for (int k = 0; k < 3; k++) {
                int s = shifts[k];
                out[3 * x + k] = (uint8_t)((word_channel(a, s) + word_channel(b, s) + word_channel(c, s) +
                                            word_channel(d, s) + 2) >> 2);
            }
        }
        if (width % 2) {
            uint32_t a = top[2 * whole], c = bottom[2 * whole];
            for (int k = 0; k < 3; k++) {
                out[3 * whole + k] = (uint8_t)((word_channel(a, shifts[k]) + word_channel(c, shifts[k]) + 1) >> 1);
            }
        }
    }
}

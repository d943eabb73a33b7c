// The streaming downscaler: see include/glance_scaler.h.
#include "glance_scaler.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "glance_processor_features.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

typedef float float4 __attribute__((vector_size(16)));

/// Block rows filtered across together: each weight is loaded once for this many rows.
#define GLANCE_ROW_GROUP 4

/// Filter taps of one output sample: `count` weights for the inputs from `first` on.
typedef struct {
    int first;
    int count;
    int offset;            // into the shared weight array
} glance_taps;

typedef struct {
    glance_taps *taps;     // one per output sample
    float *weights;
    float *spread;         // the weights each repeated four times, for the AVX2 pass across
    int max_count;
} glance_filter;

struct glance_scaler {
    int source_width, source_height, channels;
    int target_width, target_height;
    int kx, ky;                      // block shrink factors
    int block_width, block_height;   // size after the block shrink
    glance_filter horizontal, vertical;

    float4 *block_row;               // sum of up to ky source rows, block-shrunk across
    int block_rows_summed;
    float4 *converted;               // one source row as premultiplied float4
    float4 *group[GLANCE_ROW_GROUP]; // block rows waiting for the pass across
    int grouped;                     // how many of them
    int source_rows_pushed;
    int block_rows_made;             // rows of the block-shrunk image produced so far

    float *ring;                     // horizontally filtered rows, ring of `ring_rows`
    float *column_sums;              // one target row of vertical sums
    int ring_rows;
    int lanes;                       // floats per pixel in the ring: 3 for RGB, 4 for RGBA
    size_t ring_stride;              // floats per ring row: lanes * target_width, rounded up
    int row_floats;                  // floats the vertical pass sums (a multiple of 8)
    int target_rows_made;
    uint8_t *target;                 // the caller's buffer, set by glance_scaler_set_target
    glance_scaler_row_sink sink;     // or where each target row goes, as it is made
    void *sink_context;
    uint8_t *sink_row;               // the one target row a sink is given
    const uint8_t *last_row;         // copy of the last source row, to pad a truncated image
    uint8_t *last_row_copy;
    int avx2;                        // the Lanczos passes with AVX2 and FMA (checked at run time)
    const float **tap_rows;          // the ring rows of one target row's vertical taps
};

/// Whether the Lanczos passes may use AVX2 and FMA: asked at run time (see
/// glance_processor_features.h), so that one build runs everywhere and uses them where they are.
static int glance_has_avx2_fma(void) { return (glance_processor_features() & GLANCE_FEATURE_AVX2) != 0; }

#if defined(__x86_64__)
/// The vertical pass with AVX2: `out[i]` = sum over taps t of `rows[t][i] * weights[t]`, for `n`
/// floats (a multiple of 8), 32 at a time in four independent chains.
__attribute__((target("avx2,fma"))) static void glance_vertical_avx2(float *out, const float **rows,
                                                                     const float *weights, int count, int n) {
    int i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256 w = _mm256_set1_ps(weights[0]);
        __m256 a = _mm256_mul_ps(_mm256_loadu_ps(rows[0] + i), w);
        __m256 b = _mm256_mul_ps(_mm256_loadu_ps(rows[0] + i + 8), w);
        __m256 c = _mm256_mul_ps(_mm256_loadu_ps(rows[0] + i + 16), w);
        __m256 d = _mm256_mul_ps(_mm256_loadu_ps(rows[0] + i + 24), w);
        for (int t = 1; t < count; t++) {
            const float *row = rows[t] + i;
            w = _mm256_set1_ps(weights[t]);
            a = _mm256_fmadd_ps(_mm256_loadu_ps(row), w, a);
            b = _mm256_fmadd_ps(_mm256_loadu_ps(row + 8), w, b);
            c = _mm256_fmadd_ps(_mm256_loadu_ps(row + 16), w, c);
            d = _mm256_fmadd_ps(_mm256_loadu_ps(row + 24), w, d);
        }
        _mm256_storeu_ps(out + i, a);
        _mm256_storeu_ps(out + i + 8, b);
        _mm256_storeu_ps(out + i + 16, c);
        _mm256_storeu_ps(out + i + 24, d);
    }
    for (; i < n; i += 8) {
        __m256 a = _mm256_mul_ps(_mm256_loadu_ps(rows[0] + i), _mm256_set1_ps(weights[0]));
        for (int t = 1; t < count; t++) {
            a = _mm256_fmadd_ps(_mm256_loadu_ps(rows[t] + i), _mm256_set1_ps(weights[t]), a);
        }
        _mm256_storeu_ps(out + i, a);
    }
}

/// The horizontal pass with AVX2: two taps (two float4 pixels, against their weights each
/// spread over four lanes) a multiply-add. Every output has the same, even number of taps, so
/// the loop runs the same way for every pixel. Each pixel's sum is stored as four floats at
/// `lanes` floats apart: for RGB the fourth (alpha) is overwritten by the next pixel's red.
__attribute__((target("avx2,fma"))) static void glance_horizontal_avx2(float *slot, const float4 *row,
                                                                       const glance_filter *filter, int width,
                                                                       int lanes) {
    int count = filter->max_count;
    const float *spread = filter->spread;
    for (int x = 0; x < width; x++, spread += 4 * count) {
        const float *in = (const float *)(row + filter->taps[x].first);
        __m256 a = _mm256_mul_ps(_mm256_loadu_ps(in), _mm256_loadu_ps(spread));
        __m256 b = _mm256_setzero_ps();
        int t = 2;
        for (; t + 4 <= count; t += 4) {
            b = _mm256_fmadd_ps(_mm256_loadu_ps(in + 4 * t), _mm256_loadu_ps(spread + 4 * t), b);
            a = _mm256_fmadd_ps(_mm256_loadu_ps(in + 4 * t + 8), _mm256_loadu_ps(spread + 4 * t + 8), a);
        }
        if (t < count) b = _mm256_fmadd_ps(_mm256_loadu_ps(in + 4 * t), _mm256_loadu_ps(spread + 4 * t), b);
        __m256 sum = _mm256_add_ps(a, b);
        _mm_storeu_ps(slot + (size_t)lanes * (size_t)x,
                      _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1)));
    }
}

/// The pass across for four rows at once: the same taps, so each weight load serves four rows
/// (a quarter of the loads of four single passes go to weights instead of half).
__attribute__((target("avx2,fma"))) static void glance_horizontal4_avx2(float *const *slots, float4 *const *rows,
                                                                        const glance_filter *filter, int width,
                                                                        int lanes) {
    int count = filter->max_count;
    const float *spread = filter->spread;
    for (int x = 0; x < width; x++, spread += 4 * count) {
        int first = filter->taps[x].first;
        const float *in0 = (const float *)(rows[0] + first), *in1 = (const float *)(rows[1] + first);
        const float *in2 = (const float *)(rows[2] + first), *in3 = (const float *)(rows[3] + first);
        __m256 w = _mm256_loadu_ps(spread);
        __m256 a0 = _mm256_mul_ps(_mm256_loadu_ps(in0), w), a1 = _mm256_mul_ps(_mm256_loadu_ps(in1), w);
        __m256 a2 = _mm256_mul_ps(_mm256_loadu_ps(in2), w), a3 = _mm256_mul_ps(_mm256_loadu_ps(in3), w);
        for (int t = 2; t < count; t += 2) {
            w = _mm256_loadu_ps(spread + 4 * t);
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(in0 + 4 * t), w, a0);
            a1 = _mm256_fmadd_ps(_mm256_loadu_ps(in1 + 4 * t), w, a1);
            a2 = _mm256_fmadd_ps(_mm256_loadu_ps(in2 + 4 * t), w, a2);
            a3 = _mm256_fmadd_ps(_mm256_loadu_ps(in3 + 4 * t), w, a3);
        }
        size_t at = (size_t)lanes * (size_t)x;
        _mm_storeu_ps(slots[0] + at, _mm_add_ps(_mm256_castps256_ps128(a0), _mm256_extractf128_ps(a0, 1)));
        _mm_storeu_ps(slots[1] + at, _mm_add_ps(_mm256_castps256_ps128(a1), _mm256_extractf128_ps(a1, 1)));
        _mm_storeu_ps(slots[2] + at, _mm_add_ps(_mm256_castps256_ps128(a2), _mm256_extractf128_ps(a2, 1)));
        _mm_storeu_ps(slots[3] + at, _mm_add_ps(_mm256_castps256_ps128(a3), _mm256_extractf128_ps(a3, 1)));
    }
}
#endif

/// Loads four floats from anywhere (the vector type's own loads assume 16-byte alignment).
static inline float4 glance_load4(const float *p) {
    float4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/// The vertical pass without AVX2, in portable vector code (SSE2 on x86-64): as
/// glance_vertical_avx2, sixteen floats at a time in four chains kept in registers across all
/// the taps, instead of a pass over the whole row for each tap.
static void glance_vertical_portable(float *out, const float **rows, const float *weights, int count, int n) {
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        float w = weights[0];
        float4 a = glance_load4(rows[0] + i) * w, b = glance_load4(rows[0] + i + 4) * w;
        float4 c = glance_load4(rows[0] + i + 8) * w, d = glance_load4(rows[0] + i + 12) * w;
        for (int t = 1; t < count; t++) {
            const float *row = rows[t] + i;
            w = weights[t];
            a += glance_load4(row) * w;
            b += glance_load4(row + 4) * w;
            c += glance_load4(row + 8) * w;
            d += glance_load4(row + 12) * w;
        }
        memcpy(out + i, &a, sizeof a);
        memcpy(out + i + 4, &b, sizeof b);
        memcpy(out + i + 8, &c, sizeof c);
        memcpy(out + i + 12, &d, sizeof d);
    }
    for (; i < n; i += 4) {
        float4 a = glance_load4(rows[0] + i) * weights[0];
        for (int t = 1; t < count; t++) a += glance_load4(rows[t] + i) * weights[t];
        memcpy(out + i, &a, sizeof a);
    }
}

/// The pass across for four rows at once without AVX2, in portable vector code: each tap's
/// weight, already spread over four lanes, is loaded once for the four rows, and even and odd
/// taps sum in separate chains (eight in all, enough to keep the adds busy without FMA).
static void glance_horizontal4_portable(float *const *slots, float4 *const *rows, const glance_filter *filter,
                                        int width, int lanes) {
    int count = filter->max_count;
    const float4 *spread = (const float4 *)filter->spread;
    for (int x = 0; x < width; x++, spread += count) {
        int first = filter->taps[x].first;
        const float4 *in0 = rows[0] + first, *in1 = rows[1] + first, *in2 = rows[2] + first, *in3 = rows[3] + first;
        float4 a0 = in0[0] * spread[0], a1 = in1[0] * spread[0], a2 = in2[0] * spread[0], a3 = in3[0] * spread[0];
        float4 b0 = {0, 0, 0, 0}, b1 = b0, b2 = b0, b3 = b0;
        int t = 1;
        for (; t + 2 <= count; t += 2) {
            float4 w = spread[t], v = spread[t + 1];
            b0 += in0[t] * w;
            b1 += in1[t] * w;
            b2 += in2[t] * w;
            b3 += in3[t] * w;
            a0 += in0[t + 1] * v;
            a1 += in1[t + 1] * v;
            a2 += in2[t + 1] * v;
            a3 += in3[t + 1] * v;
        }
        if (t < count) {
            float4 w = spread[t];
            b0 += in0[t] * w;
            b1 += in1[t] * w;
            b2 += in2[t] * w;
            b3 += in3[t] * w;
        }
        size_t at = (size_t)lanes * (size_t)x;   // RGB: the next pixel overwrites lane 4
        float4 sum0 = a0 + b0, sum1 = a1 + b1, sum2 = a2 + b2, sum3 = a3 + b3;
        memcpy(slots[0] + at, &sum0, sizeof sum0);
        memcpy(slots[1] + at, &sum1, sizeof sum1);
        memcpy(slots[2] + at, &sum2, sizeof sum2);
        memcpy(slots[3] + at, &sum3, sizeof sum3);
    }
}

static double glance_sinc(double x) {
    if (fabs(x) < 1e-8) return 1.0;
    x *= M_PI;
    return sin(x) / x;
}

static double glance_lanczos3(double x) {
    if (x <= -3.0 || x >= 3.0) return 0.0;
    return glance_sinc(x) * glance_sinc(x / 3.0);
}

/// Lanczos-3 taps for resampling `in` samples to `out` samples (out <= in). Pixel centres are
/// aligned ((i + 0.5) * scale - 0.5), the kernel is widened by the scale so that it low-passes,
/// and taps falling outside the image are dropped and the rest renormalised.
///
/// Then every output gets the same number of taps, an even one where the image is wide enough:
/// zero weights pad the short ones, which are moved inwards at the edges so that no tap falls
/// outside. The passes then run one loop shape for every pixel, and the AVX2 pass across takes
/// two taps at a time with no odd one left. With `spread`, the weights are also stored each
/// repeated four times, for that pass.
static int glance_filter_make(glance_filter *filter, int in, int out, int spread) {
    double scale = (double)in / (double)out;
    double support = 3.0 * (scale > 1.0 ? scale : 1.0);
    double stretch = scale > 1.0 ? scale : 1.0;
    int limit = (int)ceil(support * 2.0) + 2;
    int *natural_count = calloc((size_t)out, sizeof *natural_count);
    double *natural = calloc((size_t)out * (size_t)limit, sizeof *natural);
    filter->taps = calloc((size_t)out, sizeof *filter->taps);
    if (natural_count == NULL || natural == NULL || filter->taps == NULL) {
        free(natural_count);
        free(natural);
        return 0;
    }
    int widest = 0;
    for (int o = 0; o < out; o++) {
        double centre = (o + 0.5) * scale - 0.5;
        int first = (int)floor(centre - support) + 1;
        int last = (int)ceil(centre + support) - 1;
        if (first < 0) first = 0;
        if (last > in - 1) last = in - 1;
        if (last - first + 1 > limit) last = first + limit - 1;
        double *w = natural + (size_t)o * (size_t)limit;
        double sum = 0.0;
        for (int i = first; i <= last; i++) {
            w[i - first] = glance_lanczos3((i - centre) / stretch);
            sum += w[i - first];
        }
        int count = last - first + 1;
        if (sum != 0.0) {
            for (int i = 0; i < count; i++) w[i] /= sum;
        }
        filter->taps[o].first = first;
        natural_count[o] = count;
        if (count > widest) widest = count;
    }
    int uniform = widest + (widest % 2 != 0 && widest < in ? 1 : 0);
    filter->max_count = uniform;
    filter->weights = calloc((size_t)out * (size_t)uniform, sizeof *filter->weights);
    filter->spread = spread ? calloc((size_t)out * (size_t)uniform * 4, sizeof *filter->spread) : NULL;
    if (filter->weights == NULL || (spread && filter->spread == NULL)) {
        free(natural_count);
        free(natural);
        return 0;
    }
    for (int o = 0; o < out; o++) {
        int first = filter->taps[o].first;
        int start = first + uniform > in ? in - uniform : first;   // moved inwards at the far edge
        float *w = filter->weights + (size_t)o * (size_t)uniform;
        for (int i = 0; i < natural_count[o]; i++) w[first - start + i] = (float)natural[(size_t)o * (size_t)limit + i];
        filter->taps[o].first = start;
        filter->taps[o].count = uniform;
        filter->taps[o].offset = o * uniform;
        if (spread) {
            float *repeated = filter->spread + (size_t)o * (size_t)uniform * 4;
            for (int i = 0; i < uniform; i++) {
                for (int lane = 0; lane < 4; lane++) repeated[4 * i + lane] = w[i];
            }
        }
    }
    free(natural_count);
    free(natural);
    return 1;
}

/// Integer box factor for one axis: shrink by blocks only while the Lanczos stage is still left
/// at least a factor of two, so the final, anti-aliasing filter does the last part of the work.
static int glance_block_factor(int in, int out) {
    int k = (int)(((double)in / (double)out) / 2.0);
    return k < 1 ? 1 : k;
}

glance_scaler *glance_scaler_create(int source_width, int source_height, int channels,
                                    int target_width, int target_height) {
    if (source_width <= 0 || source_height <= 0 || target_width <= 0 || target_height <= 0) return NULL;
    if (channels != 3 && channels != 4) return NULL;
    if (target_width > source_width) target_width = source_width;
    if (target_height > source_height) target_height = source_height;
    glance_scaler *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->source_width = source_width;
    s->source_height = source_height;
    s->channels = channels;
    s->target_width = target_width;
    s->target_height = target_height;
    s->kx = glance_block_factor(source_width, target_width);
    s->ky = glance_block_factor(source_height, target_height);
    s->block_width = (source_width + s->kx - 1) / s->kx;
    s->block_height = (source_height + s->ky - 1) / s->ky;
    // kx <= in / (2 * out), so the block image is always at least twice the target: no clamp.
    int ok = glance_filter_make(&s->horizontal, s->block_width, target_width, 1) &&
             glance_filter_make(&s->vertical, s->block_height, target_height, 0);
    // Room for a whole group of rows beyond the taps of the next target row.
    s->ring_rows = s->vertical.max_count + GLANCE_ROW_GROUP;
    s->avx2 = glance_has_avx2_fma();
    // RGB rows are kept as three floats a pixel from the pass across on: a quarter less to sum
    // down and to round. Rows are padded to whole vectors of eight, and by eight floats more for
    // the pass across, which stores four floats for each pixel's three.
    s->lanes = channels == 3 ? 3 : 4;
    s->row_floats = (s->lanes * target_width + 7) / 8 * 8;
    s->ring_stride = (size_t)s->row_floats + 8;
    s->tap_rows = calloc((size_t)s->vertical.max_count + 1, sizeof *s->tap_rows);
    s->block_row = calloc((size_t)s->block_width, sizeof(float4));
    s->converted = calloc((size_t)source_width, sizeof(float4));
    int groups_made = 1;
    for (int index = 0; index < GLANCE_ROW_GROUP; index++) {
        s->group[index] = calloc((size_t)source_width, sizeof(float4));
        groups_made = groups_made && s->group[index] != NULL;
    }
    s->ring = calloc((size_t)s->ring_rows * s->ring_stride, sizeof(float));
    s->column_sums = calloc(s->ring_stride, sizeof(float));
    s->last_row_copy = malloc((size_t)source_width * (size_t)channels);
    if (!ok || !groups_made || !s->block_row || !s->converted || !s->ring || !s->column_sums || !s->last_row_copy || !s->tap_rows) {
        glance_scaler_free(s);
        return NULL;
    }
    return s;
}

/// Rounds `n` floats to bytes, clamped to 0...255: the RGB thumbnail's row, whose floats are
/// its bytes in order.
static void glance_round_row(const float *sums, uint8_t *out, int n) {
    int i = 0;
#if defined(__x86_64__)
    // SSE2 (every x86-64 has it): truncating v + 0.5 after clamping to 255, then saturating to
    // bytes (negative sums become 0), sixteen at a time.
    const __m128 half = _mm_set1_ps(0.5f), top = _mm_set1_ps(255.0f);
    for (; i + 16 <= n; i += 16) {
        __m128i a = _mm_cvttps_epi32(_mm_min_ps(_mm_add_ps(_mm_loadu_ps(sums + i), half), top));
        __m128i b = _mm_cvttps_epi32(_mm_min_ps(_mm_add_ps(_mm_loadu_ps(sums + i + 4), half), top));
        __m128i c = _mm_cvttps_epi32(_mm_min_ps(_mm_add_ps(_mm_loadu_ps(sums + i + 8), half), top));
        __m128i d = _mm_cvttps_epi32(_mm_min_ps(_mm_add_ps(_mm_loadu_ps(sums + i + 12), half), top));
        _mm_storeu_si128((__m128i *)(out + i), _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
    }
#endif
    for (; i < n; i++) {
        float v = sums[i] + 0.5f;
        out[i] = v <= 0.0f ? 0 : v >= 255.0f ? 255 : (uint8_t)v;
    }
}

/// Writes target row `y` from the ring: the vertical Lanczos pass, un-premultiply, round.
/// The taps are the outer loop and the pixels the inner one, so every pixel's sum is independent
/// of its neighbours' and the adds pipeline (one chain per pixel would wait on each add).
static void glance_emit_target_row(glance_scaler *s, int y) {
    const glance_taps *taps = &s->vertical.taps[y];
    const float *weights = s->vertical.weights + taps->offset;
    int width = s->target_width;
    float *sums = s->column_sums;
    int n = s->row_floats;
    for (int t = 0; t < taps->count; t++) {
        s->tap_rows[t] = s->ring + (size_t)((taps->first + t) % s->ring_rows) * s->ring_stride;
    }
#if defined(__x86_64__)
    if (s->avx2) {
        glance_vertical_avx2(sums, s->tap_rows, weights, taps->count, n);
    } else
#endif
        glance_vertical_portable(sums, s->tap_rows, weights, taps->count, n);
    uint8_t *out = s->sink ? s->sink_row : s->target + (size_t)y * (size_t)width * (size_t)s->channels;
    if (s->channels == 3) {
        glance_round_row(sums, out, 3 * width);
    } else {
        for (int x = 0; x < width; x++) {
            float4 sum;
            memcpy(&sum, sums + 4 * x, sizeof sum);
            float alpha = sum[3];
            if (alpha < 0.5f) {
                out[4 * x] = out[4 * x + 1] = out[4 * x + 2] = out[4 * x + 3] = 0;
                continue;
            }
            float a = alpha > 255.0f ? 255.0f : alpha;
            sum = sum * (255.0f / alpha);
            sum[3] = a;
            for (int c = 0; c < 4; c++) {
                float v = sum[c] + 0.5f;
                out[4 * x + c] = v <= 0.0f ? 0 : v >= 255.0f ? 255 : (uint8_t)v;
            }
        }
    }
    if (s->sink) s->sink(s->sink_context, out, y);
}

/// Filters one block row across into its ring slot.
static void glance_filter_across(glance_scaler *s, const float4 *row, float *slot) {
#if defined(__x86_64__)
    if (s->avx2 && s->horizontal.max_count % 2 == 0) {
        glance_horizontal_avx2(slot, row, &s->horizontal, s->target_width, s->lanes);
        return;
    }
#endif
    for (int x = 0; x < s->target_width; x++) {
        const glance_taps *taps = &s->horizontal.taps[x];
        const float *weights = s->horizontal.weights + taps->offset;
        const float4 *in = row + taps->first;
        // Four partial sums: independent chains that the CPU can overlap.
        float4 a = {0, 0, 0, 0}, b = a, c = a, d = a;
        int t = 0;
        for (; t + 4 <= taps->count; t += 4) {
            a += in[t] * weights[t];
            b += in[t + 1] * weights[t + 1];
            c += in[t + 2] * weights[t + 2];
            d += in[t + 3] * weights[t + 3];
        }
        for (; t < taps->count; t++) a += in[t] * weights[t];
        float4 sum = (a + b) + (c + d);
        memcpy(slot + (size_t)s->lanes * (size_t)x, &sum, sizeof sum);   // RGB: the next overwrites lane 4
    }
}

/// Filters the waiting block rows across into the ring (a full group in one pass where AVX2
/// can), then writes every target row whose vertical taps are now all present.
static void glance_flush_group(glance_scaler *s) {
    float *slots[GLANCE_ROW_GROUP];
    for (int index = 0; index < s->grouped; index++) {
        slots[index] = s->ring + (size_t)((s->block_rows_made + index) % s->ring_rows) * s->ring_stride;
    }
#if defined(__x86_64__)
    if (s->grouped == GLANCE_ROW_GROUP && s->avx2 && s->horizontal.max_count % 2 == 0) {
        glance_horizontal4_avx2(slots, s->group, &s->horizontal, s->target_width, s->lanes);
    } else
#endif
    if (s->grouped == GLANCE_ROW_GROUP && !s->avx2) {
        glance_horizontal4_portable(slots, s->group, &s->horizontal, s->target_width, s->lanes);
    } else {
        for (int index = 0; index < s->grouped; index++) glance_filter_across(s, s->group[index], slots[index]);
    }
    s->block_rows_made += s->grouped;
    s->grouped = 0;
    while (s->target_rows_made < s->target_height) {
        const glance_taps *taps = &s->vertical.taps[s->target_rows_made];
        if (taps->first + taps->count > s->block_rows_made) break;
        glance_emit_target_row(s, s->target_rows_made);
        s->target_rows_made += 1;
    }
}

/// Takes one block-shrunk row (copied unless it was made in the group's next buffer); a full
/// group is filtered at once.
static void glance_take_block_row(glance_scaler *s, const float4 *row) {
    if (row != s->group[s->grouped]) {
        memcpy(s->group[s->grouped], row, (size_t)s->block_width * sizeof(float4));
    }
    s->grouped += 1;
    if (s->grouped == GLANCE_ROW_GROUP) glance_flush_group(s);
}

#if defined(__x86_64__)
/// Widens RGB bytes to float4 pixels with alpha 255, four pixels at a time (AVX2): a byte
/// shuffle spreads three bytes to four lanes, then eight at a time become floats. Returns how
/// many pixels it did; each step reads sixteen bytes, so it stops six pixels short of the end.
__attribute__((target("avx2"))) static int glance_convert_rgb_avx2(const uint8_t *in, float4 *out, int width) {
    const __m128i spread = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
    const __m256 opaque = _mm256_setr_ps(0.0f, 0.0f, 0.0f, 255.0f, 0.0f, 0.0f, 0.0f, 255.0f);
    int x = 0;
    for (; x + 6 <= width; x += 4) {
        __m128i v = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(in + 3 * x)), spread);
        __m256 low = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v));
        __m256 high = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(v, 8)));
        _mm256_storeu_ps((float *)(out + x), _mm256_add_ps(low, opaque));
        _mm256_storeu_ps((float *)(out + x + 2), _mm256_add_ps(high, opaque));
    }
    return x;
}
#endif

/// Converts a source row to premultiplied float4 (RGB gets alpha 255 so one path serves both).
static void glance_convert_row(const glance_scaler *s, const uint8_t *in, float4 *out) {
    int width = s->source_width;
    if (s->channels == 3) {
        int x = 0;
#if defined(__x86_64__)
        if (s->avx2) x = glance_convert_rgb_avx2(in, out, width);
        // SSE2: widen a pixel's three bytes to floats and set the fourth lane to 255. The
        // four-byte load reads the next pixel's first byte, which the last pixel does not have.
        const __m128i zero = _mm_setzero_si128();
        const __m128 opaque = _mm_setr_ps(0.0f, 0.0f, 0.0f, 255.0f);
        for (; x + 1 < width; x++) {
            uint32_t word;
            memcpy(&word, in + 3 * x, 4);
            __m128i v = _mm_cvtsi32_si128((int)(word & 0xFFFFFFu));
            v = _mm_unpacklo_epi16(_mm_unpacklo_epi8(v, zero), zero);
            out[x] = (float4)_mm_add_ps(_mm_cvtepi32_ps(v), opaque);
        }
#endif
        for (; x < width; x++) {
            out[x] = (float4){in[3 * x], in[3 * x + 1], in[3 * x + 2], 255.0f};
        }
    } else {
        for (int x = 0; x < width; x++) {
            float a = in[4 * x + 3];
            float m = a * (1.0f / 255.0f);
            out[x] = (float4){in[4 * x] * m, in[4 * x + 1] * m, in[4 * x + 2] * m, a};
        }
    }
}

/// Adds one converted source row into the block row, box-summing kx pixels across.
static void glance_accumulate(glance_scaler *s, const float4 *row) {
    int kx = s->kx;
    if (kx == 1) {
        for (int x = 0; x < s->block_width; x++) s->block_row[x] += row[x];
        return;
    }
    for (int bx = 0; bx < s->block_width; bx++) {
        int start = bx * kx;
        int end = start + kx;
        if (end > s->source_width) end = s->source_width;
        float4 sum = {0, 0, 0, 0};
        for (int x = start; x < end; x++) sum += row[x];
        // A short last block is scaled up to a full one so that every block has the same weight.
        s->block_row[bx] += sum * ((float)kx / (float)(end - start));
    }
}

static void glance_close_block_row(glance_scaler *s) {
    float scale = 1.0f / (float)(s->kx * s->block_rows_summed);
    for (int x = 0; x < s->block_width; x++) s->block_row[x] *= scale;
    glance_take_block_row(s, s->block_row);
    memset(s->block_row, 0, (size_t)s->block_width * sizeof(float4));
    s->block_rows_summed = 0;
}

static void glance_push_one(glance_scaler *s, const uint8_t *row) {
    if (s->target_width == s->source_width && s->target_height == s->source_height) {
        // Nothing to resample: copy, so that pixels (and low alphas) come through exactly.
        size_t bytes = (size_t)s->source_width * (size_t)s->channels;
        if (s->sink) {
            memcpy(s->sink_row, row, bytes);
            s->sink(s->sink_context, s->sink_row, s->source_rows_pushed);
        } else {
            memcpy(s->target + (size_t)s->source_rows_pushed * bytes, row, bytes);
        }
        s->target_rows_made = s->source_rows_pushed + 1;
    } else if (s->kx == 1 && s->ky == 1) {
        glance_convert_row(s, row, s->group[s->grouped]);
        glance_take_block_row(s, s->group[s->grouped]);
    } else {
        glance_convert_row(s, row, s->converted);
        glance_accumulate(s, s->converted);
        s->block_rows_summed += 1;
        if (s->block_rows_summed == s->ky || s->source_rows_pushed + 1 == s->source_height) {
            glance_close_block_row(s);
        }
    }
    s->source_rows_pushed += 1;
    s->last_row = row;
}

void glance_scaler_push_rows(glance_scaler *s, const uint8_t *rows, size_t stride, int count) {
    for (int i = 0; i < count && s->source_rows_pushed < s->source_height; i++) {
        glance_push_one(s, rows + (size_t)i * stride);
    }
    if (s->last_row != NULL) {
        memcpy(s->last_row_copy, s->last_row, (size_t)s->source_width * (size_t)s->channels);
        s->last_row = NULL;
    }
}


void glance_scaler_set_target(glance_scaler *s, uint8_t *target) { s->target = target; }

int glance_scaler_set_row_sink(glance_scaler *s, glance_scaler_row_sink sink, void *context) {
    if (sink != NULL && s->sink_row == NULL) {
        s->sink_row = malloc((size_t)s->target_width * (size_t)s->channels);
        if (s->sink_row == NULL) return 0;
    }
    s->sink = sink;
    s->sink_context = context;
    return 1;
}

void glance_scaler_finish(glance_scaler *s) {
    if (s->source_rows_pushed == 0) {
        memset(s->last_row_copy, 0, (size_t)s->source_width * (size_t)s->channels);
    }
    while (s->source_rows_pushed < s->source_height) {
        glance_push_one(s, s->last_row_copy);
        s->last_row = NULL;
    }
    glance_flush_group(s);
    // Bottom rows whose taps ran past the block image (ceil division) are filtered now.
    while (s->target_rows_made < s->target_height) {
        glance_emit_target_row(s, s->target_rows_made);
        s->target_rows_made += 1;
    }
}

int glance_scaler_use_avx2(glance_scaler *s, int enabled) {
    s->avx2 = enabled && glance_has_avx2_fma();
    return s->avx2;
}

void glance_scaler_free(glance_scaler *s) {
    if (s == NULL) return;
    free(s->horizontal.taps);
    free(s->horizontal.weights);
    free(s->horizontal.spread);
    free(s->vertical.taps);
    free(s->vertical.weights);
    free(s->block_row);
    free(s->converted);
    for (int index = 0; index < GLANCE_ROW_GROUP; index++) free(s->group[index]);
    free(s->ring);
    free(s->column_sums);
    free(s->last_row_copy);
    free(s->sink_row);
    free(s->tap_rows);
    free(s);
}

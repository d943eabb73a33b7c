// The streaming downscaler: see include/glance_scaler.h.
#include "glance_scaler.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef float float4 __attribute__((vector_size(16)));

/// Filter taps of one output sample: `count` weights for the inputs from `first` on.
typedef struct {
    int first;
    int count;
    int offset;            // into the shared weight array
} glance_taps;

typedef struct {
    glance_taps *taps;     // one per output sample
    float *weights;
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
    int source_rows_pushed;
    int block_rows_made;             // rows of the block-shrunk image produced so far

    float4 *ring;                    // horizontally filtered rows, ring of `ring_rows`
    float4 *column_sums;             // one target row of vertical sums
    int ring_rows;
    int target_rows_made;
    uint8_t *target;                 // the caller's buffer, set by glance_scaler_set_target
    glance_scaler_row_sink sink;     // or where each target row goes, as it is made
    void *sink_context;
    uint8_t *sink_row;               // the one target row a sink is given
    const uint8_t *last_row;         // copy of the last source row, to pad a truncated image
    uint8_t *last_row_copy;
};

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
static int glance_filter_make(glance_filter *filter, int in, int out) {
    double scale = (double)in / (double)out;
    double support = 3.0 * (scale > 1.0 ? scale : 1.0);
    double stretch = scale > 1.0 ? scale : 1.0;
    int max_count = (int)ceil(support * 2.0) + 2;
    filter->taps = calloc((size_t)out, sizeof *filter->taps);
    filter->weights = calloc((size_t)out * (size_t)max_count, sizeof *filter->weights);
    if (filter->taps == NULL || filter->weights == NULL) return 0;
    filter->max_count = 0;
    for (int o = 0; o < out; o++) {
        double centre = (o + 0.5) * scale - 0.5;
        int first = (int)floor(centre - support) + 1;
        int last = (int)ceil(centre + support) - 1;
        if (first < 0) first = 0;
        if (last > in - 1) last = in - 1;
        if (last - first + 1 > max_count) last = first + max_count - 1;
        float *w = filter->weights + (size_t)o * (size_t)max_count;
        double sum = 0.0;
        for (int i = first; i <= last; i++) {
            double value = glance_lanczos3((i - centre) / stretch);
            w[i - first] = (float)value;
            sum += value;
        }
        int count = last - first + 1;
        if (sum != 0.0) {
            for (int i = 0; i < count; i++) w[i] = (float)(w[i] / sum);
        }
        filter->taps[o].first = first;
        filter->taps[o].count = count;
        filter->taps[o].offset = o * max_count;
        if (count > filter->max_count) filter->max_count = count;
    }
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
    int ok = glance_filter_make(&s->horizontal, s->block_width, target_width) &&
             glance_filter_make(&s->vertical, s->block_height, target_height);
    s->ring_rows = s->vertical.max_count + 1;
    s->block_row = calloc((size_t)s->block_width, sizeof(float4));
    s->converted = calloc((size_t)source_width, sizeof(float4));
    s->ring = calloc((size_t)s->ring_rows * (size_t)target_width, sizeof(float4));
    s->column_sums = calloc((size_t)target_width, sizeof(float4));
    s->last_row_copy = malloc((size_t)source_width * (size_t)channels);
    if (!ok || !s->block_row || !s->converted || !s->ring || !s->column_sums || !s->last_row_copy) {
        glance_scaler_free(s);
        return NULL;
    }
    return s;
}

/// Writes target row `y` from the ring: the vertical Lanczos pass, un-premultiply, round.
/// The taps are the outer loop and the pixels the inner one, so every pixel's sum is independent
/// of its neighbours' and the adds pipeline (one chain per pixel would wait on each add).
static void glance_emit_target_row(glance_scaler *s, int y) {
    const glance_taps *taps = &s->vertical.taps[y];
    const float *weights = s->vertical.weights + taps->offset;
    int width = s->target_width;
    float4 *sums = s->column_sums;
    const float4 *first = s->ring + (size_t)(taps->first % s->ring_rows) * (size_t)width;
    for (int x = 0; x < width; x++) sums[x] = first[x] * weights[0];
    for (int t = 1; t < taps->count; t++) {
        const float4 *row = s->ring + (size_t)((taps->first + t) % s->ring_rows) * (size_t)width;
        float w = weights[t];
        for (int x = 0; x < width; x++) sums[x] += row[x] * w;
    }
    uint8_t *out = s->sink ? s->sink_row : s->target + (size_t)y * (size_t)width * (size_t)s->channels;
    for (int x = 0; x < width; x++) {
        float4 sum = sums[x];
        float alpha = sum[3];
        if (s->channels == 4) {
            if (alpha < 0.5f) {
                out[4 * x] = out[4 * x + 1] = out[4 * x + 2] = out[4 * x + 3] = 0;
                continue;
            }
            float a = alpha > 255.0f ? 255.0f : alpha;
            float unmultiply = 255.0f / alpha;
            sum = sum * unmultiply;
            sum[3] = a;
        }
        for (int c = 0; c < s->channels; c++) {
            float v = sum[c] + 0.5f;
            out[s->channels * x + c] = v <= 0.0f ? 0 : v >= 255.0f ? 255 : (uint8_t)v;
        }
    }
    if (s->sink) s->sink(s->sink_context, out, y);
}

/// Takes one block-shrunk row: filters it across into the ring, then writes every target row
/// whose vertical taps are now all present.
static void glance_take_block_row(glance_scaler *s, const float4 *row) {
    int index = s->block_rows_made;
    float4 *slot = s->ring + (size_t)(index % s->ring_rows) * (size_t)s->target_width;
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
        slot[x] = (a + b) + (c + d);
    }
    s->block_rows_made += 1;
    while (s->target_rows_made < s->target_height) {
        const glance_taps *taps = &s->vertical.taps[s->target_rows_made];
        if (taps->first + taps->count > s->block_rows_made) break;
        glance_emit_target_row(s, s->target_rows_made);
        s->target_rows_made += 1;
    }
}

/// Converts a source row to premultiplied float4 (RGB gets alpha 255 so one path serves both).
static void glance_convert_row(const glance_scaler *s, const uint8_t *in, float4 *out) {
    int width = s->source_width;
    if (s->channels == 3) {
        for (int x = 0; x < width; x++) {
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
        glance_convert_row(s, row, s->converted);
        glance_take_block_row(s, s->converted);
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
    // Bottom rows whose taps ran past the block image (ceil division) are filtered now.
    while (s->target_rows_made < s->target_height) {
        glance_emit_target_row(s, s->target_rows_made);
        s->target_rows_made += 1;
    }
}

void glance_scaler_free(glance_scaler *s) {
    if (s == NULL) return;
    free(s->horizontal.taps);
    free(s->horizontal.weights);
    free(s->vertical.taps);
    free(s->vertical.weights);
    free(s->block_row);
    free(s->converted);
    free(s->ring);
    free(s->column_sums);
    free(s->last_row_copy);
    free(s->sink_row);
    free(s);
}

// See include/glance_page_images.h.
#define _GNU_SOURCE
#include "glance_page_images.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// cairo's types and the few functions used, declared here rather than through cairo.h: this
// target is a plain C target and gets no pkg-config include paths. Enums are passed as ints in
// the x86-64 and AArch64 ABIs; the values are cairo's stable ones.
typedef struct _cairo cairo_t;
typedef struct _cairo_surface cairo_surface_t;
typedef struct _cairo_pattern cairo_pattern_t;
typedef struct {
    double xx, yx, xy, yy, x0, y0;
} cairo_matrix_t;

enum { PATTERN_TYPE_SURFACE = 1 };
enum { SURFACE_TYPE_IMAGE = 0 };
enum { FORMAT_ARGB32 = 0, FORMAT_RGB24 = 1 };
enum { FILTER_GOOD = 1, FILTER_BEST = 2 };
enum { EXTEND_PAD = 3 };
enum { STATUS_SUCCESS = 0 };

extern int cairo_pattern_get_type(cairo_pattern_t *pattern);
extern int cairo_pattern_get_filter(cairo_pattern_t *pattern);
extern int cairo_pattern_get_extend(cairo_pattern_t *pattern);
extern void cairo_pattern_get_matrix(cairo_pattern_t *pattern, cairo_matrix_t *matrix);
extern int cairo_pattern_get_surface(cairo_pattern_t *pattern, cairo_surface_t **surface);
extern cairo_pattern_t *cairo_pattern_create_for_surface(cairo_surface_t *surface);
extern void cairo_pattern_set_filter(cairo_pattern_t *pattern, int filter);
extern void cairo_pattern_set_extend(cairo_pattern_t *pattern, int extend);
extern void cairo_pattern_set_matrix(cairo_pattern_t *pattern, const cairo_matrix_t *matrix);
extern int cairo_pattern_status(cairo_pattern_t *pattern);
extern void cairo_pattern_destroy(cairo_pattern_t *pattern);
extern void cairo_get_matrix(cairo_t *cr, cairo_matrix_t *matrix);
extern int cairo_surface_get_type(cairo_surface_t *surface);
extern void cairo_surface_get_device_offset(cairo_surface_t *surface, double *x, double *y);
extern void cairo_surface_get_device_scale(cairo_surface_t *surface, double *x, double *y);
extern void cairo_surface_flush(cairo_surface_t *surface);
extern void cairo_surface_mark_dirty(cairo_surface_t *surface);
extern int cairo_surface_status(cairo_surface_t *surface);
extern void cairo_surface_destroy(cairo_surface_t *surface);
extern cairo_surface_t *cairo_image_surface_create(int format, int width, int height);
extern int cairo_image_surface_get_format(cairo_surface_t *surface);
extern int cairo_image_surface_get_width(cairo_surface_t *surface);
extern int cairo_image_surface_get_height(cairo_surface_t *surface);
extern int cairo_image_surface_get_stride(cairo_surface_t *surface);
extern unsigned char *cairo_image_surface_get_data(cairo_surface_t *surface);
extern void cairo_matrix_multiply(cairo_matrix_t *result, const cairo_matrix_t *a, const cairo_matrix_t *b);
extern int cairo_matrix_invert(cairo_matrix_t *matrix);

typedef void (*set_source_function)(cairo_t *cr, cairo_pattern_t *source);

// The byte of a pixel that holds alpha (cairo's pixels are native-endian 32-bit words).
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
enum { ALPHA_BYTE = 0 };
#else
enum { ALPHA_BYTE = 3 };
#endif

// Reductions outside this range are left to cairo: below 2x it is quick, and the bound keeps
// every size below in int range.
static const double smallest_reduction = 2.0, largest_reduction = 16384.0;
// Images this large on a side are left to cairo (poppler makes none this large anyway).
static const int largest_side = 1 << 20;

// Per thread: a worker renders on one thread, and threads never share a page.
static _Thread_local bool reducing_disabled = false;
static _Thread_local unsigned reduced_images = 0;

void glance_page_images_set_reducing(bool enabled) { reducing_disabled = !enabled; }

unsigned glance_page_images_take_reduced_count(void) {
    unsigned count = reduced_images;
    reduced_images = 0;
    return count;
}

/// The taps of a one-dimensional area average: output pixel `o` is device pixel `origin + o`,
/// which covers the source interval between `scale * (origin + o) + offset` and the same at
/// `o + 1`; source pixels outside `[0, size)` count as the nearest edge pixel (the pattern's
/// padding). Each output gets `first[o]`, `count[o]` and its weights at `weights + o * room`.
typedef struct {
    int *first;
    int *count;
    float *weights;
    int room;
} taps;

static void free_taps(taps *t) {
    free(t->first);
    free(t->count);
    free(t->weights);
}

static int clamp_index(long index, int size) { return index < 0 ? 0 : index >= size ? size - 1 : (int)index; }

static bool make_taps(taps *t, int outputs, int origin, int size, double scale, double offset) {
    t->room = (int)ceil(fabs(scale)) + 2;
    t->first = malloc(sizeof(int) * (size_t)outputs);
    t->count = malloc(sizeof(int) * (size_t)outputs);
    t->weights = calloc((size_t)outputs * (size_t)t->room, sizeof(float));
    if (t->first == NULL || t->count == NULL || t->weights == NULL) return false;
    for (int o = 0; o < outputs; o++) {
        double u0 = scale * (double)(origin + o) + offset, u1 = scale * (double)(origin + o + 1) + offset;
        double low = fmin(u0, u1), high = fmax(u0, u1);
        long start = (long)floor(low), end = (long)ceil(high) - 1;
        int first = clamp_index(start, size);
        int count = clamp_index(end, size) - first + 1;
        if (count > t->room) count = t->room;  // cannot happen: the interval is |scale| long
        float *weight = t->weights + (size_t)o * (size_t)t->room;
        for (long i = start; i <= end; i++) {
            double overlap = fmin(high, (double)(i + 1)) - fmax(low, (double)i);
            int slot = clamp_index(i, size) - first;
            if (overlap > 0 && slot >= 0 && slot < count) weight[slot] += (float)(overlap / (high - low));
        }
        t->first[o] = first;
        t->count[o] = count;
    }
    return true;
}

/// One source row averaged across: `out` gets 4 floats for each of `columns.count`'s outputs.
static void filter_row(const uint8_t *row, const taps *columns, int outputs, float *out) {
    for (int o = 0; o < outputs; o++) {
        const uint8_t *pixel = row + 4 * (size_t)columns->first[o];
        const float *weight = columns->weights + (size_t)o * (size_t)columns->room;
        float sum[4] = {0, 0, 0, 0};
        for (int k = 0; k < columns->count[o]; k++) {
            for (int c = 0; c < 4; c++) sum[c] += weight[k] * (float)pixel[4 * k + c];
        }
        for (int c = 0; c < 4; c++) out[4 * o + c] = sum[c];
    }
}

/// Averages `source` (4 bytes a pixel) over the footprints `columns` and `rows` describe into
/// `target`, `width` x `height` pixels. False when memory is short (target then untouched).
static bool average(const uint8_t *source, int source_stride, const taps *columns, const taps *rows, uint8_t *target,
                    int width, int height, int target_stride, bool premultiplied) {
    float *filtered = malloc(sizeof(float) * 4 * (size_t)width);
    float *sum = malloc(sizeof(float) * 4 * (size_t)width);
    if (filtered == NULL || sum == NULL) {
        free(filtered);
        free(sum);
        return false;
    }
    long filtered_row = -1;
    for (int y = 0; y < height; y++) {
        memset(sum, 0, sizeof(float) * 4 * (size_t)width);
        const float *weight = rows->weights + (size_t)y * (size_t)rows->room;
        for (int k = 0; k < rows->count[y]; k++) {
            int row = rows->first[y] + k;
            if (row != filtered_row) {
                filter_row(source + (size_t)row * (size_t)source_stride, columns, width, filtered);
                filtered_row = row;
            }
            for (int i = 0; i < 4 * width; i++) sum[i] += weight[k] * filtered[i];
        }
        uint8_t *out = target + (size_t)y * (size_t)target_stride;
        for (int i = 0; i < 4 * width; i++) {
            float value = sum[i] + 0.5f;
            out[i] = value <= 0 ? 0 : value >= 255 ? 255 : (uint8_t)value;
        }
        for (int x = 0; premultiplied && x < width; x++) {
            // Rounding may not lift a colour above its alpha.
            uint8_t alpha = out[4 * x + ALPHA_BYTE];
            for (int c = 0; c < 4; c++) {
                if (out[4 * x + c] > alpha) out[4 * x + c] = alpha;
            }
        }
    }
    free(filtered);
    free(sum);
    return true;
}

/// The image of `pattern` when it is one a reduction may stand for: a surface pattern of an
/// ARGB32 or RGB24 image of at most largest_side pixels a side, filtered GOOD or BEST (its filter
/// into `filter`), padded, without device offset or scale; else NULL.
static cairo_surface_t *reducible_image(cairo_pattern_t *pattern, int *filter) {
    if (pattern == NULL || cairo_pattern_get_type(pattern) != PATTERN_TYPE_SURFACE) return NULL;
    *filter = cairo_pattern_get_filter(pattern);
    if ((*filter != FILTER_GOOD && *filter != FILTER_BEST) || cairo_pattern_get_extend(pattern) != EXTEND_PAD) {
        return NULL;
    }
    cairo_surface_t *image = NULL;
    if (cairo_pattern_get_surface(pattern, &image) != STATUS_SUCCESS || image == NULL) return NULL;
    if (cairo_surface_get_type(image) != SURFACE_TYPE_IMAGE || cairo_surface_status(image) != STATUS_SUCCESS) {
        return NULL;
    }
    int format = cairo_image_surface_get_format(image);
    if (format != FORMAT_ARGB32 && format != FORMAT_RGB24) return NULL;
    double offset_x, offset_y, scale_x, scale_y;
    cairo_surface_get_device_offset(image, &offset_x, &offset_y);
    cairo_surface_get_device_scale(image, &scale_x, &scale_y);
    if (offset_x != 0 || offset_y != 0 || scale_x != 1 || scale_y != 1) return NULL;
    int source_width = cairo_image_surface_get_width(image), source_height = cairo_image_surface_get_height(image);
    if (source_width < 1 || source_height < 1 || source_width > largest_side || source_height > largest_side) {
        return NULL;
    }
    return image;
}

/// A pattern of `pattern`'s image averaged onto the device's pixels under `cr`'s transformation,
/// or NULL when it is not an image worth it (or memory is short: cairo then scales the original,
/// as it would have).
static cairo_pattern_t *reduced_pattern(cairo_t *cr, cairo_pattern_t *pattern) {
    int filter = 0;
    cairo_surface_t *image = reducible_image(pattern, &filter);
    if (image == NULL) return NULL;
    int format = cairo_image_surface_get_format(image);
    int source_width = cairo_image_surface_get_width(image), source_height = cairo_image_surface_get_height(image);

    // Device space to the image's pixels: the transformation's inverse, then the pattern's
    // matrix (user space to pattern space).
    cairo_matrix_t user_to_device, device_to_user, pattern_matrix, device_to_image;
    cairo_get_matrix(cr, &user_to_device);
    device_to_user = user_to_device;
    if (cairo_matrix_invert(&device_to_user) != STATUS_SUCCESS) return NULL;
    cairo_pattern_get_matrix(pattern, &pattern_matrix);
    cairo_matrix_multiply(&device_to_image, &device_to_user, &pattern_matrix);
    double along_x = fabs(device_to_image.xx), along_y = fabs(device_to_image.yy);
    if (!(along_x >= smallest_reduction && along_y >= smallest_reduction)) return NULL;
    if (along_x > largest_reduction || along_y > largest_reduction) return NULL;
    // Rotated or skewed (beyond rounding): left to cairo.
    if (fabs(device_to_image.xy) > 1e-9 * along_x || fabs(device_to_image.yx) > 1e-9 * along_y) return NULL;

    // The device pixels the image covers, wholly or in part.
    double left = -device_to_image.x0 / device_to_image.xx;
    double right = ((double)source_width - device_to_image.x0) / device_to_image.xx;
    double top = -device_to_image.y0 / device_to_image.yy;
    double bottom = ((double)source_height - device_to_image.y0) / device_to_image.yy;
    double first_x = floor(fmin(left, right)), first_y = floor(fmin(top, bottom));
    double width_d = ceil(fmax(left, right)) - first_x, height_d = ceil(fmax(top, bottom)) - first_y;
    if (!(width_d >= 1 && height_d >= 1 && width_d <= largest_side && height_d <= largest_side)) return NULL;
    if (fabs(first_x) > 1e9 || fabs(first_y) > 1e9) return NULL;
    int width = (int)width_d, height = (int)height_d, origin_x = (int)first_x, origin_y = (int)first_y;

    cairo_surface_flush(image);
    const uint8_t *pixels = cairo_image_surface_get_data(image);
    if (pixels == NULL) return NULL;
    taps columns = {0}, rows = {0};
    cairo_surface_t *reduced = NULL;
    bool done = make_taps(&columns, width, origin_x, source_width, device_to_image.xx, device_to_image.x0) &&
                make_taps(&rows, height, origin_y, source_height, device_to_image.yy, device_to_image.y0);
    if (done) {
        reduced = cairo_image_surface_create(format, width, height);
        done = cairo_surface_status(reduced) == STATUS_SUCCESS &&
               average(pixels, cairo_image_surface_get_stride(image), &columns, &rows,
                       cairo_image_surface_get_data(reduced), width, height, cairo_image_surface_get_stride(reduced),
                       format == FORMAT_ARGB32);
    }
    free_taps(&columns);
    free_taps(&rows);
    if (!done) {
        if (reduced != NULL) cairo_surface_destroy(reduced);
        return NULL;
    }
    cairo_surface_mark_dirty(reduced);
    cairo_pattern_t *result = cairo_pattern_create_for_surface(reduced);
    cairo_surface_destroy(reduced);  // the pattern holds its own reference
    if (cairo_pattern_status(result) != STATUS_SUCCESS) {
        cairo_pattern_destroy(result);
        return NULL;
    }
    // User space to the new image: to device space, then to the image's first pixel.
    cairo_matrix_t to_origin = {1, 0, 0, 1, -(double)origin_x, -(double)origin_y}, result_matrix;
    cairo_matrix_multiply(&result_matrix, &user_to_device, &to_origin);
    cairo_pattern_set_matrix(result, &result_matrix);
    cairo_pattern_set_filter(result, filter);
    cairo_pattern_set_extend(result, EXTEND_PAD);
    reduced_images++;
    return result;
}

void cairo_set_source(cairo_t *cr, cairo_pattern_t *source) {
    // dlsym is thread-safe and cheap after the first call; the result never changes, so a race
    // between two first calls stores the same pointer twice.
    static set_source_function real = NULL;
    if (real == NULL) {
        real = (set_source_function)dlsym(RTLD_NEXT, "cairo_set_source");
        if (real == NULL) abort();
    }
    cairo_pattern_t *reduced = reducing_disabled ? NULL : reduced_pattern(cr, source);
    if (reduced == NULL) {
        real(cr, source);
        return;
    }
    real(cr, reduced);
    cairo_pattern_destroy(reduced);  // cr holds its own reference
}

// Glance's PNG writer (Sources/Renderer/CPNG/glance_png_writer.c + glance_deflate.c, compiled in) against
// libdeflate, libspng and zlib, on raw thumbnails (PAM files made by make_inputs.py).
//
//   ./compare [--reps N] [--out FILE.tsv] work/raw/*.pam
//
// Every encoder writes a complete PNG (signature, IHDR, sRGB, IDAT, IEND) of the same pixels, 8-bit
// gray, RGB or RGBA as the input is. Each is decoded again with libspng and compared with the input
// before anything is timed. Then N rounds: in each, every image goes through every encoder once,
// the encoders' order rotating from round to round, so that background load falls on all alike;
// the report takes the median per image and encoder. Heap use is measured by wrapping malloc and
// friends (bytes the allocator handed out, peak over the encode, less what was live before it).
//
// The kind is the file name's prefix (photo-, screenshot-, pdf-, text-): photo and screenshot are
// Glance's "photographic" content (rows from the streaming scaler: glance_png_writer, Up filter,
// gray candidate for RGB, pieces of 256 KiB sent to a sink as in a worker); pdf and text are
// "document" pages (already whole: glance_png_encode_gray, no filter, or glance_png_encode for
// RGB pages, Up filter). The other encoders get the same rows with the same filter as Glance,
// except the libspng default and libspng level 1 rows, which use libspng's own adaptive filter
// choice (all five filters, per row).
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libdeflate.h>
#include <png.h>
#include <spng.h>
#include <zlib.h>

#include "glance_png.h"

// --- heap accounting ------------------------------------------------------------------------

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static size_t heap_now, heap_peak;

static inline void heap_add(void *p) {
    if (p == NULL) return;
    heap_now += malloc_usable_size(p);
    if (heap_now > heap_peak) heap_peak = heap_now;
}
static inline void heap_remove(void *p) {
    if (p != NULL) heap_now -= malloc_usable_size(p);
}

void *malloc(size_t n) { void *p = __libc_malloc(n); heap_add(p); return p; }
void *calloc(size_t a, size_t b) { void *p = __libc_calloc(a, b); heap_add(p); return p; }
void free(void *p) { heap_remove(p); __libc_free(p); }
void *realloc(void *p, size_t n) {
    size_t old = p != NULL ? malloc_usable_size(p) : 0;
    void *q = __libc_realloc(p, n);
    if (q != NULL) {
        heap_now -= old;
        heap_add(q);
    } else if (n == 0 && p != NULL) {
        heap_now -= old;
    }
    return q;
}
void *memalign(size_t a, size_t n) { void *p = __libc_memalign(a, n); heap_add(p); return p; }
void *aligned_alloc(size_t a, size_t n) { return memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    void *p = __libc_memalign(a, n);
    if (p == NULL) return ENOMEM;
    heap_add(p);
    *out = p;
    return 0;
}

// --- images ---------------------------------------------------------------------------------

typedef struct {
    char name[256];
    char kind[32];
    int width, height, channels;
    int document;        // pdf or text: Glance's PNGContent.document
    uint8_t *pixels;     // width * channels bytes a row
} image;

static int read_pam(const char *path, image *im) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return -1;
    char line[256];
    im->width = im->height = im->channels = 0;
    if (fgets(line, sizeof line, f) == NULL || strncmp(line, "P7", 2) != 0) { fclose(f); return -1; }
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "ENDHDR", 6) == 0) break;
        sscanf(line, "WIDTH %d", &im->width);
        sscanf(line, "HEIGHT %d", &im->height);
        sscanf(line, "DEPTH %d", &im->channels);
    }
    size_t size = (size_t)im->width * im->height * im->channels;
    im->pixels = malloc(size);
    size_t got = fread(im->pixels, 1, size, f);
    fclose(f);
    if (got != size || size == 0) return -1;
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    snprintf(im->name, sizeof im->name, "%s", base);
    char *dot = strrchr(im->name, '.');
    if (dot != NULL) *dot = 0;
    const char *dash = strchr(im->name, '-');
    size_t kind_length = dash != NULL ? (size_t)(dash - im->name) : strlen(im->name);
    if (kind_length >= sizeof im->kind) kind_length = sizeof im->kind - 1;
    memcpy(im->kind, im->name, kind_length);
    im->kind[kind_length] = 0;
    im->document = strcmp(im->kind, "pdf") == 0 || strcmp(im->kind, "text") == 0;
    return 0;
}

/// Glance's filter for this image (PNGContent.filters): Up, except None for gray document pages.
static int glance_filter(const image *im) { return im->document && im->channels == 1 ? 0 : 2; }

static int colour_type(int channels) { return channels == 1 ? 0 : channels == 3 ? 2 : 6; }

// --- output: a growing byte buffer that a sink appends to -----------------------------------

typedef struct {
    uint8_t *bytes;       // preallocated by the caller (not counted as the encoder's heap)
    size_t length, capacity;
    size_t largest_piece; // the most bytes handed over at once
} sink;

static int sink_append(sink *s, const void *bytes, size_t count) {
    if (s->length + count > s->capacity) return 0;
    memcpy(s->bytes + s->length, bytes, count);
    s->length += count;
    if (count > s->largest_piece) s->largest_piece = count;
    return 1;
}

/// What one encode did: the PNG is in `result->bytes`.
typedef struct {
    size_t held;          // output bytes the encoder must hold at once outside its heap
    int ok;
} outcome;

/// Scratch the caller provides: Glance's writer is handed `out` (and `gray_out`) of the bound, as
/// the Swift side does; pages never touched are never resident.
static uint8_t *scratch_out, *scratch_gray;
static size_t scratch_capacity;

// --- (a) Glance -------------------------------------------------------------------------------

static int glance_sink(void *context, const uint8_t *bytes, size_t count) { return sink_append(context, bytes, count); }

static outcome encode_glance(const image *im, sink *result) {
    outcome o = {0, 0};
    int w = im->width, h = im->height, c = im->channels;
    size_t row_bytes = (size_t)w * c;
    glance_png_error error;
    size_t length = 0;
    if (im->document) {
        glance_png_filters filters = {2, 0};   // PNGContent.document
        glance_pixel_sums sums;
        int status = c == 1 ? glance_png_encode_gray(im->pixels, w, h, row_bytes, filters, result->bytes,
                                                     result->capacity, &length, &sums, &error)
                            : glance_png_encode(im->pixels, w, h, c, row_bytes, filters, result->bytes,
                                                result->capacity, &length, &error);
        if (status != GLANCE_PNG_OK) return o;
        result->length = length;
        o.held = length;   // pages are encoded whole into the caller's buffer
        o.ok = 1;
        return o;
    }
    glance_png_filters filters = {2, 2};       // PNGContent.photographic
    if (c == 1) {
        glance_pixel_sums sums;
        if (glance_png_encode_gray(im->pixels, w, h, row_bytes, filters, result->bytes, result->capacity, &length,
                                   &sums, &error) != GLANCE_PNG_OK)
            return o;
        result->length = length;
        o.held = length;
        o.ok = 1;
        return o;
    }
    size_t capacity = glance_png_encoded_bound(w, h, c), gray_capacity = c == 3 ? glance_png_encoded_bound(w, h, 1) : 0;
    glance_png_writer *writer = glance_png_writer_create(w, h, c, filters, scratch_out, capacity,
                                                         c == 3 ? scratch_gray : NULL, gray_capacity, &error);
    if (writer == NULL) return o;
    glance_png_writer_send_to(writer, glance_sink, result, 256 << 10);   // ImageEncoder.defaultSentPieceBytes
    for (int y = 0; y < h; y++) glance_png_writer_write_row(writer, im->pixels + (size_t)y * row_bytes, &error);
    int is_gray = 0;
    int status = glance_png_writer_finish(writer, &length, &is_gray, &error);
    glance_png_writer_free(writer);
    if (status != GLANCE_PNG_OK) return o;
    size_t held = result->largest_piece > length ? result->largest_piece : length;
    if (!sink_append(result, is_gray ? scratch_gray : scratch_out, length)) return o;
    o.held = held;   // the most of `out` in use at once: a piece, or what was left at the end
    o.ok = 1;
    return o;
}

// --- PNG framing for the whole-buffer encoders -------------------------------------------------

static void put_u32(uint8_t *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v; }

/// Writes signature, IHDR, sRGB and the IDAT header; returns where the zlib stream starts.
static size_t png_head(uint8_t *out, const image *im) {
    static const uint8_t signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    size_t at = 0;
    memcpy(out, signature, 8);
    at = 8;
    uint8_t *ihdr = out + at;
    put_u32(ihdr, 13);
    memcpy(ihdr + 4, "IHDR", 4);
    put_u32(ihdr + 8, (uint32_t)im->width);
    put_u32(ihdr + 12, (uint32_t)im->height);
    ihdr[16] = 8; ihdr[17] = (uint8_t)colour_type(im->channels); ihdr[18] = 0; ihdr[19] = 0; ihdr[20] = 0;
    put_u32(ihdr + 21, libdeflate_crc32(0, ihdr + 4, 17));
    at += 25;
    uint8_t *srgb = out + at;
    put_u32(srgb, 1);
    memcpy(srgb + 4, "sRGB", 4);
    srgb[8] = 0;
    put_u32(srgb + 9, libdeflate_crc32(0, srgb + 4, 5));
    at += 13;
    return at + 8;   // IDAT length and type come before the stream
}

/// Closes the IDAT whose stream of `count` bytes starts at `stream`, and writes IEND.
static size_t png_tail(uint8_t *out, size_t stream, size_t count) {
    uint8_t *idat = out + stream - 8;
    put_u32(idat, (uint32_t)count);
    memcpy(idat + 4, "IDAT", 4);
    size_t at = stream + count;
    put_u32(out + at, libdeflate_crc32(0, idat + 4, count + 4));
    at += 4;
    static const uint8_t iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    memcpy(out + at, iend, 12);
    return at + 12;
}

/// Filters row `y` with `filter` (0 None, 2 Up) into `target` (filter byte first).
static void filter_row(const image *im, int y, int filter, uint8_t *target) {
    size_t n = (size_t)im->width * im->channels;
    const uint8_t *row = im->pixels + (size_t)y * n;
    target[0] = (uint8_t)filter;
    if (filter == 2 && y > 0) {
        const uint8_t *above = row - n;
        for (size_t x = 0; x < n; x++) target[1 + x] = (uint8_t)(row[x] - above[x]);
    } else {
        memcpy(target + 1, row, n);
    }
}

// --- (b) libdeflate, whole buffer -----------------------------------------------------------

static double cpu_ns(void);
static double last_compress_ns;   // the libdeflate_zlib_compress call alone, in the last encode

static outcome encode_libdeflate(const image *im, sink *result, int level) {
    outcome o = {0, 0};
    size_t row = 1 + (size_t)im->width * im->channels, size = row * im->height;
    // The rows are filtered into one buffer as they come (the thumbnail itself need not exist
    // whole, but its filtered copy must: libdeflate takes the whole input at once).
    uint8_t *filtered = malloc(size);
    if (filtered == NULL) return o;
    int filter = glance_filter(im);
    for (int y = 0; y < im->height; y++) filter_row(im, y, filter, filtered + (size_t)y * row);
    struct libdeflate_compressor *compressor = libdeflate_alloc_compressor(level);
    size_t stream = png_head(result->bytes, im);
    double start = cpu_ns();
    size_t count = libdeflate_zlib_compress(compressor, filtered, size, result->bytes + stream,
                                            result->capacity - stream - 16);
    last_compress_ns = cpu_ns() - start;
    libdeflate_free_compressor(compressor);
    free(filtered);
    if (count == 0) return o;
    result->length = png_tail(result->bytes, stream, count);
    o.held = result->length;   // the whole PNG, in a buffer of libdeflate_zlib_compress_bound
    o.ok = 1;
    return o;
}

// --- (c) libspng, rows as they come, PNG to a stream callback -----------------------------------

static int spng_write(spng_ctx *ctx, void *user, void *bytes, size_t count) {
    (void)ctx;
    return sink_append(user, bytes, count) ? 0 : SPNG_IO_ERROR;
}

/// `level` -1: libspng's default (zlib 6, Z_FILTERED). `filters`: 0 for libspng's default
/// (SPNG_FILTER_CHOICE_ALL, chosen per row), 1 for Glance's filter.
static outcome encode_spng(const image *im, sink *result, int level, int same_filter) {
    outcome o = {0, 0};
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    if (ctx == NULL) return o;
    spng_set_png_stream(ctx, spng_write, result);
    struct spng_ihdr ihdr = {(uint32_t)im->width, (uint32_t)im->height, 8, (uint8_t)colour_type(im->channels), 0, 0, 0};
    spng_set_ihdr(ctx, &ihdr);
    spng_set_srgb(ctx, 0);
    if (level >= 0) spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, level);
    if (same_filter)
        spng_set_option(ctx, SPNG_FILTER_CHOICE, glance_filter(im) == 0 ? SPNG_FILTER_CHOICE_NONE : SPNG_FILTER_CHOICE_UP);
    int error = spng_encode_image(ctx, NULL, 0, SPNG_FMT_PNG, SPNG_ENCODE_PROGRESSIVE | SPNG_ENCODE_FINALIZE);
    size_t n = (size_t)im->width * im->channels;
    for (int y = 0; !error && y < im->height; y++) error = spng_encode_row(ctx, im->pixels + (size_t)y * n, n);
    spng_ctx_free(ctx);
    if (error != SPNG_EOI) return o;
    o.held = 0;   // streamed out in IDAT chunks; its buffers are in its heap
    o.ok = 1;
    return o;
}

// --- (d) zlib level 1: through libpng, and straight on the filtered rows ----------------------

static void libpng_write(png_structp png, png_bytep bytes, size_t count) {
    if (!sink_append(png_get_io_ptr(png), bytes, count)) png_error(png, "full");
}
static void libpng_flush(png_structp png) { (void)png; }

static outcome encode_libpng(const image *im, sink *result) {
    outcome o = {0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return o;
    }
    png_set_write_fn(png, result, libpng_write, libpng_flush);
    png_set_IHDR(png, info, (png_uint_32)im->width, (png_uint_32)im->height, 8, colour_type(im->channels),
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_sRGB(png, info, 0);
    png_set_compression_level(png, 1);
    png_set_filter(png, 0, glance_filter(im) == 0 ? PNG_FILTER_NONE : PNG_FILTER_UP);
    png_write_info(png, info);
    size_t n = (size_t)im->width * im->channels;
    for (int y = 0; y < im->height; y++) png_write_row(png, im->pixels + (size_t)y * n);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    o.ok = 1;
    return o;
}

/// zlib 1.2.13 level 1 fed each filtered row as it comes (what glance_deflate.c's comment measured).
static outcome encode_zlib_rows(const image *im, sink *result) {
    outcome o = {0, 0};
    size_t n = (size_t)im->width * im->channels;
    uint8_t *filtered = malloc(n + 1);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (filtered == NULL || deflateInit(&z, 1) != Z_OK) { free(filtered); return o; }
    size_t stream = png_head(result->bytes, im);
    z.next_out = result->bytes + stream;
    z.avail_out = (uInt)(result->capacity - stream - 16);
    int filter = glance_filter(im);
    for (int y = 0; y < im->height; y++) {
        filter_row(im, y, filter, filtered);
        z.next_in = filtered;
        z.avail_in = (uInt)(n + 1);
        deflate(&z, Z_NO_FLUSH);
    }
    int status = deflate(&z, Z_FINISH);
    size_t count = z.total_out;
    deflateEnd(&z);
    free(filtered);
    if (status != Z_STREAM_END) return o;
    result->length = png_tail(result->bytes, stream, count);
    o.held = result->length;
    o.ok = 1;
    return o;
}

// --- the encoders -----------------------------------------------------------------------------

enum { GLANCE, LIBDEFLATE1, LIBDEFLATE4, LIBDEFLATE6, SPNG_DEFAULT, SPNG1, SPNG1_SAME, LIBPNG_Z1, ZLIB1_ROWS, ENCODERS };
static const char *encoder_names[ENCODERS] = {
    "glance", "libdeflate-1", "libdeflate-4", "libdeflate-6", "spng-default", "spng-1", "spng-1-glancefilter",
    "libpng-zlib-1", "zlib-1-rows",
};

static outcome encode(int encoder, const image *im, sink *result) {
    result->length = 0;
    result->largest_piece = 0;
    switch (encoder) {
    case GLANCE: return encode_glance(im, result);
    case LIBDEFLATE1: return encode_libdeflate(im, result, 1);
    case LIBDEFLATE4: return encode_libdeflate(im, result, 4);
    case LIBDEFLATE6: return encode_libdeflate(im, result, 6);
    case SPNG_DEFAULT: return encode_spng(im, result, -1, 0);
    case SPNG1: return encode_spng(im, result, 1, 0);
    case SPNG1_SAME: return encode_spng(im, result, 1, 1);
    case LIBPNG_Z1: return encode_libpng(im, result);
    case ZLIB1_ROWS: return encode_zlib_rows(im, result);
    }
    outcome o = {0, 0};
    return o;
}

/// Decodes `png` with libspng and compares it with the image.
static int verify(const image *im, const uint8_t *png, size_t length) {
    spng_ctx *ctx = spng_ctx_new(0);
    spng_set_png_buffer(ctx, png, length);
    struct spng_ihdr ihdr;
    size_t size = 0;
    int ok = spng_get_ihdr(ctx, &ihdr) == 0 && (int)ihdr.width == im->width && (int)ihdr.height == im->height &&
             ihdr.color_type == colour_type(im->channels) && spng_decoded_image_size(ctx, SPNG_FMT_PNG, &size) == 0 &&
             size == (size_t)im->width * im->height * im->channels;
    uint8_t *decoded = ok ? malloc(size) : NULL;
    ok = ok && decoded != NULL && spng_decode_image(ctx, decoded, size, SPNG_FMT_PNG, 0) == 0 &&
         memcmp(decoded, im->pixels, size) == 0;
    free(decoded);
    spng_ctx_free(ctx);
    return ok;
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/// This thread's CPU time (user + system): on a shared machine, time spent waiting for a core is
/// not counted, which wall time would charge to whichever encoder was running.
static double cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    int reps = 11;
    const char *out_path = NULL;
    int first = 1;
    while (first < argc && argv[first][0] == '-') {
        if (strcmp(argv[first], "--reps") == 0 && first + 1 < argc) reps = atoi(argv[first + 1]), first += 2;
        else if (strcmp(argv[first], "--out") == 0 && first + 1 < argc) out_path = argv[first + 1], first += 2;
        else { fprintf(stderr, "usage: compare [--reps N] [--out FILE.tsv] FILE.pam...\n"); return 2; }
    }
    int count = argc - first;
    if (count <= 0) { fprintf(stderr, "no images\n"); return 2; }
    image *images = calloc((size_t)count, sizeof *images);
    size_t largest = 0;
    for (int i = 0; i < count; i++) {
        if (read_pam(argv[first + i], &images[i]) != 0) { fprintf(stderr, "cannot read %s\n", argv[first + i]); return 1; }
        size_t bound = glance_png_encoded_bound(images[i].width, images[i].height, images[i].channels);
        if (bound > largest) largest = bound;
    }
    scratch_capacity = largest;
    scratch_out = malloc(scratch_capacity);
    scratch_gray = malloc(scratch_capacity);
    sink result = {malloc(largest * 2), 0, largest * 2, 0};
    memset(scratch_out, 0, scratch_capacity);
    memset(scratch_gray, 0, scratch_capacity);
    memset(result.bytes, 0, result.capacity);

    FILE *out = out_path != NULL ? fopen(out_path, "w") : stdout;
    fprintf(out, "# libdeflate %s, libspng %d.%d.%d, zlib %s, libpng %s\n", LIBDEFLATE_VERSION_STRING, SPNG_VERSION_MAJOR,
            SPNG_VERSION_MINOR, SPNG_VERSION_PATCH, zlibVersion(), png_libpng_ver);
    fprintf(out, "record\timage\tkind\twidth\theight\tchannels\tencoder\tround\tns\tbytes\theap_peak\theld\tcpu_ns\n");

    // Verification and memory (also the warm-up round).
    size_t sizes[ENCODERS * 64];
    for (int i = 0; i < count; i++) {
        const image *im = &images[i];
        for (int e = 0; e < ENCODERS; e++) {
            size_t before = heap_now;
            heap_peak = heap_now;
            outcome o = encode(e, im, &result);
            size_t peak = heap_peak - before;
            if (!o.ok || !verify(im, result.bytes, result.length)) {
                fprintf(stderr, "%s: %s failed or did not round-trip\n", im->name, encoder_names[e]);
                return 1;
            }
            if (i < 64) sizes[i * ENCODERS + e] = result.length;
            fprintf(out, "check\t%s\t%s\t%d\t%d\t%d\t%s\t0\t0\t%zu\t%zu\t%zu\t0\n", im->name, im->kind, im->width, im->height,
                    im->channels, encoder_names[e], result.length, peak, o.held);
        }
    }
    fflush(out);
    for (int round = 1; round <= reps; round++) {
        for (int i = 0; i < count; i++) {
            const image *im = &images[i];
            for (int k = 0; k < ENCODERS; k++) {
                int e = (k + round + i) % ENCODERS;
                double start = now_ns(), start_cpu = cpu_ns();
                outcome o = encode(e, im, &result);
                double cpu = cpu_ns() - start_cpu, elapsed = now_ns() - start;
                if (!o.ok || (i < 64 && result.length != sizes[i * ENCODERS + e])) {
                    fprintf(stderr, "%s: %s changed its output\n", im->name, encoder_names[e]);
                    return 1;
                }
                fprintf(out, "time\t%s\t%s\t%d\t%d\t%d\t%s\t%d\t%.0f\t%zu\t0\t0\t%.0f\n", im->name, im->kind,
                        im->width, im->height, im->channels, encoder_names[e], round, elapsed, result.length, cpu);
                if (e == LIBDEFLATE1)   // libdeflate's own share: no filtering, no allocation, no framing
                    fprintf(out, "time\t%s\t%s\t%d\t%d\t%d\t%s\t%d\t%.0f\t%zu\t0\t0\t%.0f\n", im->name, im->kind,
                            im->width, im->height, im->channels, "libdeflate-1-compress-only", round, last_compress_ns,
                            result.length, last_compress_ns);
            }
        }
        fflush(out);
        fprintf(stderr, "round %d/%d\n", round, reps);
    }
    if (out != stdout) fclose(out);
    return 0;
}

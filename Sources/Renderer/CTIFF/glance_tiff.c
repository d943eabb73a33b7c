// See include/glance_tiff.h.
#include "glance_tiff.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <unistd.h>

#include "glance_colour.h"
#include "glance_library_loader.h"

/// libtiff's functions, typed by its own header, found once and read-only after.
#define TIFF_FUNCTIONS(X)                                                          \
    GLANCE_TYPED(X, options_alloc, TIFFOpenOptionsAlloc)                           \
    GLANCE_TYPED(X, options_free, TIFFOpenOptionsFree)                             \
    GLANCE_TYPED(X, options_max_alloc, TIFFOpenOptionsSetMaxSingleMemAlloc)        \
    GLANCE_TYPED(X, options_error_handler, TIFFOpenOptionsSetErrorHandlerExtR)     \
    GLANCE_TYPED(X, options_warning_handler, TIFFOpenOptionsSetWarningHandlerExtR) \
    GLANCE_TYPED(X, client_open, TIFFClientOpenExt)                                \
    GLANCE_TYPED(X, close, TIFFClose)                                              \
    GLANCE_TYPED(X, get_field, TIFFGetField)                                       \
    GLANCE_TYPED(X, get_field_defaulted, TIFFGetFieldDefaulted)                    \
    GLANCE_TYPED(X, number_of_directories, TIFFNumberOfDirectories)                \
    GLANCE_TYPED(X, set_directory, TIFFSetDirectory)                               \
    GLANCE_TYPED(X, read_directory, TIFFReadDirectory)                             \
    GLANCE_TYPED(X, is_tiled, TIFFIsTiled)                                         \
    GLANCE_TYPED(X, rgba_ok, TIFFRGBAImageOK)                                      \
    GLANCE_TYPED(X, rgba_begin, TIFFRGBAImageBegin)                                \
    GLANCE_TYPED(X, rgba_get, TIFFRGBAImageGet)                                    \
    GLANCE_TYPED(X, rgba_end, TIFFRGBAImageEnd)                                    \
    GLANCE_TYPED(X, read_strip, TIFFReadEncodedStrip)                              \
    GLANCE_TYPED(X, read_tile, TIFFReadTile)                                       \
    GLANCE_TYPED(X, tile_size, TIFFTileSize)

/// The soname: libtiff's ABI has been 6 since libtiff 4.5 (2022), the first with TIFFOpenOptions'
/// per-handle error handlers and allocation limit, which this file needs.
GLANCE_LIBRARY(tiff, "libtiff.so.6", TIFF_FUNCTIONS, GLANCE_LIBRARY_NO_START)

int glance_tiff_load(char *reason, size_t capacity) { return tiff_ensure(reason, capacity); }

struct glance_tiff {
    TIFF *handle;
    TIFFOpenOptions *options;
    int fd;
    uint64_t size;
    /// The read position libtiff believes in (pread does not move the descriptor's).
    uint64_t offset;
    TIFFRGBAImage image;
    int image_begun;
    uint32_t width, height;
    int has_alpha;
    /// Read as stored (3 or 4 bytes a pixel), or 0: through TIFFRGBAImage.
    int direct_channels;
    /// Bytes a stored pixel takes, for the layouts read as stored (8-bit RGB, and floats).
    size_t stored_pixel_bytes;
    /// Floating-point samples (16, 32 or 64 bits, else 0), `float_samples` to a pixel: linear
    /// light, brought to sRGB's primaries by `float_matrix` (from the profile's colorants, when it
    /// has some), clipped to 0 to 1 and encoded by the `linear_to_srgb` table through 16 bits
    /// (linear light's darkest steps stay a twentieth of an 8-bit code apart). lcms's own 16-bit
    /// and float transforms from a linear profile took 4 s for 24 megapixels here; this takes a
    /// tenth of that.
    int float_bits, float_samples, float_associated_alpha, float_has_matrix;
    float float_matrix[3][3];
    uint8_t *linear_to_srgb;
    uint8_t *stored_band;
    size_t stored_band_bytes;
    int tiled;
    uint32_t tile_width, tile_rows, strip_rows;
    uint32_t *band;
    size_t band_pixels;
    uint8_t *tile;
    char error[256];
};

static int record_error(TIFF *handle, void *user_data, const char *module, const char *format, va_list args) {
    (void)handle;
    (void)module;
    glance_tiff *file = user_data;
    if (file->error[0] == 0) vsnprintf(file->error, sizeof file->error, format, args);
    return 1;  // handled: nothing goes to standard error
}

static int ignore_warning(TIFF *handle, void *user_data, const char *module, const char *format, va_list args) {
    (void)handle, (void)user_data, (void)module, (void)format, (void)args;
    return 1;
}

static tmsize_t read_proc(thandle_t user, void *buffer, tmsize_t count) {
    glance_tiff *file = (glance_tiff *)user;
    size_t done = 0;
    while (count > 0 && done < (size_t)count) {
        ssize_t got = pread(file->fd, (char *)buffer + done, (size_t)count - done, (off_t)(file->offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        done += (size_t)got;
    }
    file->offset += done;
    return (tmsize_t)done;
}

static tmsize_t write_proc(thandle_t user, void *buffer, tmsize_t count) {
    (void)user, (void)buffer, (void)count;
    return -1;  // never: the document is read only
}

static toff_t seek_proc(thandle_t user, toff_t offset, int whence) {
    glance_tiff *file = (glance_tiff *)user;
    uint64_t base = whence == SEEK_CUR ? file->offset : whence == SEEK_END ? file->size : 0;
    file->offset = base + offset;
    return file->offset;
}

static int close_proc(thandle_t user) {
    (void)user;
    return 0;  // the descriptor belongs to the caller
}

static toff_t size_proc(thandle_t user) { return ((glance_tiff *)user)->size; }

static int no_map(thandle_t user, void **base, toff_t *size) {
    (void)user, (void)base, (void)size;
    return 0;
}

static void no_unmap(thandle_t user, void *base, toff_t size) { (void)user, (void)base, (void)size; }

glance_tiff *glance_tiff_open(int fd, uint64_t size, size_t max_allocation, char *reason, size_t capacity) {
    glance_tiff *file = calloc(1, sizeof *file);
    if (file == NULL) return NULL;
    file->fd = fd;
    file->size = size;
    file->options = tiff.options_alloc();
    if (file->options == NULL) {
        free(file);
        return NULL;
    }
    tiff.options_max_alloc(file->options, (tmsize_t)max_allocation);
    tiff.options_error_handler(file->options, record_error, file);
    tiff.options_warning_handler(file->options, ignore_warning, file);
    // "r": read; "m": no memory mapping (reads go through read_proc).
    file->handle = tiff.client_open("document", "rm", (thandle_t)file, read_proc, write_proc, seek_proc,
                                    close_proc, size_proc, no_map, no_unmap, file->options);
    if (file->handle == NULL) {
        if (reason != NULL && capacity > 0) snprintf(reason, capacity, "%s", file->error);
        glance_tiff_close(file);
        return NULL;
    }
    return file;
}

int glance_tiff_page_sizes(glance_tiff *file, double *widths, double *heights, int capacity) {
    TIFF *handle = file->handle;
    if (capacity <= 0 || !tiff.set_directory(handle, 0)) return 0;
    int count = 0;
    do {
        uint32_t width = 0, height = 0;
        tiff.get_field(handle, TIFFTAG_IMAGEWIDTH, &width);
        tiff.get_field(handle, TIFFTAG_IMAGELENGTH, &height);
        float x_resolution = 0, y_resolution = 0;
        uint16_t unit = RESUNIT_INCH, orientation = ORIENTATION_TOPLEFT;
        tiff.get_field(handle, TIFFTAG_XRESOLUTION, &x_resolution);
        tiff.get_field(handle, TIFFTAG_YRESOLUTION, &y_resolution);
        tiff.get_field_defaulted(handle, TIFFTAG_RESOLUTIONUNIT, &unit);
        tiff.get_field_defaulted(handle, TIFFTAG_ORIENTATION, &orientation);
        // Points per pixel: 72 an inch; a resolution that is missing, not in inches or
        // centimetres, or not positive counts a pixel as a point.
        double per_inch = unit == RESUNIT_CENTIMETER ? 2.54 : 1;
        int known = (unit == RESUNIT_INCH || unit == RESUNIT_CENTIMETER) && x_resolution > 0 && y_resolution > 0;
        double width_points = known ? width * 72.0 / (x_resolution * per_inch) : width;
        double height_points = known ? height * 72.0 / (y_resolution * per_inch) : height;
        // Orientations 5 to 8 turn the page a quarter.
        int turned = orientation >= ORIENTATION_LEFTTOP && orientation <= ORIENTATION_LEFTBOT;
        widths[count] = turned ? height_points : width_points;
        heights[count] = turned ? width_points : height_points;
        count += 1;
    } while (count < capacity && tiff.read_directory(handle));
    // The walk is a best effort: a damaged later page is the render's to report, not this one's.
    file->error[0] = 0;
    return count;
}

/// Describes a page of floating-point samples (SampleFormat 3), which libtiff's RGBA reader does
/// not take: gray or RGB, with or without one alpha sample, 16-, 32- or 64-bit, one plane. The
/// samples are taken as linear light, as Photoshop's 32-bit mode writes them and libvips reads
/// them; an ICC profile gives their primaries (its colorants), not their curve, since Photoshop
/// embeds its working space's profile, curve and all, with linear samples. Another layout is
/// refused in the words libtiff's reader uses.
static int describe_float(glance_tiff *file, glance_tiff_info *info, uint16_t photometric, uint16_t samples,
                          uint16_t compression, uint16_t extra_count, const uint16_t *extra) {
    uint16_t bits = 0, planar = PLANARCONFIG_CONTIG;
    tiff.get_field_defaulted(file->handle, TIFFTAG_BITSPERSAMPLE, &bits);
    tiff.get_field_defaulted(file->handle, TIFFTAG_PLANARCONFIG, &planar);
    int colours = photometric == PHOTOMETRIC_MINISBLACK ? 1 : photometric == PHOTOMETRIC_RGB ? 3 : 0;
    if (bits != 16 && bits != 32 && bits != 64) {
        snprintf(file->error, sizeof file->error, "Sorry, can not handle floating-point samples of %u bits", bits);
        return 0;
    }
    if (colours == 0 || samples < colours || samples > colours + 1 || extra_count != samples - colours) {
        snprintf(file->error, sizeof file->error,
                 "Sorry, can not handle floating-point samples in photometric %u with %u samples a pixel",
                 photometric, samples);
        return 0;
    }
    if (planar != PLANARCONFIG_CONTIG) {
        snprintf(file->error, sizeof file->error, "Sorry, can not handle floating-point samples in separate planes");
        return 0;
    }
    if (compression == COMPRESSION_JPEG || compression == COMPRESSION_OJPEG) {
        snprintf(file->error, sizeof file->error, "Sorry, can not handle JPEG-compressed floating-point samples");
        return 0;
    }
    int alpha = samples > colours;
    file->float_bits = bits;
    file->float_samples = samples;
    file->float_associated_alpha = alpha && extra != NULL && extra[0] == EXTRASAMPLE_ASSOCALPHA;
    file->stored_pixel_bytes = (size_t)samples * bits / 8;
    file->has_alpha = alpha;
    uint32_t icc_length = 0;
    const uint8_t *icc = glance_tiff_icc_profile(file, &icc_length);
    char message[256] = {0};
    if (icc != NULL && colours == 3) {
        file->float_has_matrix =
            glance_colour_linear_matrix(icc, icc_length, file->float_matrix, message, sizeof message) == 0;
        // A profile without primaries is set aside, as for 8-bit samples, with a warning.
        info->float_profile_refused = !file->float_has_matrix;
    }
    file->direct_channels = alpha ? 4 : 3;
    info->is_float = 1;
    info->channels = file->direct_channels;
    info->has_alpha = alpha;
    return 1;
}

int glance_tiff_describe(glance_tiff *file, int page, glance_tiff_info *info) {
    memset(info, 0, sizeof *info);
    TIFF *handle = file->handle;
    // Counting pages walks the chain of directories (libtiff stops at a loop); then to the page.
    info->pages = (int)tiff.number_of_directories(handle);
    if (page < 0 || page >= info->pages) return 0;
    if (!tiff.set_directory(handle, (tdir_t)page)) return 0;
    uint32_t width = 0, height = 0;
    tiff.get_field(handle, TIFFTAG_IMAGEWIDTH, &width);
    tiff.get_field(handle, TIFFTAG_IMAGELENGTH, &height);
    info->width = width;
    info->height = height;
    uint16_t orientation = ORIENTATION_TOPLEFT;
    tiff.get_field_defaulted(handle, TIFFTAG_ORIENTATION, &orientation);
    info->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    uint16_t photometric = 0, samples = 1, compression = COMPRESSION_NONE, extra_count = 0;
    uint16_t *extra = NULL;
    tiff.get_field(handle, TIFFTAG_PHOTOMETRIC, &photometric);
    tiff.get_field_defaulted(handle, TIFFTAG_SAMPLESPERPIXEL, &samples);
    tiff.get_field_defaulted(handle, TIFFTAG_COMPRESSION, &compression);
    tiff.get_field_defaulted(handle, TIFFTAG_EXTRASAMPLES, &extra_count, &extra);
    info->is_cmyk = photometric == PHOTOMETRIC_SEPARATED;
    info->is_gray = photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE;
    info->is_jpeg = compression == COMPRESSION_JPEG || compression == COMPRESSION_OJPEG;
    file->tiled = tiff.is_tiled(handle);
    if (file->tiled) {
        tiff.get_field(handle, TIFFTAG_TILEWIDTH, &file->tile_width);
        tiff.get_field(handle, TIFFTAG_TILELENGTH, &file->tile_rows);
        info->band_rows = file->tile_rows;
    } else {
        uint32_t strip_rows = height;
        tiff.get_field_defaulted(handle, TIFFTAG_ROWSPERSTRIP, &strip_rows);
        info->band_rows = strip_rows;
    }
    if (info->band_rows == 0 || info->band_rows > height) info->band_rows = height;
    file->strip_rows = info->band_rows;
    file->width = width;
    file->height = height;
    uint16_t sample_format = SAMPLEFORMAT_UINT;
    tiff.get_field_defaulted(handle, TIFFTAG_SAMPLEFORMAT, &sample_format);
    if (sample_format == SAMPLEFORMAT_IEEEFP) {
        if (width == 0 || height == 0) {
            snprintf(file->error, sizeof file->error, "no image");
            return 0;
        }
        return describe_float(file, info, photometric, samples, compression, extra_count, extra);
    }
    char message[1024] = {0};
    if (width == 0 || height == 0 || !tiff.rgba_ok(handle, message)) {
        if (file->error[0] == 0) snprintf(file->error, sizeof file->error, "%s", message[0] ? message : "no image");
        return 0;
    }
    // The common layout is read as stored, past TIFFRGBAImage's packing into 32-bit words and
    // back: 8-bit RGB, one plane, with no extra sample or an unassociated alpha (a third of a
    // 24-megapixel LZW photo's time went to that packing and unpacking).
    uint16_t bits = 0, planar = PLANARCONFIG_CONTIG;
    tiff.get_field_defaulted(handle, TIFFTAG_BITSPERSAMPLE, &bits);
    tiff.get_field_defaulted(handle, TIFFTAG_PLANARCONFIG, &planar);
    int plain_alpha = extra_count == 1 && extra != NULL && extra[0] == EXTRASAMPLE_UNASSALPHA;
    if (photometric == PHOTOMETRIC_RGB && bits == 8 && planar == PLANARCONFIG_CONTIG && !info->is_jpeg &&
        ((samples == 3 && extra_count == 0) || (samples == 4 && plain_alpha)) &&
        (!file->tiled || (file->tile_width > 0 && file->tile_rows == info->band_rows))) {
        file->direct_channels = samples;
        file->stored_pixel_bytes = samples;
        file->has_alpha = samples == 4;
    } else {
        if (!tiff.rgba_begin(&file->image, handle, 0, message)) {
            if (file->error[0] == 0) snprintf(file->error, sizeof file->error, "%s", message);
            return 0;
        }
        file->image_begun = 1;
        // Rows in the order they are stored: asking for the file's own orientation flips nothing
        // (the caller applies the orientation to the thumbnail).
        file->image.req_orientation = file->image.orientation;
        file->has_alpha = file->image.alpha != 0;
    }
    info->channels = file->direct_channels ? file->direct_channels : 4;
    info->has_alpha = file->has_alpha;
    return 1;
}

const uint8_t *glance_tiff_icc_profile(glance_tiff *file, uint32_t *length) {
    uint32_t count = 0;
    void *data = NULL;
    if (!tiff.get_field(file->handle, TIFFTAG_ICCPROFILE, &count, &data) || data == NULL || count == 0) {
        *length = 0;
        return NULL;
    }
    *length = count;
    return data;
}

/// Reads rows as stored (see glance_tiff_describe): the strip, or the row of tiles, that begins
/// at `first_row`.
static int read_rows_as_stored(glance_tiff *file, uint32_t first_row, uint32_t count, uint8_t *out) {
    size_t channels = file->stored_pixel_bytes;
    size_t row_bytes = (size_t)file->width * channels;
    if (!file->tiled) {
        uint32_t strip = first_row / file->strip_rows;
        tmsize_t wanted = (tmsize_t)(row_bytes * count);
        tmsize_t got = tiff.read_strip(file->handle, strip, out, wanted);
        if (got < wanted) {
            if (file->error[0] == 0) snprintf(file->error, sizeof file->error, "Read error on strip %u", strip);
            return 0;
        }
        return 1;
    }
    tmsize_t tile_bytes = tiff.tile_size(file->handle);
    size_t tile_row_bytes = (size_t)file->tile_width * channels;
    if (tile_bytes <= 0 || (size_t)tile_bytes < tile_row_bytes * file->tile_rows) return 0;
    if (file->tile == NULL) {
        file->tile = malloc((size_t)tile_bytes);
        if (file->tile == NULL) return 0;
    }
    for (uint32_t x = 0; x < file->width; x += file->tile_width) {
        if (tiff.read_tile(file->handle, file->tile, x, first_row, 0, 0) < 0) return 0;
        size_t copied = (size_t)(file->width - x < file->tile_width ? file->width - x : file->tile_width) * channels;
        for (uint32_t row = 0; row < count; row++) {
            memcpy(out + row * row_bytes + (size_t)x * channels, file->tile + row * tile_row_bytes, copied);
        }
    }
    return 1;
}

/// An IEEE half's value (libtiff gives the stored 16 bits, in the machine's order).
static float half_value(uint16_t half) {
    int exponent = (half >> 10) & 0x1f, mantissa = half & 0x3ff;
    float magnitude = exponent == 0    ? ldexpf((float)mantissa, -24)
                      : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                       : ldexpf((float)(mantissa | 0x400), exponent - 25);
    return half & 0x8000 ? -magnitude : magnitude;
}

/// The `i`th stored floating-point sample of a row, as a float (a double past a float's range as
/// the largest float).
static float sample_at(const glance_tiff *file, const uint8_t *stored, size_t i) {
    if (file->float_bits == 16) {
        uint16_t half;
        memcpy(&half, stored + 2 * i, 2);
        return half_value(half);
    }
    if (file->float_bits == 32) {
        float value;
        memcpy(&value, stored + 4 * i, 4);
        return value;
    }
    double wide;
    memcpy(&wide, stored + 8 * i, 8);
    return wide > FLT_MAX ? FLT_MAX : wide < -FLT_MAX ? -FLT_MAX : (float)wide;
}

/// A stored row of floating-point samples as 8-bit sRGB RGB or RGBA in `out`: associated alpha
/// divided out, colours brought to sRGB's primaries, clipped, and encoded by the table (gray as
/// three equal samples).
static void float_row_to_srgb(const glance_tiff *file, const uint8_t *stored, uint8_t *out) {
    int samples = file->float_samples, colours = samples >= 3 ? 3 : 1, alpha = samples > colours;
    const float(*m)[3] = file->float_matrix;
    const uint8_t *table = file->linear_to_srgb;
    for (size_t x = 0, i = 0; x < file->width; x++, i += (size_t)samples) {
        float value[4];
        for (int c = 0; c < samples; c++) value[c] = sample_at(file, stored, i + (size_t)c);
        if (alpha && file->float_associated_alpha) {
            float divisor = value[colours] > 0 ? value[colours] : INFINITY;
            for (int c = 0; c < colours; c++) value[c] /= divisor;
        }
        if (file->float_has_matrix) {
            float r = value[0], g = value[1], b = value[2];
            for (int c = 0; c < 3; c++) value[c] = m[c][0] * r + m[c][1] * g + m[c][2] * b;
        }
        for (int c = 0; c < 3; c++) out[c] = table[glance_colour_linear_index(value[colours == 3 ? c : 0])];
        if (alpha) out[3] = (uint8_t)(((uint32_t)glance_colour_linear_index(value[colours]) * 255 + 32767) / 65535);
        out += alpha ? 4 : 3;
    }
}

/// Reads rows of floating-point samples as stored, then turns each into 8-bit sRGB in `out`.
static int read_float_rows(glance_tiff *file, uint32_t first_row, uint32_t count, uint8_t *out) {
    size_t stored_row = (size_t)file->width * file->stored_pixel_bytes;
    size_t needed = stored_row * count;
    if (needed > file->stored_band_bytes) {
        free(file->stored_band);
        file->stored_band = malloc(needed);
        file->stored_band_bytes = file->stored_band != NULL ? needed : 0;
        if (file->stored_band == NULL) {
            snprintf(file->error, sizeof file->error, "no memory for %u rows of %u pixels", count, file->width);
            return 0;
        }
    }
    if (file->linear_to_srgb == NULL) {
        if ((file->linear_to_srgb = malloc(65536)) == NULL) {
            snprintf(file->error, sizeof file->error, "no memory for the floating-point samples' conversion");
            return 0;
        }
        glance_colour_linear_to_srgb_table(file->linear_to_srgb);
    }
    if (!read_rows_as_stored(file, first_row, count, file->stored_band)) return 0;
    size_t out_row = (size_t)file->width * (size_t)file->direct_channels;
    for (uint32_t row = 0; row < count; row++) {
        float_row_to_srgb(file, file->stored_band + row * stored_row, out + row * out_row);
    }
    return 1;
}

int glance_tiff_read_rows(glance_tiff *file, uint32_t first_row, uint32_t count, uint8_t *out) {
    if (count == 0) return 0;
    if (file->float_bits) return read_float_rows(file, first_row, count, out);
    if (file->direct_channels) return read_rows_as_stored(file, first_row, count, out);
    if (!file->image_begun) return 0;
    size_t pixels = (size_t)file->width * count;
    if (pixels > file->band_pixels) {
        free(file->band);
        file->band = malloc(pixels * sizeof(uint32_t));
        file->band_pixels = file->band != NULL ? pixels : 0;
        if (file->band == NULL) {
            snprintf(file->error, sizeof file->error, "no memory for %u rows of %u pixels", count, file->width);
            return 0;
        }
    }
    file->image.row_offset = (int)first_row;
    file->image.col_offset = 0;
    if (!tiff.rgba_get(&file->image, file->band, file->width, count)) return 0;
    // With the file's own orientation asked for, TIFFRGBAImageGet flips nothing: the raster's
    // rows are the stored rows, top first. It premultiplies alpha: back to straight alpha.
    for (uint32_t row = 0; row < count; row++) {
        const uint32_t *source = file->band + (size_t)row * file->width;
        uint8_t *target = out + (size_t)row * file->width * 4;
        for (uint32_t x = 0; x < file->width; x++) {
            uint32_t abgr = source[x];
            uint8_t r = TIFFGetR(abgr), g = TIFFGetG(abgr), b = TIFFGetB(abgr), a = TIFFGetA(abgr);
            if (file->has_alpha && a != 255) {
                if (a == 0) {
                    r = g = b = 0;
                } else {
                    unsigned ur = (r * 255u + a / 2) / a, ug = (g * 255u + a / 2) / a, ub = (b * 255u + a / 2) / a;
                    r = (uint8_t)(ur > 255 ? 255 : ur);
                    g = (uint8_t)(ug > 255 ? 255 : ug);
                    b = (uint8_t)(ub > 255 ? 255 : ub);
                }
            }
            target[x * 4 + 0] = r;
            target[x * 4 + 1] = g;
            target[x * 4 + 2] = b;
            target[x * 4 + 3] = a;
        }
    }
    return 1;
}

const char *glance_tiff_error(const glance_tiff *file) { return file->error; }

void glance_tiff_close(glance_tiff *file) {
    if (file == NULL) return;
    if (file->image_begun) tiff.rgba_end(&file->image);
    if (file->handle != NULL) tiff.close(file->handle);
    if (file->options != NULL) tiff.options_free(file->options);
    free(file->band);
    free(file->tile);
    free(file->stored_band);
    free(file->linear_to_srgb);
    free(file);
}

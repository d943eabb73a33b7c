// See include/glance_exr.h.
#include "glance_exr.h"

#include <math.h>
#include <openexr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "glance_colour.h"
#include "glance_library_loader.h"

/// OpenEXRCore's functions, typed by its own header, found once and read-only after.
#define EXR_FUNCTIONS(X)                                                     \
    GLANCE_TYPED(X, start_read, exr_start_read)                              \
    GLANCE_TYPED(X, finish, exr_finish)                                      \
    GLANCE_TYPED(X, user_data, exr_get_user_data)                            \
    GLANCE_TYPED(X, count, exr_get_count)                                    \
    GLANCE_TYPED(X, storage, exr_get_storage)                                \
    GLANCE_TYPED(X, data_window, exr_get_data_window)                        \
    GLANCE_TYPED(X, channels, exr_get_channels)                              \
    GLANCE_TYPED(X, lines_per_chunk, exr_get_scanlines_per_chunk)            \
    GLANCE_TYPED(X, chromaticities, exr_attr_get_chromaticities)             \
    GLANCE_TYPED(X, chunk_info, exr_read_scanline_chunk_info)                \
    GLANCE_TYPED(X, tile_chunk_info, exr_read_tile_chunk_info)               \
    GLANCE_TYPED(X, tile_descriptor, exr_get_tile_descriptor)                \
    GLANCE_TYPED(X, decoding_initialize, exr_decoding_initialize)            \
    GLANCE_TYPED(X, decoding_routines, exr_decoding_choose_default_routines) \
    GLANCE_TYPED(X, decoding_update, exr_decoding_update)                    \
    GLANCE_TYPED(X, decoding_run, exr_decoding_run)                          \
    GLANCE_TYPED(X, decoding_destroy, exr_decoding_destroy)

/// The soname: Debian 12's OpenEXR 3.1 (its C core; the C++ library is not needed).
GLANCE_LIBRARY(exr, "libOpenEXRCore-3_1.so.30", EXR_FUNCTIONS, GLANCE_LIBRARY_NO_START)

int glance_exr_load(char *reason, size_t capacity) { return exr_ensure(reason, capacity); }

/// The channels drawn, in this order: red, green, blue (or luminance alone), alpha.
enum { RED, GREEN, BLUE, ALPHA, WANTED };

struct glance_exr {
    int fd;
    uint64_t size;
    exr_context_t context;
    exr_decode_pipeline_t decoder;
    /// Whether the decoder was set up (it is then destroyed), and its routines chosen.
    int decoder_started, routines_chosen;
    /// A tiled file's tile width (its height is the info's rows a chunk), or 0 for scanlines.
    int tile_width;
    /// The data window's first row (rows are counted from it).
    int top;
    glance_exr_info info;
    /// The name of each wanted channel (NULL: not drawn; luminance is RED's).
    char names[WANTED][80];
    /// How many of the wanted channels there are, and whether each is (-1: not; else its order).
    int stride, slot[WANTED];
    /// A chunk of rows of every channel of the part, a plane each (`planes` of them), and which
    /// plane each wanted channel's is.
    float *floats;
    int planes, plane_of[WANTED];
    /// Linear sRGB from the file's primaries (when it names others), by row.
    float matrix[3][3];
    uint8_t table[65536];
    /// Whether OpenEXRCore asked for bytes past the file's end (a cut file, not a damaged one).
    int past_end;
    char error[256];
};

static void say(char *reason, size_t capacity, const char *text) {
    if (reason != NULL && capacity > 0) snprintf(reason, capacity, "%s", text);
}

static void record_error(exr_const_context_t context, exr_result_t code, const char *message) {
    (void)code;
    void *user = NULL;
    if (exr.user_data(context, &user) != EXR_ERR_SUCCESS || user == NULL) return;
    glance_exr *file = user;
    if (file->error[0] == 0) snprintf(file->error, sizeof file->error, "%s", message ? message : "error");
}

static int64_t read_at(exr_const_context_t context, void *user, void *buffer, uint64_t count, uint64_t offset,
                       exr_stream_error_func_ptr_t error) {
    (void)context, (void)error;
    glance_exr *file = user;
    if (offset >= file->size || count > file->size - offset) file->past_end = 1;
    if (offset >= file->size) return 0;
    if (count > file->size - offset) count = file->size - offset;
    uint64_t done = 0;
    while (done < count) {
        ssize_t got = pread(file->fd, (uint8_t *)buffer + done, count - done, (off_t)(offset + done));
        if (got <= 0) return done > 0 ? (int64_t)done : -1;
        done += (uint64_t)got;
    }
    return (int64_t)done;
}

static int64_t size_of(exr_const_context_t context, void *user) {
    (void)context;
    return (int64_t)((glance_exr *)user)->size;
}

/// Whether `name` is `prefix` + `suffix` (prefix "" for the plain channels).
static int named(const exr_attr_chlist_entry_t *entry, const char *prefix, const char *suffix) {
    size_t p = strlen(prefix), s = strlen(suffix);
    return (size_t)entry->name.length == p + s && strncmp(entry->name.str, prefix, p) == 0 &&
           strncmp(entry->name.str + p, suffix, s) == 0;
}

/// Finds `prefix` + `suffix` among the channels; its index or -1.
static int find(const exr_attr_chlist_t *list, const char *prefix, const char *suffix) {
    for (int i = 0; i < list->num_channels; i++) {
        if (named(&list->entries[i], prefix, suffix)) return i;
    }
    return -1;
}

/// Whether `layer` (ending in its dot) names a render's beauty pass: its last part is `Combined`,
/// `beauty` or `RGBA`, in any case.
static int is_beauty(const char *layer) {
    size_t length = strlen(layer);
    if (length < 2) return 0;
    size_t start = length - 1;
    while (start > 0 && layer[start - 1] != '.') start--;
    size_t part = length - 1 - start;
    const char *names[] = {"combined", "beauty", "rgba"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (part == strlen(names[i]) && strncasecmp(layer + start, names[i], part) == 0) return 1;
    }
    return 0;
}

/// Chooses the channels (see the header); 0 when the file has none to draw.
static int choose_channels(glance_exr *file, const exr_attr_chlist_t *list) {
    const char *prefix = "";
    char layer[64] = "";
    int r = find(list, "", "R"), g = find(list, "", "G"), b = find(list, "", "B");
    int y = find(list, "", "Y");
    if ((r < 0 || g < 0 || b < 0) && y < 0) {
        // A multi-layer render: the beauty pass (Blender's `Combined`, others' `beauty` or
        // `RGBA`), else the first layer with all three. (Blender's `AO` sorts before `Combined`.)
        for (int pass = 0; pass < 2 && layer[0] == 0; pass++) {
            for (int i = 0; i < list->num_channels && layer[0] == 0; i++) {
                const exr_attr_string_t *name = &list->entries[i].name;
                if (name->length < 3 || name->length > 60 || strncmp(name->str + name->length - 2, ".R", 2) != 0) {
                    continue;
                }
                snprintf(layer, sizeof layer, "%.*s", name->length - 1, name->str);
                if (find(list, layer, "G") < 0 || find(list, layer, "B") < 0 || (pass == 0 && !is_beauty(layer))) {
                    layer[0] = 0;
                }
            }
        }
        if (layer[0] == 0) return 0;
        prefix = layer;
        r = find(list, prefix, "R"), g = find(list, prefix, "G"), b = find(list, prefix, "B");
        snprintf(file->info.layer, sizeof file->info.layer, "%.*s", (int)strlen(layer) - 1, layer);
    }
    int gray = r < 0 || g < 0 || b < 0;
    int a = find(list, prefix, "A");
    int chosen[WANTED] = {gray ? y : r, gray ? -1 : g, gray ? -1 : b, a};
    file->stride = 0;
    for (int c = 0; c < WANTED; c++) {
        file->slot[c] = -1;
        file->names[c][0] = 0;
        if (chosen[c] < 0) continue;
        const exr_attr_chlist_entry_t *entry = &list->entries[chosen[c]];
        // Subsampled channels (the luminance-chroma files of old cameras) are not drawn.
        if (entry->x_sampling != 1 || entry->y_sampling != 1) return -1;
        snprintf(file->names[c], sizeof file->names[c], "%.*s", entry->name.length, entry->name.str);
        file->slot[c] = file->stride++;
    }
    file->info.is_gray = gray;
    file->info.has_alpha = a >= 0;
    return 1;
}

/// The primaries of the `chromaticities` attribute, when they are not sRGB's: the matrix to sRGB's.
static void choose_primaries(glance_exr *file) {
    exr_attr_chromaticities_t c;
    if (exr.chromaticities(file->context, 0, "chromaticities", &c) != EXR_ERR_SUCCESS) return;
    double values[8] = {c.white_x, c.white_y, c.red_x, c.red_y, c.green_x, c.green_y, c.blue_x, c.blue_y};
    file->info.has_primaries = glance_colour_primaries_matrix(values, file->matrix) == 1;
}

glance_exr *glance_exr_open(int fd, uint64_t size, int max_side, glance_exr_info *info, char *reason,
                            size_t capacity, glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    glance_exr *file = calloc(1, sizeof *file);
    if (file == NULL) {
        say(reason, capacity, "out of memory");
        *failure = GLANCE_FAILURE_OUT_OF_MEMORY;
        return NULL;
    }
    file->fd = fd;
    file->size = size;
    for (int c = 0; c < WANTED; c++) file->plane_of[c] = -1;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = file;
    init.read_fn = read_at;
    init.size_fn = size_of;
    init.error_handler_fn = record_error;
    init.max_image_width = max_side;
    init.max_image_height = max_side;
    init.max_tile_width = max_side;
    init.max_tile_height = max_side;
    if (exr.start_read(&file->context, "document", &init) != EXR_ERR_SUCCESS) {
        say(reason, capacity, file->error[0] ? file->error : "not an OpenEXR file OpenEXRCore can read");
        if (file->past_end) *failure = GLANCE_FAILURE_TRUNCATED;
        glance_exr_close(file);
        return NULL;
    }
    exr_storage_t storage = EXR_STORAGE_LAST_TYPE;
    exr_attr_box2i_t window;
    const exr_attr_chlist_t *list = NULL;
    int32_t lines = 0;
    if (exr.storage(file->context, 0, &storage) != EXR_ERR_SUCCESS ||
        exr.data_window(file->context, 0, &window) != EXR_ERR_SUCCESS ||
        exr.channels(file->context, 0, &list) != EXR_ERR_SUCCESS || list == NULL) {
        say(reason, capacity, file->error[0] ? file->error : "its header cannot be read");
        glance_exr_close(file);
        return NULL;
    }
    if (storage != EXR_STORAGE_SCANLINE && storage != EXR_STORAGE_TILED) {
        say(reason, capacity, "deep pictures");
        *failure = GLANCE_FAILURE_UNSUPPORTED;
        glance_exr_close(file);
        return NULL;
    }
    int chosen = choose_channels(file, list);
    if (chosen <= 0) {
        say(reason, capacity, chosen < 0 ? "subsampled channels" : "no R, G, B or Y channel to draw");
        *failure = GLANCE_FAILURE_UNSUPPORTED;
        glance_exr_close(file);
        return NULL;
    }
    if (storage == EXR_STORAGE_TILED) {
        // The full-resolution level, a row of tiles at a time (a mipmapped file's smaller levels
        // are not read).
        uint32_t tile_width = 0, tile_height = 0;
        exr_tile_level_mode_t levels;
        exr_tile_round_mode_t rounding;
        if (exr.tile_descriptor(file->context, 0, &tile_width, &tile_height, &levels, &rounding) != EXR_ERR_SUCCESS ||
            tile_width == 0 || tile_height == 0 || tile_width > (uint32_t)max_side ||
            tile_height > (uint32_t)max_side) {
            say(reason, capacity, "its tiles' size cannot be read");
            glance_exr_close(file);
            return NULL;
        }
        file->tile_width = (int)tile_width;
        lines = (int32_t)tile_height;
    } else if (exr.lines_per_chunk(file->context, 0, &lines) != EXR_ERR_SUCCESS || lines <= 0) {
        say(reason, capacity, "its header names no scanlines a chunk");
        glance_exr_close(file);
        return NULL;
    }
    int64_t width = (int64_t)window.max.x - window.min.x + 1, height = (int64_t)window.max.y - window.min.y + 1;
    if (width <= 0 || height <= 0 || width > 0x7fffffff || height > 0x7fffffff) {
        say(reason, capacity, "its data window is empty");
        glance_exr_close(file);
        return NULL;
    }
    file->top = window.min.y;
    file->info.width = (int)width;
    file->info.height = (int)height;
    file->info.rows_per_chunk = lines;
    choose_primaries(file);
    glance_colour_linear_to_srgb_table(file->table);
    *info = file->info;
    return file;
}


/// Decodes `chunk` (a scanline chunk, or a tile whose left edge is `x` pixels into the row) into
/// the planes, every channel of the part to a plane of its own. Returns 1, or 0 with the reason.
static int decode_chunk(glance_exr *file, const exr_chunk_info_t *chunk, int x, char *reason, size_t capacity,
                        glance_failure *failure) {
    exr_result_t status = file->decoder_started ? exr.decoding_update(file->context, 0, chunk, &file->decoder)
                                                : exr.decoding_initialize(file->context, 0, chunk, &file->decoder);
    if (status != EXR_ERR_SUCCESS) {
        say(reason, capacity, file->error[0] ? file->error : "a chunk cannot be decoded");
        return 0;
    }
    file->decoder_started = 1;
    // One plane of a chunk's rows for every channel of the part, drawn or not: OpenEXRCore 3.1
    // wrote through the NULL pointer that is to skip a channel (a multi-layer render's depth), and
    // its interleaving fast paths mixed up the channels of a half RGBA file decoded to floats in
    // one interleaved buffer.
    int width = file->info.width;
    size_t plane = (size_t)width * (size_t)file->info.rows_per_chunk;
    if (file->floats == NULL) {
        file->planes = file->decoder.channel_count;
        // Hundreds of channels of wide rows in a chunk of 256: refused before they are allocated.
        if ((double)plane * file->planes * sizeof(float) > (double)(1u << 30)) {
            say(reason, capacity, "its chunks of every channel would take more than 1 GiB");
            *failure = GLANCE_FAILURE_UNSUPPORTED;
            return 0;
        }
        file->floats = calloc(plane * (size_t)(file->planes > 0 ? file->planes : 1), sizeof(float));
        if (file->floats == NULL) {
            say(reason, capacity, "out of memory for a chunk of rows");
            *failure = GLANCE_FAILURE_OUT_OF_MEMORY;
            return 0;
        }
    }
    if (file->decoder.channel_count != file->planes) {
        say(reason, capacity, "its chunks do not all have the same channels");
        return 0;
    }
    for (int i = 0; i < file->decoder.channel_count; i++) {
        exr_coding_channel_info_t *channel = &file->decoder.channels[i];
        // Every channel's samples are at most 4 bytes: decoded as they are, drawn ones as floats.
        channel->user_bytes_per_element = channel->bytes_per_element;
        channel->user_data_type = channel->data_type;
        for (int c = 0; c < WANTED; c++) {
            if (file->slot[c] < 0 || strcmp(channel->channel_name, file->names[c]) != 0) continue;
            file->plane_of[c] = i;
            channel->user_bytes_per_element = sizeof(float);
            channel->user_data_type = EXR_PIXEL_FLOAT;
        }
        channel->decode_to_ptr = (uint8_t *)(file->floats + (size_t)i * plane) + (size_t)x * sizeof(float);
        channel->user_pixel_stride = channel->user_bytes_per_element;
        // (A plane's rows are a row of floats apart, whatever a channel's own samples take.)
        channel->user_line_stride = width * (int32_t)sizeof(float);
    }
    for (int c = 0; c < WANTED; c++) {
        if (file->slot[c] >= 0 && (file->plane_of[c] < 0 || file->plane_of[c] >= file->planes)) {
            say(reason, capacity, "a chunk lacks a channel its header names");
            return 0;
        }
    }
    if (!file->routines_chosen) {
        if (exr.decoding_routines(file->context, 0, &file->decoder) != EXR_ERR_SUCCESS) {
            say(reason, capacity, file->error[0] ? file->error : "no decoder for its channels");
            return 0;
        }
        file->routines_chosen = 1;
    }
    if (exr.decoding_run(file->context, 0, &file->decoder) != EXR_ERR_SUCCESS) {
        say(reason, capacity, file->error[0] ? file->error : "a chunk's data is damaged");
        if (file->past_end) *failure = GLANCE_FAILURE_TRUNCATED;
        return 0;
    }
    return 1;
}

/// The failure of a chunk's table entry that cannot be read.
static int no_chunk(glance_exr *file, char *reason, size_t capacity, glance_failure *failure) {
    say(reason, capacity, file->error[0] ? file->error : "a chunk's table entry cannot be read");
    if (file->past_end) *failure = GLANCE_FAILURE_TRUNCATED;
    return 0;
}

int glance_exr_read_chunk(glance_exr *file, int row, uint8_t *out, char *reason, size_t capacity,
                          glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    exr_chunk_info_t chunk;
    int width = file->info.width, rows = 0;
    if (file->tile_width > 0) {
        // A row of tiles of the full-resolution level, each decoded into its place in the row.
        int tile_row = row / file->info.rows_per_chunk;
        for (int tile = 0, x = 0; x < width; tile++, x += file->tile_width) {
            if (exr.tile_chunk_info(file->context, 0, tile, tile_row, 0, 0, &chunk) != EXR_ERR_SUCCESS) {
                return no_chunk(file, reason, capacity, failure);
            }
            if (chunk.height <= 0 || chunk.height > file->info.rows_per_chunk || chunk.width <= 0 ||
                chunk.width > width - x || (rows > 0 && chunk.height != rows)) {
                say(reason, capacity, "a tile is not the size its place says");
                return 0;
            }
            rows = chunk.height;
            if (!decode_chunk(file, &chunk, x, reason, capacity, failure)) return 0;
        }
    } else {
        if (exr.chunk_info(file->context, 0, file->top + row, &chunk) != EXR_ERR_SUCCESS) {
            return no_chunk(file, reason, capacity, failure);
        }
        rows = chunk.height;
        if (rows <= 0 || chunk.start_y != file->top + row || rows > file->info.rows_per_chunk) {
            say(reason, capacity, "a chunk is not where its table says");
            return 0;
        }
        if (!decode_chunk(file, &chunk, 0, reason, capacity, failure)) return 0;
    }
    if (row + rows > file->info.height) {
        say(reason, capacity, "a chunk runs past the picture's last row");
        return 0;
    }
    size_t plane = (size_t)width * (size_t)file->info.rows_per_chunk;
    int alpha = file->info.has_alpha, channels = alpha ? 4 : 3;
    for (size_t pixel = 0; pixel < (size_t)width * (size_t)rows; pixel++) {
        const float *p = file->floats + pixel;
        float r = p[(size_t)file->plane_of[RED] * plane];
        float g = file->info.is_gray ? r : p[(size_t)file->plane_of[GREEN] * plane];
        float b = file->info.is_gray ? r : p[(size_t)file->plane_of[BLUE] * plane];
        float a = alpha ? p[(size_t)file->plane_of[ALPHA] * plane] : 1;
        // OpenEXR's colours are premultiplied by alpha.
        if (alpha && a != 1) {
            float divisor = a > 0 ? a : INFINITY;
            r /= divisor, g /= divisor, b /= divisor;
        }
        if (file->info.has_primaries) {
            const float(*m)[3] = file->matrix;
            float lr = r, lg = g, lb = b;
            r = m[0][0] * lr + m[0][1] * lg + m[0][2] * lb;
            g = m[1][0] * lr + m[1][1] * lg + m[1][2] * lb;
            b = m[2][0] * lr + m[2][1] * lg + m[2][2] * lb;
        }
        uint8_t *q = out + pixel * (size_t)channels;
        q[0] = file->table[glance_colour_linear_index(r)];
        q[1] = file->table[glance_colour_linear_index(g)];
        q[2] = file->table[glance_colour_linear_index(b)];
        if (alpha) q[3] = (uint8_t)(glance_colour_linear_index(a) * 255 / 65535);
    }
    return rows;
}

void glance_exr_close(glance_exr *file) {
    if (file == NULL) return;
    if (file->decoder_started) exr.decoding_destroy(file->context, &file->decoder);
    if (file->context != NULL) exr.finish(&file->context);
    free(file->floats);
    free(file);
}

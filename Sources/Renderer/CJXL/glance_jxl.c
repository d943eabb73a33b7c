// See include/glance_jxl.h.
#include "glance_jxl.h"

#include <jxl/decode.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glance_library_loader.h"
#include "glance_tone_map.h"

/// libjxl's functions, typed by its own header, found once and read-only after.
#define JXL_FUNCTIONS(X)                                                         \
    GLANCE_TYPED(X, create, JxlDecoderCreate)                                    \
    GLANCE_TYPED(X, destroy, JxlDecoderDestroy)                                  \
    GLANCE_TYPED(X, subscribe, JxlDecoderSubscribeEvents)                        \
    GLANCE_TYPED(X, keep_orientation, JxlDecoderSetKeepOrientation)              \
    GLANCE_TYPED(X, unpremultiply, JxlDecoderSetUnpremultiplyAlpha)              \
    GLANCE_TYPED(X, set_input, JxlDecoderSetInput)                               \
    GLANCE_TYPED(X, process, JxlDecoderProcessInput)                             \
    GLANCE_TYPED(X, basic_info, JxlDecoderGetBasicInfo)                          \
    GLANCE_TYPED(X, encoded_profile, JxlDecoderGetColorAsEncodedProfile)         \
    GLANCE_TYPED(X, icc_size, JxlDecoderGetICCProfileSize)                       \
    GLANCE_TYPED(X, icc, JxlDecoderGetColorAsICCProfile)                         \
    GLANCE_TYPED(X, preferred_profile, JxlDecoderSetPreferredColorProfile)       \
    GLANCE_TYPED(X, out_buffer_size, JxlDecoderImageOutBufferSize)               \
    GLANCE_TYPED(X, set_out_buffer, JxlDecoderSetImageOutBuffer)

/// The soname: Debian 12's libjxl (its ABI is named by its minor version before 1.0).
GLANCE_LIBRARY(jxl, "libjxl.so.0.7", JXL_FUNCTIONS, GLANCE_LIBRARY_NO_START)

int glance_jxl_load(char *reason, size_t capacity) { return jxl_ensure(reason, capacity); }

struct glance_jxl {
    uint8_t *data;
    JxlDecoder *decoder;
    glance_jxl_info info;
    /// The original colour, for an HDR picture's primaries.
    JxlColorEncoding original;
    int has_original;
    /// Whether the pixels are tone-mapped here (PQ or HLG with BT.2100's primaries): decoded to
    /// 16 bits in their own colour, then brought to sRGB.
    int tone_map;
    /// The brightest light the picture was mastered for, in cd/m².
    double intensity_target;
    uint8_t *pixels;
};

static void say(char *reason, size_t capacity, const char *text) {
    if (reason != NULL && capacity > 0) snprintf(reason, capacity, "%s", text);
}

/// Runs the decoder to its next event, as a failure when it stops short: NEED_MORE_INPUT after
/// the whole file was given means the file ended early.
static JxlDecoderStatus next_event(glance_jxl *file, char *reason, size_t capacity, glance_failure *failure) {
    JxlDecoderStatus status = jxl.process(file->decoder);
    if (status == JXL_DEC_ERROR) {
        say(reason, capacity, "libjxl could not decode the codestream");
        *failure = GLANCE_FAILURE_CORRUPT;
    } else if (status == JXL_DEC_NEED_MORE_INPUT) {
        say(reason, capacity, "the file ends early");
        *failure = GLANCE_FAILURE_TRUNCATED;
    }
    return status;
}

static glance_jxl_transfer transfer_of(const JxlColorEncoding *encoding) {
    if (encoding->transfer_function == JXL_TRANSFER_FUNCTION_PQ) return GLANCE_JXL_PQ;
    if (encoding->transfer_function == JXL_TRANSFER_FUNCTION_HLG) return GLANCE_JXL_HLG;
    return GLANCE_JXL_SDR;
}

/// Whether the container at `data` (none for a bare codestream) has a top-level box of `type`.
static int has_box(const uint8_t *data, size_t size, const char type[4]) {
    static const uint8_t signature[12] = {0, 0, 0, 0x0C, 'J', 'X', 'L', ' ', 0x0D, 0x0A, 0x87, 0x0A};
    if (size < sizeof signature || memcmp(data, signature, sizeof signature) != 0) return 0;
    for (size_t at = sizeof signature; size - at >= 8;) {
        uint64_t length = (uint64_t)data[at] << 24 | (uint64_t)data[at + 1] << 16 | (uint64_t)data[at + 2] << 8 |
                          data[at + 3];
        if (memcmp(data + at + 4, type, 4) == 0) return 1;
        if (length == 1 && size - at >= 16) {
            length = 0;
            for (int i = 0; i < 8; i++) length = length << 8 | data[at + 8 + i];
        }
        // A box of size 0 reaches the file's end; one shorter than its own header is damage.
        if (length < 8 || length > size - at) return 0;
        at += (size_t)length;
    }
    return 0;
}

glance_jxl *glance_jxl_open(const uint8_t *data, size_t size, glance_jxl_info *info, char *reason,
                            size_t capacity, glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    glance_jxl *file = calloc(1, sizeof *file);
    if (file != NULL) file->data = malloc(size ? size : 1);
    if (file == NULL || file->data == NULL || (file->decoder = jxl.create(NULL)) == NULL) {
        say(reason, capacity, "out of memory for the file");
        *failure = GLANCE_FAILURE_OUT_OF_MEMORY;
        glance_jxl_close(file);
        return NULL;
    }
    memcpy(file->data, data, size);
    // The orientation is the pipeline's to apply (to the thumbnail, not the whole picture), and an
    // image whose alpha is premultiplied is given with it divided out, as every other kind is.
    if (jxl.subscribe(file->decoder, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE) !=
            JXL_DEC_SUCCESS ||
        jxl.keep_orientation(file->decoder, JXL_TRUE) != JXL_DEC_SUCCESS ||
        jxl.unpremultiply(file->decoder, JXL_TRUE) != JXL_DEC_SUCCESS ||
        jxl.set_input(file->decoder, file->data, size) != JXL_DEC_SUCCESS) {
        say(reason, capacity, "libjxl refused its settings");
        glance_jxl_close(file);
        return NULL;
    }
    // The input is not closed: libjxl then asks for more where the file ends early, which tells
    // a cut file from a damaged one (after closing it says only that it failed).
    JxlBasicInfo basic;
    if (next_event(file, reason, capacity, failure) != JXL_DEC_BASIC_INFO ||
        jxl.basic_info(file->decoder, &basic) != JXL_DEC_SUCCESS) {
        glance_jxl_close(file);
        return NULL;
    }
    glance_jxl_info *own = &file->info;
    own->width = (int)(basic.xsize > 0x7fffffff ? 0x7fffffff : basic.xsize);
    own->height = (int)(basic.ysize > 0x7fffffff ? 0x7fffffff : basic.ysize);
    own->orientation = (int)basic.orientation;
    own->has_alpha = basic.alpha_bits > 0;
    own->alpha_premultiplied = basic.alpha_premultiplied != 0;
    own->is_gray = basic.num_color_channels == 1;
    own->is_animation = basic.have_animation != 0;
    own->bits_per_sample = (int)basic.bits_per_sample;
    own->is_xyb = basic.uses_original_profile == 0;
    own->is_recompressed_jpeg = has_box(data, size, "jbrd");
    file->intensity_target = basic.intensity_target;
    if (next_event(file, reason, capacity, failure) != JXL_DEC_COLOR_ENCODING) {
        glance_jxl_close(file);
        return NULL;
    }
    file->has_original = jxl.encoded_profile(file->decoder, NULL, JXL_COLOR_PROFILE_TARGET_ORIGINAL,
                                             &file->original) == JXL_DEC_SUCCESS;
    if (file->has_original) {
        own->transfer = transfer_of(&file->original);
        file->tone_map = own->transfer != GLANCE_JXL_SDR && !own->is_gray &&
                         file->original.color_space == JXL_COLOR_SPACE_RGB &&
                         file->original.primaries == JXL_PRIMARIES_2100;
        // An XYB picture is converted by libjxl to the colour asked: its own PQ or HLG colour
        // when it is tone-mapped here, else sRGB (libjxl's default, linear sRGB, would need
        // more than 8 bits).
        if (own->is_xyb) {
            JxlColorEncoding wanted = file->original;
            if (!file->tone_map) {
                wanted.color_space = own->is_gray ? JXL_COLOR_SPACE_GRAY : JXL_COLOR_SPACE_RGB;
                wanted.white_point = JXL_WHITE_POINT_D65;
                wanted.primaries = JXL_PRIMARIES_SRGB;
                wanted.transfer_function = JXL_TRANSFER_FUNCTION_SRGB;
                wanted.rendering_intent = JXL_RENDERING_INTENT_RELATIVE;
            }
            jxl.preferred_profile(file->decoder, &wanted);
        }
    } else if (own->is_xyb) {
        // An ICC-described XYB picture: sRGB, for which libjxl then gives its profile.
        JxlColorEncoding srgb = {.color_space = own->is_gray ? JXL_COLOR_SPACE_GRAY : JXL_COLOR_SPACE_RGB,
                                 .white_point = JXL_WHITE_POINT_D65,
                                 .primaries = JXL_PRIMARIES_SRGB,
                                 .transfer_function = JXL_TRANSFER_FUNCTION_SRGB,
                                 .rendering_intent = JXL_RENDERING_INTENT_RELATIVE};
        jxl.preferred_profile(file->decoder, &srgb);
    }
    *info = *own;
    return file;
}

size_t glance_jxl_icc_profile(glance_jxl *file, uint8_t *out, size_t capacity) {
    // Tone-mapped pixels are sRGB already.
    if (file->tone_map) return 0;
    size_t size = 0;
    if (jxl.icc_size(file->decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &size) != JXL_DEC_SUCCESS) return 0;
    if (out != NULL && size <= capacity &&
        jxl.icc(file->decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, out, size) != JXL_DEC_SUCCESS) {
        return 0;
    }
    return size;
}

/// Brings `count` 16-bit pixels in BT.2100 PQ or HLG (`channels` 3 or 4) to 8-bit sRGB in `out`.
static void tone_map(const glance_jxl *file, const uint16_t *in, uint8_t *out, size_t count, int channels) {
    glance_hdr_tables *tables = malloc(sizeof *tables);
    if (tables == NULL) return;
    // The header's intensity target is the PQ picture's peak; cjxl writes 10,000 cd/m² (PQ's
    // whole range) when the source says nothing, taken as the usual HDR10 mastering peak instead,
    // as for a video without metadata.
    double target = file->intensity_target;
    double peak = file->info.transfer == GLANCE_JXL_HLG ? GLANCE_HLG_PEAK
                  : target > GLANCE_SDR_WHITE && target < 10000 ? target
                                                                 : 1000.0;
    glance_hdr_tables_build(tables, file->info.transfer == GLANCE_JXL_HLG, peak);
    for (size_t pixel = 0; pixel < count; pixel++) {
        glance_hdr_tone_map_pixel(tables, in + pixel * channels, out + pixel * channels);
        if (channels == 4) out[pixel * 4 + 3] = (uint8_t)(in[pixel * 4 + 3] >> 8);
    }
    free(tables);
}

int glance_jxl_decode(glance_jxl *file, int *channels, char *reason, size_t capacity, glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    *channels = file->info.has_alpha ? 4 : 3;
    JxlPixelFormat format = {(uint32_t)*channels, file->tone_map ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
                             JXL_NATIVE_ENDIAN, 0};
    size_t size = 0;
    if (jxl.out_buffer_size(file->decoder, &format, &size) != JXL_DEC_SUCCESS) {
        say(reason, capacity, "libjxl gave no size for the picture");
        return 0;
    }
    void *decoded = malloc(size ? size : 1);
    if (decoded == NULL) {
        snprintf(reason, capacity, "out of memory for %dx%d pixels", file->info.width, file->info.height);
        *failure = GLANCE_FAILURE_OUT_OF_MEMORY;
        return 0;
    }
    if (jxl.set_out_buffer(file->decoder, &format, decoded, size) != JXL_DEC_SUCCESS) {
        say(reason, capacity, "libjxl refused the output buffer");
        free(decoded);
        return 0;
    }
    // The first full image is the first displayed frame: an animation's others are not decoded.
    JxlDecoderStatus status;
    while ((status = next_event(file, reason, capacity, failure)) == JXL_DEC_COLOR_ENCODING) {
    }
    if (status != JXL_DEC_FULL_IMAGE) {
        if (status == JXL_DEC_SUCCESS) say(reason, capacity, "the file holds no frame");
        free(decoded);
        return 0;
    }
    if (!file->tone_map) {
        file->pixels = decoded;
        return 1;
    }
    size_t count = (size_t)file->info.width * (size_t)file->info.height;
    file->pixels = malloc(count * (size_t)*channels);
    if (file->pixels == NULL) {
        say(reason, capacity, "out of memory for the tone-mapped picture");
        *failure = GLANCE_FAILURE_OUT_OF_MEMORY;
        free(decoded);
        return 0;
    }
    tone_map(file, decoded, file->pixels, count, *channels);
    free(decoded);
    return 1;
}

const uint8_t *glance_jxl_pixels(const glance_jxl *file) { return file->pixels; }

void glance_jxl_close(glance_jxl *file) {
    if (file == NULL) return;
    if (file->decoder != NULL) jxl.destroy(file->decoder);
    free(file->data);
    free(file->pixels);
    free(file);
}

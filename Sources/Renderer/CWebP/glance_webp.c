// WebP encoding through libwebp's advanced API: the presets and the memory writer are libwebp's;
// this file only sets them up and owns nothing past the call.
#include "glance_webp.h"

#include <stdio.h>
#include <string.h>
#include <webp/encode.h>

// Encodes the pixels with `config` (set up and validated by the caller) into a buffer of
// libwebp's memory writer.
static int encode_with(const WebPConfig *config, const uint8_t *pixels, int width, int height, int channels,
                       size_t stride, uint8_t **output, size_t *length) {
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) return -1;
    // Lossless keeps ARGB; lossy is encoded from YUV, which libwebp makes from the import.
    picture.use_argb = config->lossless;
    picture.width = width;
    picture.height = height;
    int imported = channels == 4 ? WebPPictureImportRGBA(&picture, pixels, (int)stride)
                                 : WebPPictureImportRGB(&picture, pixels, (int)stride);
    if (!imported) {
        WebPPictureFree(&picture);
        return picture.error_code != VP8_ENC_OK ? (int)picture.error_code : -1;
    }
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int ok = WebPEncode(config, &picture);
    int error = (int)picture.error_code;
    WebPPictureFree(&picture);
    if (!ok) {
        WebPMemoryWriterClear(&writer);
        return error != VP8_ENC_OK ? error : -1;
    }
    *output = writer.mem;
    *length = writer.size;
    return 0;
}

static int valid_arguments(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                           uint8_t **output, size_t *length) {
    return pixels != NULL && output != NULL && length != NULL && width > 0 && height > 0 &&
           (channels == 3 || channels == 4) && stride <= (size_t)INT32_MAX;
}

int glance_webp_encode_lossless(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                                int level, uint8_t **output, size_t *length) {
    if (!valid_arguments(pixels, width, height, channels, stride, output, length)) return -1;
    WebPConfig config;
    if (!WebPConfigInit(&config)) return -1;
    if (!WebPConfigLosslessPreset(&config, level)) return -1;
    // Transparent pixels keep their colour: the thumbnail is exact.
    config.exact = 1;
    if (!WebPValidateConfig(&config)) return -1;
    return encode_with(&config, pixels, width, height, channels, stride, output, length);
}

int glance_webp_encode_lossy(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                             float quality, int method, uint8_t **output, size_t *length) {
    if (!valid_arguments(pixels, width, height, channels, stride, output, length)) return -1;
    WebPConfig config;
    if (!WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, quality)) return -1;
    config.method = method;
    if (!WebPValidateConfig(&config)) return -1;
    return encode_with(&config, pixels, width, height, channels, stride, output, length);
}

void glance_webp_free(uint8_t *buffer) { WebPFree(buffer); }

// ---------------------------------------------------------------------------------------------
// Decoding: WebP documents (lossy, lossless, alpha, the first frame of an animation).

#include <webp/decode.h>
#include <webp/demux.h>

int glance_webp_info(const uint8_t *data, size_t size, int *width, int *height, int *has_alpha, int *has_animation,
                     int *is_lossy) {
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(data, size, &features);
    if (status != VP8_STATUS_OK) return (int)status;
    *width = features.width;
    *height = features.height;
    *has_alpha = features.has_alpha;
    *has_animation = features.has_animation;
    *is_lossy = features.format == 1;
    return 0;
}

int glance_webp_decode_scaled(const uint8_t *data, size_t size, int width, int height, int channels, uint8_t *out,
                              size_t stride) {
    if (!data || !out || width < 1 || height < 1 || (channels != 3 && channels != 4)) return -1;
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return -1;
    if (WebPGetFeatures(data, size, &config.input) != VP8_STATUS_OK) return (int)VP8_STATUS_BITSTREAM_ERROR;
    // At its own size an image is decoded as it is: libwebp's scaler works on premultiplied
    // alpha, whose rounding would change the colour of translucent pixels of a lossless image.
    if (width != config.input.width || height != config.input.height) {
        config.options.use_scaling = 1;
        config.options.scaled_width = width;
        config.options.scaled_height = height;
    }
    config.output.colorspace = channels == 4 ? MODE_RGBA : MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = out;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = stride * (size_t)height;
    VP8StatusCode status = WebPDecode(data, size, &config);
    WebPFreeDecBuffer(&config.output);
    return (int)status;
}

int glance_webp_decode_first_frame(const uint8_t *data, size_t size, uint8_t *out, size_t length) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return -1;
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData webp = {data, size};
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&webp, &options);
    if (!decoder) return -2;
    WebPAnimInfo info;
    int result = -3;
    uint8_t *frame = NULL;
    int timestamp = 0;
    if (WebPAnimDecoderGetInfo(decoder, &info) && (size_t)info.canvas_width * info.canvas_height * 4 == length &&
        WebPAnimDecoderGetNext(decoder, &frame, &timestamp) && frame) {
        memcpy(out, frame, length);
        result = 0;
    }
    WebPAnimDecoderDelete(decoder);
    return result;
}

/// Where chunk `fourcc`, announced by `flag` in the VP8X header, lies in the file: its payload's
/// offset and length into `*offset` and `*length` (0 and 0 when it has none).
static void locate_chunk(WebPDemuxer *demux, const uint8_t *data, const char *fourcc, uint32_t flag,
                         size_t *offset, size_t *length) {
    *offset = 0;
    *length = 0;
    WebPChunkIterator chunk;
    if ((WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS) & flag) && WebPDemuxGetChunk(demux, fourcc, 1, &chunk)) {
        *offset = (size_t)(chunk.chunk.bytes - data);
        *length = chunk.chunk.size;
        WebPDemuxReleaseChunkIterator(&chunk);
    }
}

int glance_webp_metadata(const uint8_t *data, size_t size, size_t *icc_offset, size_t *icc_length,
                         size_t *exif_offset, size_t *exif_length) {
    WebPData webp = {data, size};
    WebPDemuxer *demux = WebPDemux(&webp);
    if (!demux) return -1;
    locate_chunk(demux, data, "ICCP", ICCP_FLAG, icc_offset, icc_length);
    locate_chunk(demux, data, "EXIF", EXIF_FLAG, exif_offset, exif_length);
    WebPDemuxDelete(demux);
    return 0;
}

glance_failure glance_webp_failure(int status, char *reason, size_t capacity) {
    switch (status) {
    case VP8_STATUS_OUT_OF_MEMORY:
        snprintf(reason, capacity, "libwebp could not allocate memory");
        return GLANCE_FAILURE_OUT_OF_MEMORY;
    case VP8_STATUS_UNSUPPORTED_FEATURE:
        snprintf(reason, capacity, "a feature libwebp does not support");
        return GLANCE_FAILURE_UNSUPPORTED;
    case VP8_STATUS_NOT_ENOUGH_DATA:
        snprintf(reason, capacity, "the data ends early");
        return GLANCE_FAILURE_TRUNCATED;
    default:
        snprintf(reason, capacity, "libwebp status %d", status);
        return GLANCE_FAILURE_CORRUPT;
    }
}

// Lossless WebP encoding through libwebp's advanced API: the preset and the memory writer are
// libwebp's; this file only sets them up and owns nothing past the call.
#include "glance_webp.h"

#include <webp/encode.h>

int glance_webp_encode_lossless(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                                int level, uint8_t **output, size_t *length) {
    if (pixels == NULL || output == NULL || length == NULL || width <= 0 || height <= 0 ||
        (channels != 3 && channels != 4) || stride > (size_t)INT32_MAX) {
        return -1;
    }
    WebPConfig config;
    if (!WebPConfigInit(&config)) return -1;
    if (!WebPConfigLosslessPreset(&config, level)) return -1;
    // Transparent pixels keep their colour: the thumbnail is exact.
    config.exact = 1;
    if (!WebPValidateConfig(&config)) return -1;

    WebPPicture picture;
    if (!WebPPictureInit(&picture)) return -1;
    picture.use_argb = 1;
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
    int ok = WebPEncode(&config, &picture);
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

void glance_webp_free(uint8_t *buffer) { WebPFree(buffer); }

// WebP encoding through libwebp's advanced API: the configuration (lossless preset or lossy
// quality) and the memory writer are libwebp's; this file only sets them up and owns nothing
// past the call.
#include "glance_webp.h"

#include <webp/encode.h>

int glance_webp_encode(const uint8_t *pixels, int width, int height, int channels, size_t stride, int lossless,
                       int level, float quality, uint8_t **output, size_t *length) {
    if (pixels == NULL || output == NULL || length == NULL || width <= 0 || height <= 0 ||
        (channels != 3 && channels != 4) || stride > (size_t)INT32_MAX) {
        return -1;
    }
    WebPConfig config;
    if (!WebPConfigInit(&config)) return -1;
    if (lossless) {
        if (!WebPConfigLosslessPreset(&config, level)) return -1;
        // Transparent pixels keep their colour: the thumbnail is exact where lossless.
        config.exact = 1;
    } else {
        config.quality = quality;
        // Method 2 of 0-6: half the time of the default 4 for 3% more bytes (a photo's 512, cwebp).
        config.method = 2;
    }
    if (!WebPValidateConfig(&config)) return -1;

    WebPPicture picture;
    if (!WebPPictureInit(&picture)) return -1;
    // ARGB for lossless (exact pixels), YUV made at import for lossy.
    picture.use_argb = lossless ? 1 : 0;
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

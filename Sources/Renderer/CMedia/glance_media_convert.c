// A decoded frame to 8-bit sRGB: the matrix, the range, and HDR brought to SDR.
// See include/glance_media.h.
#define _GNU_SOURCE
#include "glance_media_private.h"
#include "glance_tone_map.h"


double glance_media_tone_map_grey(glance_media_transfer transfer, double peak, int code) {
    return glance_hdr_tone_map_grey(transfer == GLANCE_MEDIA_HLG, peak, code);
}

static int is_full_range_format(enum AVPixelFormat format) {
    return format == AV_PIX_FMT_YUVJ420P || format == AV_PIX_FMT_YUVJ422P || format == AV_PIX_FMT_YUVJ444P ||
           format == AV_PIX_FMT_YUVJ440P || format == AV_PIX_FMT_YUVJ411P;
}

int glance_media_convert(glance_media *media, const AVFrame *frame, int width, int height, char *reason,
                         size_t capacity) {
    if (width <= 0 || height <= 0 || width > 16384 || height > 16384) {
        snprintf(reason, capacity, "a frame of %dx%d cannot be converted", width, height);
        return 0;
    }
    // The frame's own tags where it has them, the stream's otherwise.
    glance_media_transfer transfer = media->info.transfer;
    if (frame->color_trc == AVCOL_TRC_SMPTE2084) transfer = GLANCE_MEDIA_PQ;
    if (frame->color_trc == AVCOL_TRC_ARIB_STD_B67) transfer = GLANCE_MEDIA_HLG;
    int hdr = transfer != GLANCE_MEDIA_SDR;
    // What the stream's own headers said (a container without colour tags): in the details too.
    media->info.transfer = transfer;
    const AVPixFmtDescriptor *pixels = avutil.pix_fmt_desc_get(frame->format);
    if (pixels != NULL) media->info.bit_depth = pixels->comp[0].depth;
    enum AVPixelFormat target = hdr ? AV_PIX_FMT_RGB48 : AV_PIX_FMT_RGB24;
    int shrinking = width <= frame->width && height <= frame->height;
    struct SwsContext *scaler =
        swscale.get_context(frame->width, frame->height, frame->format, width, height, target,
                            (shrinking ? SWS_AREA : SWS_BICUBIC) | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, NULL, NULL,
                            NULL);
    if (scaler == NULL) {
        snprintf(reason, capacity, "frames of pixel format %d cannot be converted", frame->format);
        return 0;
    }
    const AVCodecParameters *parameters = media->format->streams[media->video]->codecpar;
    int matrix = frame->colorspace != AVCOL_SPC_UNSPECIFIED ? frame->colorspace : parameters->color_space;
    if (matrix == AVCOL_SPC_UNSPECIFIED || matrix == AVCOL_SPC_RESERVED || matrix > AVCOL_SPC_BT2020_CL) {
        // Untagged: BT.709 for HD and larger, BT.601 below, as players assume.
        matrix = frame->height >= 720 ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M;
    }
    if (matrix == AVCOL_SPC_BT2020_CL) matrix = AVCOL_SPC_BT2020_NCL;
    enum AVColorRange range = frame->color_range != AVCOL_RANGE_UNSPECIFIED ? frame->color_range
                                                                            : parameters->color_range;
    int full = range == AVCOL_RANGE_JPEG || is_full_range_format(frame->format);
    swscale.set_colorspace(scaler, swscale.coefficients(matrix), full, swscale.coefficients(SWS_CS_DEFAULT), 1, 0,
                           1 << 16, 1 << 16);
    free(media->rgb);
    media->rgb = malloc((size_t)width * height * 3);
    size_t wide_stride = (size_t)width * 6;
    uint16_t *wide = hdr ? malloc(wide_stride * height) : NULL;
    if (media->rgb == NULL || (hdr && wide == NULL)) {
        free(wide);
        swscale.free_context(scaler);
        snprintf(reason, capacity, "out of memory");
        return 0;
    }
    uint8_t *destination[4] = {hdr ? (uint8_t *)wide : media->rgb, NULL, NULL, NULL};
    int strides[4] = {hdr ? (int)wide_stride : width * 3, 0, 0, 0};
    int rows = swscale.scale(scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height,
                             destination, strides);
    swscale.free_context(scaler);
    if (rows != height) {
        free(wide);
        snprintf(reason, capacity, "the frame could not be converted");
        return 0;
    }
    if (hdr) {
        glance_hdr_tables *tables = malloc(sizeof *tables);
        if (tables == NULL) {
            free(wide);
            snprintf(reason, capacity, "out of memory");
            return 0;
        }
        glance_hdr_tables_build(tables, transfer == GLANCE_MEDIA_HLG, media->info.peak_luminance);
        for (size_t pixel = 0; pixel < (size_t)width * height; pixel++) {
            glance_hdr_tone_map_pixel(tables, wide + 3 * pixel, media->rgb + 3 * pixel);
        }
        free(tables);
        free(wide);
    }
    media->rgb_width = width;
    media->rgb_height = height;
    return 1;
}


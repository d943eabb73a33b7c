// What the files of the FFmpeg shim share (see include/glance_media.h): the four libraries'
// functions, and the handle. Not part of the module's interface.
#ifndef GLANCE_MEDIA_PRIVATE_H
#define GLANCE_MEDIA_PRIVATE_H

#include "glance_media.h"

#include <errno.h>
#include <fcntl.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "glance_library_loader.h"

#include "glance_library_loader.h"

// --- The four libraries, each with the functions used of it ------------------------------------
//
// The sonames come from the headers built against: the structures read here (AVFormatContext,
// AVStream, AVFrame) change between major versions, so a library of another major is not used.
// Loaded in glance_media_libraries.c.

#define AVUTIL_FUNCTIONS(X)                                \
    GLANCE_TYPED(X, malloc, av_malloc)                     \
    GLANCE_TYPED(X, free, av_free)                         \
    GLANCE_TYPED(X, frame_alloc, av_frame_alloc)           \
    GLANCE_TYPED(X, frame_free, av_frame_free)             \
    GLANCE_TYPED(X, frame_unref, av_frame_unref)           \
    GLANCE_TYPED(X, frame_move_ref, av_frame_move_ref)     \
    GLANCE_TYPED(X, log_set_level, av_log_set_level)       \
    GLANCE_TYPED(X, strerror, av_strerror)                 \
    GLANCE_TYPED(X, rotation_get, av_display_rotation_get) \
    GLANCE_TYPED(X, pix_fmt_desc_get, av_pix_fmt_desc_get) \
    GLANCE_TYPED(X, rescale_q, av_rescale_q)              \
    GLANCE_TYPED(X, dict_get, av_dict_get)

#define AVCODEC_FUNCTIONS(X)                                         \
    GLANCE_TYPED(X, find_decoder, avcodec_find_decoder)              \
    GLANCE_TYPED(X, alloc_context, avcodec_alloc_context3)           \
    GLANCE_TYPED(X, free_context, avcodec_free_context)              \
    GLANCE_TYPED(X, parameters_to_context, avcodec_parameters_to_context) \
    GLANCE_TYPED(X, open, avcodec_open2)                             \
    GLANCE_TYPED(X, send_packet, avcodec_send_packet)                \
    GLANCE_TYPED(X, receive_frame, avcodec_receive_frame)            \
    GLANCE_TYPED(X, flush_buffers, avcodec_flush_buffers)            \
    GLANCE_TYPED(X, packet_alloc, av_packet_alloc)                   \
    GLANCE_TYPED(X, packet_free, av_packet_free)                     \
    GLANCE_TYPED(X, packet_unref, av_packet_unref)                   \
    GLANCE_TYPED(X, codec_name, avcodec_get_name)                    \
    GLANCE_TYPED(X, default_get_buffer2, avcodec_default_get_buffer2)

#define AVFORMAT_FUNCTIONS(X)                                 \
    GLANCE_TYPED(X, alloc_context, avformat_alloc_context)    \
    GLANCE_TYPED(X, open_input, avformat_open_input)          \
    GLANCE_TYPED(X, find_stream_info, avformat_find_stream_info) \
    GLANCE_TYPED(X, close_input, avformat_close_input)        \
    GLANCE_TYPED(X, find_input_format, av_find_input_format)  \
    GLANCE_TYPED(X, read_frame, av_read_frame)                \
    GLANCE_TYPED(X, seek_frame, av_seek_frame)                \
    GLANCE_TYPED(X, stream_side_data, av_stream_get_side_data) \
    GLANCE_TYPED(X, io_alloc, avio_alloc_context)             \
    GLANCE_TYPED(X, io_free, avio_context_free)

#define SWSCALE_FUNCTIONS(X)                                         \
    GLANCE_TYPED(X, get_context, sws_getContext)                     \
    GLANCE_TYPED(X, free_context, sws_freeContext)                   \
    GLANCE_TYPED(X, scale, sws_scale)                                \
    GLANCE_TYPED(X, set_colorspace, sws_setColorspaceDetails)        \
    GLANCE_TYPED(X, coefficients, sws_getCoefficients)

GLANCE_LIBRARY_DECLARE(avutil, AVUTIL_FUNCTIONS)
GLANCE_LIBRARY_DECLARE(avcodec, AVCODEC_FUNCTIONS)
GLANCE_LIBRARY_DECLARE(avformat, AVFORMAT_FUNCTIONS)
GLANCE_LIBRARY_DECLARE(swscale, SWSCALE_FUNCTIONS)

// --- The handle --------------------------------------------------------------------------------

/// The input buffer FFmpeg reads through: 64 KiB, FFmpeg's own default for files.
enum { IO_BUFFER = 64 << 10 };

struct glance_media {
    int fd;
    int64_t size, position;
    /// The errno of a read of the file that failed (0: none did; FFmpeg's EIO otherwise means
    /// the data ended early).
    int read_error;
    AVIOContext *io;
    AVFormatContext *format;
    int video, audio, cover;
    AVCodecContext *codec;
    AVPacket *packet;
    AVFrame *frame, *chosen;
    int draining;
    /// The converted frame: width x height x 3 bytes.
    uint8_t *rgb;
    int rgb_width, rgb_height;
    /// What the file asked to open besides itself (refused), printable ASCII.
    char refused[160];
    /// The most pixels a frame may have (the pixel limit), and the size of the last frame
    /// refused for having more.
    int64_t max_pixels;
    int oversized_width, oversized_height;
    glance_media_info info;
};

/// FFmpeg's error `code` as text, into `reason`.
__attribute__((visibility("hidden"))) void glance_media_copy_av_error(int code, char *reason, size_t capacity);

/// The name of a stream's codec ("unknown" when FFmpeg has none).
__attribute__((visibility("hidden"))) const char *glance_media_codec_name(const AVCodecParameters *parameters);

/// Converts `frame` to `width` x `height` 8-bit sRGB into media->rgb (HDR tone-mapped): 1, or 0
/// with the reason (glance_media_convert.c).
__attribute__((visibility("hidden"))) int glance_media_convert(glance_media *media, const AVFrame *frame, int width,
                                                                int height, char *reason, size_t capacity);

#endif

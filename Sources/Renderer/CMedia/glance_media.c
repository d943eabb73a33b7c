// See include/glance_media.h.
#define _GNU_SOURCE
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

// --- The four libraries, each with the functions used of it ------------------------------------
//
// The sonames come from the headers built against: the structures read here (AVFormatContext,
// AVStream, AVFrame) change between major versions, so a library of another major is not used.

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

#define SONAME(name, major) "lib" name ".so." AV_STRINGIFY(major)

static int quiet_avutil(char *failure, size_t capacity);

GLANCE_LIBRARY(avutil, SONAME("avutil", LIBAVUTIL_VERSION_MAJOR), AVUTIL_FUNCTIONS, quiet_avutil)
GLANCE_LIBRARY(avcodec, SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR), AVCODEC_FUNCTIONS, GLANCE_LIBRARY_NO_START)
GLANCE_LIBRARY(avformat, SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR), AVFORMAT_FUNCTIONS, GLANCE_LIBRARY_NO_START)
GLANCE_LIBRARY(swscale, SONAME("swscale", LIBSWSCALE_VERSION_MAJOR), SWSCALE_FUNCTIONS, GLANCE_LIBRARY_NO_START)

/// FFmpeg logs to standard error by default: a renderer's messages are its replies, so nothing.
static int quiet_avutil(char *failure, size_t capacity) {
    (void)failure;
    (void)capacity;
    avutil.log_set_level(AV_LOG_QUIET);
    return 1;
}

int glance_media_load(char *reason, size_t capacity) {
    return avutil_ensure(reason, capacity) && avcodec_ensure(reason, capacity) &&
           avformat_ensure(reason, capacity) && swscale_ensure(reason, capacity);
}

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

static int read_packet(void *opaque, uint8_t *buffer, int capacity) {
    glance_media *media = opaque;
    for (;;) {
        ssize_t got = pread(media->fd, buffer, (size_t)capacity, (off_t)media->position);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            media->read_error = errno;
            return AVERROR(errno);
        }
        if (got == 0) return AVERROR_EOF;
        media->position += got;
        return (int)got;
    }
}

static int64_t seek(void *opaque, int64_t offset, int whence) {
    glance_media *media = opaque;
    whence &= ~AVSEEK_FORCE;
    if (whence == AVSEEK_SIZE) return media->size;
    int64_t target = whence == SEEK_SET   ? offset
                     : whence == SEEK_CUR ? media->position + offset
                     : whence == SEEK_END ? media->size + offset
                                          : -1;
    if (target < 0) return AVERROR(EINVAL);
    media->position = target;
    return target;
}

/// Every open the demuxer asks for besides the file itself (a playlist's segments, a reference):
/// refused, and remembered for the message.
static int refuse_open(struct AVFormatContext *format, AVIOContext **io, const char *url, int flags,
                       AVDictionary **options) {
    (void)io;
    (void)flags;
    (void)options;
    glance_media *media = format->opaque;
    if (media != NULL && media->refused[0] == 0) {
        size_t length = 0;
        for (const char *c = url != NULL ? url : ""; *c != 0 && length + 4 < sizeof media->refused; c++) {
            media->refused[length++] = (*c >= 0x20 && *c < 0x7F) ? *c : '?';
        }
        if (length == 0) media->refused[length++] = '?';
        media->refused[length] = 0;
    }
    return AVERROR(EPERM);
}

static void copy_av_error(int code, char *reason, size_t capacity) {
    char text[128];
    if (avutil.strerror(code, text, sizeof text) < 0) snprintf(text, sizeof text, "error %d", code);
    snprintf(reason, capacity, "%s", text);
}

static const char *codec_name(const AVCodecParameters *parameters) {
    const char *name = avcodec.codec_name(parameters->codec_id);
    return name != NULL ? name : "unknown";
}

static void describe_video(glance_media *media, const AVStream *stream) {
    glance_media_info *info = &media->info;
    const AVCodecParameters *parameters = stream->codecpar;
    info->has_video = 1;
    info->coded_width = parameters->width;
    info->coded_height = parameters->height;
    info->width = parameters->width;
    info->height = parameters->height;
    AVRational aspect = parameters->sample_aspect_ratio.num > 0 ? parameters->sample_aspect_ratio
                                                                 : stream->sample_aspect_ratio;
    if (aspect.num > 0 && aspect.den > 0 && aspect.num != aspect.den) {
        // Widened or narrowed, never fewer pixels than are coded on the side that changes.
        double ratio = (double)aspect.num / aspect.den;
        if (ratio > 1) {
            info->width = (int)lround(parameters->width * ratio);
        } else {
            info->height = (int)lround(parameters->height / ratio);
        }
    }
    const int32_t *matrix = (const int32_t *)avformat.stream_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (matrix != NULL) {
        double counterclockwise = avutil.rotation_get(matrix);
        if (isfinite(counterclockwise)) {
            long quarter = lround(-counterclockwise / 90.0);
            info->rotation = (int)(((quarter % 4) + 4) % 4) * 90;
        }
        info->mirrored = (int64_t)matrix[0] * matrix[4] - (int64_t)matrix[1] * matrix[3] < 0;
    }
    AVRational rate = stream->avg_frame_rate.num > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
    if (rate.num > 0 && rate.den > 0) info->frame_rate = (double)rate.num / rate.den;
    const AVPixFmtDescriptor *pixels = avutil.pix_fmt_desc_get(parameters->format);
    info->bit_depth = pixels != NULL ? pixels->comp[0].depth : 8;
    info->transfer = parameters->color_trc == AVCOL_TRC_SMPTE2084      ? GLANCE_MEDIA_PQ
                     : parameters->color_trc == AVCOL_TRC_ARIB_STD_B67 ? GLANCE_MEDIA_HLG
                                                                        : GLANCE_MEDIA_SDR;
    const AVDOVIDecoderConfigurationRecord *dolby =
        (const void *)avformat.stream_side_data(stream, AV_PKT_DATA_DOVI_CONF, NULL);
    if (dolby != NULL) {
        info->dolby_vision_profile = dolby->dv_profile;
        info->dolby_vision_compatibility = dolby->dv_bl_signal_compatibility_id;
    }
    const AVContentLightMetadata *light =
        (const void *)avformat.stream_side_data(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, NULL);
    const AVMasteringDisplayMetadata *mastering =
        (const void *)avformat.stream_side_data(stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, NULL);
    if (light != NULL && light->MaxCLL > 0) {
        info->peak_luminance = light->MaxCLL;
    } else if (mastering != NULL && mastering->has_luminance && mastering->max_luminance.den > 0) {
        info->peak_luminance = av_q2d(mastering->max_luminance);
    }
    snprintf(info->video_codec, sizeof info->video_codec, "%s", codec_name(parameters));
}

/// The front cover among the attached pictures: the one whose comment says so (ID3's and FLAC's
/// picture type), else the first.
static int choose_cover(const AVFormatContext *format) {
    int first = -1;
    for (unsigned index = 0; index < format->nb_streams; index++) {
        const AVStream *stream = format->streams[index];
        if (!(stream->disposition & AV_DISPOSITION_ATTACHED_PIC) || stream->attached_pic.size <= 0) continue;
        if (first < 0) first = (int)index;
        const AVDictionaryEntry *comment = avutil.dict_get(stream->metadata, "comment", NULL, 0);
        if (comment != NULL && strcmp(comment->value, "Cover (front)") == 0) return (int)index;
    }
    return first;
}

/// Whether the headers left a stream undescribed: a video stream without a size (an H.263 track
/// of an old phone's 3GP) or a stream whose codec was not named. Such a file is analysed.
static int needs_analysis(const AVFormatContext *format) {
    if (format->nb_streams == 0) return 1;
    for (unsigned index = 0; index < format->nb_streams; index++) {
        const AVCodecParameters *parameters = format->streams[index]->codecpar;
        if (parameters->codec_id == AV_CODEC_ID_NONE) return 1;
        if (parameters->codec_type == AVMEDIA_TYPE_VIDEO && (parameters->width <= 0 || parameters->height <= 0))
            return 1;
    }
    return 0;
}

/// The first video stream whose header gives more than `max_pixels` pixels, or -1.
static int oversized_stream(const AVFormatContext *format, int64_t max_pixels) {
    for (unsigned index = 0; index < format->nb_streams; index++) {
        const AVCodecParameters *parameters = format->streams[index]->codecpar;
        if (parameters->codec_type == AVMEDIA_TYPE_VIDEO &&
            (int64_t)parameters->width * parameters->height > max_pixels)
            return (int)index;
    }
    return -1;
}

glance_media *glance_media_open(int fd, int64_t size, const char *demuxer, int64_t max_pixels, char *reason,
                                size_t capacity, glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    glance_media *media = calloc(1, sizeof *media);
    if (media == NULL) {
        snprintf(reason, capacity, "out of memory");
        return NULL;
    }
    media->fd = fd;
    media->size = size;
    media->max_pixels = max_pixels;
    media->video = media->audio = media->cover = -1;
    const AVInputFormat *input = avformat.find_input_format(demuxer);
    uint8_t *buffer = avutil.malloc(IO_BUFFER);
    media->io = buffer != NULL ? avformat.io_alloc(buffer, IO_BUFFER, 0, media, read_packet, NULL, seek) : NULL;
    media->format = avformat.alloc_context();
    if (input == NULL || media->io == NULL || media->format == NULL) {
        if (media->io == NULL) avutil.free(buffer);
        snprintf(reason, capacity, input == NULL ? "FFmpeg has no %s demuxer" : "out of memory", demuxer);
        glance_media_close(media);
        return NULL;
    }
    media->format->pb = media->io;
    media->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    media->format->opaque = media;
    media->format->io_open = refuse_open;
    // Enough to find the streams of a transport stream; a broadcast's longer probes are not needed
    // for one frame.
    media->format->probesize = 8 << 20;
    media->format->max_analyze_duration = 5 * AV_TIME_BASE;
    // QuickTime/MP4 and Matroska headers say what a thumbnail needs (sizes, codecs, duration,
    // rotation, colour, covers): FFmpeg's stream analysis, which decodes the first frames to
    // learn their pixel format and reordering delay, cost a 1080p or 2160p H.264 clip 0.09-0.11 s
    // here, as much as the key frame the thumbnail needs. Other containers (a transport stream's
    // streams are found by reading it), and those whose headers left a stream undescribed
    // (needs_analysis), are analysed.
    int analyse = strcmp(demuxer, "mov") != 0 && strcmp(demuxer, "matroska") != 0;
    // A name for the input, which nothing opens: what a reference relative to the file would be
    // resolved against (and then refused by refuse_open); FFmpeg's playlist demuxers copy it.
    int status = avformat.open_input(&media->format, "document", input, NULL);
    if (status < 0) {
        media->format = NULL;  // freed by avformat_open_input
    } else {
        // The container's headers give most streams' sizes: checked before any frame is decoded.
        int oversized = oversized_stream(media->format, max_pixels);
        if (oversized < 0 && (analyse || needs_analysis(media->format)))
            status = avformat.find_stream_info(media->format, NULL);
        if (oversized < 0) oversized = oversized_stream(media->format, max_pixels);
        if (oversized >= 0) {
            const AVCodecParameters *parameters = media->format->streams[oversized]->codecpar;
            *failure = GLANCE_FAILURE_TOO_LARGE;
            snprintf(reason, capacity, "%dx%d", parameters->width, parameters->height);
            glance_media_close(media);
            return NULL;
        }
    }
    if (media->refused[0] != 0) {
        *failure = GLANCE_FAILURE_REFUSED;
        snprintf(reason, capacity, "the file asks to open \"%s\" (refused: only the file itself is read)",
                 media->refused);
        glance_media_close(media);
        return NULL;
    }
    if (status < 0) {
        if (status == AVERROR_EOF || status == AVERROR(EIO)) *failure = GLANCE_FAILURE_TRUNCATED;
        if (media->read_error != 0) {
            *failure = GLANCE_FAILURE_UNREADABLE;
            snprintf(reason, capacity, "%s", strerror(media->read_error));
            glance_media_close(media);
            return NULL;
        }
        copy_av_error(status, reason, capacity);
        glance_media_close(media);
        return NULL;
    }
    AVFormatContext *format = media->format;
    glance_media_info *info = &media->info;
    info->duration = format->duration != AV_NOPTS_VALUE && format->duration > 0
                         ? (double)format->duration / AV_TIME_BASE
                         : -1;
    media->cover = choose_cover(format);
    // The video stream with the most pixels (a cover picture is not one), the first audio stream.
    int64_t most = 0;
    for (unsigned index = 0; index < format->nb_streams; index++) {
        const AVStream *stream = format->streams[index];
        const AVCodecParameters *parameters = stream->codecpar;
        if (parameters->codec_type == AVMEDIA_TYPE_AUDIO && media->audio < 0) media->audio = (int)index;
        if (parameters->codec_type != AVMEDIA_TYPE_VIDEO || (stream->disposition & AV_DISPOSITION_ATTACHED_PIC))
            continue;
        int64_t pixels = (int64_t)parameters->width * parameters->height;
        if (pixels > most) {
            most = pixels;
            media->video = (int)index;
        }
    }
    if (media->video >= 0) describe_video(media, format->streams[media->video]);
    if (media->audio >= 0) {
        info->has_audio = 1;
        snprintf(info->audio_codec, sizeof info->audio_codec, "%s",
                 codec_name(format->streams[media->audio]->codecpar));
    }
    if (media->cover >= 0) {
        const AVStream *cover = format->streams[media->cover];
        info->cover_bytes = (size_t)cover->attached_pic.size;
        info->cover_width = cover->codecpar->width;
        info->cover_height = cover->codecpar->height;
    }
    return media;
}

void glance_media_describe(glance_media *media, glance_media_info *info) { *info = media->info; }

int glance_media_cover_file(glance_media *media) {
    if (media->cover < 0) {
        errno = ENOENT;
        return -1;
    }
    const AVPacket *picture = &media->format->streams[media->cover]->attached_pic;
    int descriptor = memfd_create("glance-cover", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (descriptor < 0) return -1;
    size_t written = 0;
    while (written < (size_t)picture->size) {
        ssize_t count = write(descriptor, picture->data + written, (size_t)picture->size - written);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) {
            int saved = errno;
            close(descriptor);
            errno = count == 0 ? EIO : saved;
            return -1;
        }
        written += (size_t)count;
    }
    if (lseek(descriptor, 0, SEEK_SET) != 0 ||
        fcntl(descriptor, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
        int saved = errno;
        close(descriptor);
        errno = saved;
        return -1;
    }
    return descriptor;
}

// --- Choosing the frame ------------------------------------------------------------------------

static double now_seconds(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec + time.tv_nsec / 1e9;
}

/// The next decoded frame into media->frame: 1, or 0 when the stream ended, the packet budget ran
/// out or the deadline passed. With `key_only`, packets not flagged as key frames are not even
/// given to the decoder (the decoder's skip_frame drops the rest), and the first key frame's
/// packet is followed by the end of the stream: a decoder that reorders frames (H.264 with B
/// frames) would otherwise wait for two more key frames, decoded for nothing, before giving the
/// first.
static int next_frame(glance_media *media, int key_only, int packets, double deadline) {
    for (int read = 0;;) {
        int status = avcodec.receive_frame(media->codec, media->frame);
        if (status == 0) return 1;
        if (status != AVERROR(EAGAIN) || media->draining) return 0;
        if (read++ >= packets || now_seconds() > deadline) return 0;
        status = avformat.read_frame(media->format, media->packet);
        if (status < 0) {
            avcodec.send_packet(media->codec, NULL);
            media->draining = 1;
            continue;
        }
        if (media->packet->stream_index == media->video &&
            (!key_only || (media->packet->flags & AV_PKT_FLAG_KEY))) {
            // A damaged packet is skipped: the next key frame may decode.
            int sent = avcodec.send_packet(media->codec, media->packet);
            if (key_only && sent >= 0) {
                avcodec.send_packet(media->codec, NULL);
                media->draining = 1;
            }
        }
        avcodec.packet_unref(media->packet);
    }
}

/// How a frame looks to the chooser: its luma's entropy over 32 levels (bits, 0 to 5), mean and
/// standard deviation (0 to 1 from the range's black to its white), from at most 160 x 90 samples.
typedef struct {
    double entropy, mean, deviation;
} frame_measure;

static frame_measure measure(const AVFrame *frame) {
    frame_measure result = {5, 0.5, 0.25};
    const AVPixFmtDescriptor *pixels = avutil.pix_fmt_desc_get(frame->format);
    if (pixels == NULL || (pixels->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL)) ||
        pixels->comp[0].depth > 16 || frame->width <= 0 || frame->height <= 0)
        return result;  // not luma: judged good
    const AVComponentDescriptor *luma = &pixels->comp[0];
    int depth = luma->depth;
    int full = frame->color_range == AVCOL_RANGE_JPEG;
    double black = full ? 0 : 16 << (depth - 8), white = full ? (1 << depth) - 1 : 235 << (depth - 8);
    int step_x = frame->width / 160 > 0 ? frame->width / 160 : 1;
    int step_y = frame->height / 90 > 0 ? frame->height / 90 : 1;
    unsigned histogram[32] = {0};
    double sum = 0, squares = 0;
    unsigned count = 0;
    for (int y = 0; y < frame->height; y += step_y) {
        const uint8_t *row = frame->data[luma->plane] + (ptrdiff_t)y * frame->linesize[luma->plane] + luma->offset;
        for (int x = 0; x < frame->width; x += step_x) {
            const uint8_t *at = row + (ptrdiff_t)x * luma->step;
            unsigned code = depth > 8 ? (unsigned)(at[0] | at[1] << 8) : at[0];
            code = (code >> luma->shift) & ((1u << depth) - 1);
            double value = (code - black) / (white - black);
            value = value < 0 ? 0 : value > 1 ? 1 : value;
            histogram[(int)(value * 31.999)]++;
            sum += value;
            squares += value * value;
            count++;
        }
    }
    if (count == 0) return result;
    result.entropy = 0;
    for (int level = 0; level < 32; level++) {
        if (histogram[level] == 0) continue;
        double share = (double)histogram[level] / count;
        result.entropy -= share * log2(share);
    }
    result.mean = sum / count;
    double variance = squares / count - result.mean * result.mean;
    result.deviation = variance > 0 ? sqrt(variance) : 0;
    return result;
}

/// Whether a frame is worth showing: not near-black (a fade, a night sky: mean below 8% of the
/// range, 20% for PQ, whose codes are darker for the same picture), not near-uniform (a title
/// card's plain field, a test pattern's grey: entropy under 2 bits or deviation under 3%).
static int worth_showing(frame_measure measured, glance_media_transfer transfer) {
    double dark = transfer == GLANCE_MEDIA_PQ ? 0.20 : 0.08;
    return measured.mean >= dark && measured.entropy >= 2.0 && measured.deviation >= 0.03;
}

/// Allocates a decoded frame's buffers, unless the frame has more pixels than the limit: the
/// container's header is not the frame's (a QuickTime header saying 64x64 held a 16000x16000
/// MJPEG frame). The refused size is kept for the message.
static int get_limited_buffer(AVCodecContext *codec, AVFrame *frame, int flags) {
    glance_media *media = codec->opaque;
    if (media->max_pixels > 0 && (int64_t)frame->width * frame->height > media->max_pixels) {
        media->oversized_width = frame->width;
        media->oversized_height = frame->height;
        return AVERROR(ERANGE);
    }
    return avcodec.default_get_buffer2(codec, frame, flags);
}

static int open_decoder(glance_media *media, char *reason, size_t capacity, glance_failure *failure) {
    const AVCodecParameters *parameters = media->format->streams[media->video]->codecpar;
    const AVCodec *decoder = avcodec.find_decoder(parameters->codec_id);
    if (decoder == NULL) {
        *failure = GLANCE_FAILURE_UNSUPPORTED;
        uint32_t tag = parameters->codec_tag;
        if (parameters->codec_id == AV_CODEC_ID_NONE && tag != 0) {
            // A codec FFmpeg has no name for (H.266's vvc1 in this FFmpeg): the file's own name
            // for it, its four characters, printable ones only.
            char fourcc[5] = {0};
            for (int index = 0; index < 4; index++) {
                char character = (char)((tag >> (8 * index)) & 0xFF);
                fourcc[index] = character >= 0x20 && character < 0x7F ? character : '?';
            }
            snprintf(reason, capacity, "FFmpeg here has no decoder for the '%s' video codec", fourcc);
        } else {
            snprintf(reason, capacity, "FFmpeg here has no decoder for %s video", codec_name(parameters));
        }
        return 0;
    }
    media->codec = avcodec.alloc_context(decoder);
    media->packet = avcodec.packet_alloc();
    media->frame = avutil.frame_alloc();
    media->chosen = avutil.frame_alloc();
    if (media->codec == NULL || media->packet == NULL || media->frame == NULL || media->chosen == NULL) {
        snprintf(reason, capacity, "out of memory");
        return 0;
    }
    int status = avcodec.parameters_to_context(media->codec, parameters);
    // One thread: one key frame is decoded at a time, which frame threads do not speed up.
    media->codec->thread_count = 1;
    // Each frame held to the pixel limit by its own size, not the header's, where its buffers
    // are allocated (get_limited_buffer).
    media->codec->opaque = media;
    media->codec->get_buffer2 = get_limited_buffer;
    if (status >= 0) status = avcodec.open(media->codec, decoder, NULL);
    if (status < 0) {
        copy_av_error(status, reason, capacity);
        return 0;
    }
    return 1;
}

/// Seeks to `fraction` of the duration (the key frame at or before it); 0: the start, by its first
/// byte in a format whose timestamps may jump (a transport stream's need not start at zero, and
/// its seek by time can miss the first key frame).
static void seek_to(glance_media *media, double fraction) {
    const AVStream *stream = media->format->streams[media->video];
    avcodec.flush_buffers(media->codec);
    media->draining = 0;
    if (fraction <= 0 && (media->format->iformat->flags & AVFMT_TS_DISCONT) &&
        avformat.seek_frame(media->format, -1, 0, AVSEEK_FLAG_BYTE) >= 0)
        return;
    int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    int64_t length = stream->duration;
    if (length == AV_NOPTS_VALUE || length <= 0) {
        length = media->format->duration > 0 ? avutil.rescale_q(media->format->duration, AV_TIME_BASE_Q,
                                                                 stream->time_base)
                                              : 0;
    }
    int64_t target = start + (int64_t)(fraction * (double)length);
    if (avformat.seek_frame(media->format, media->video, target, AVSEEK_FLAG_BACKWARD) < 0) {
        avformat.seek_frame(media->format, media->video, start, AVSEEK_FLAG_BACKWARD);
    }
}

static double frame_time(const glance_media *media, const AVFrame *frame) {
    const AVStream *stream = media->format->streams[media->video];
    if (frame->best_effort_timestamp == AV_NOPTS_VALUE) return -1;
    int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    return (double)(frame->best_effort_timestamp - start) * av_q2d(stream->time_base);
}

static int convert(glance_media *media, const AVFrame *frame, int width, int height, char *reason, size_t capacity);

int glance_media_decode_frame(glance_media *media, const glance_media_request *request, glance_media_choice *choice,
                              char *reason, size_t capacity) {
    memset(choice, 0, sizeof *choice);
    choice->time = -1;
    if (media->video < 0) {
        snprintf(reason, capacity, "the file has no video stream");
        return 0;
    }
    if (media->codec == NULL && !open_decoder(media, reason, capacity, &choice->failure)) return 0;
    double deadline = now_seconds() + request->seconds;
    static const double positions[] = {0.10, 0.25, 0.40, 0.55, 0.70, 0.85};
    int candidates = request->candidates;
    if (candidates > (int)(sizeof positions / sizeof positions[0])) candidates = sizeof positions / sizeof positions[0];
    // A file that does not say how long it is, or a short one, is read from the start.
    int seekable = media->info.duration > 2.0;
    int placed = request->position >= 0;
    if (!seekable || placed) candidates = 1;
    double best = -1;
    for (int candidate = 0; candidate < candidates && now_seconds() <= deadline; candidate++) {
        double fraction = placed ? (request->position < 1 ? request->position : 0.99)
                                 : seekable ? positions[candidate] : 0;
        seek_to(media, fraction);
        media->codec->skip_frame = AVDISCARD_NONKEY;
        int got = next_frame(media, 1, request->packets_per_candidate, deadline);
        if (!got) {
            // No frame flagged as a key frame decoded here (a stream of recovery points, or
            // flags a muxer left out): every frame from the same place.
            seek_to(media, fraction);
            media->codec->skip_frame = AVDISCARD_DEFAULT;
            got = next_frame(media, 0, request->packets_per_candidate, deadline);
        }
        if (!got) continue;
        choice->judged++;
        frame_measure measured = measure(media->frame);
        int good = placed || worth_showing(measured, media->info.transfer);
        if (good || measured.entropy > best) {
            best = measured.entropy;
            avutil.frame_unref(media->chosen);
            avutil.frame_move_ref(media->chosen, media->frame);
            choice->time = frame_time(media, media->chosen);
            choice->all_flat = !good;
        }
        avutil.frame_unref(media->frame);
        if (good) break;
    }
    if (choice->judged == 0 && media->oversized_width > 0) {
        choice->failure = GLANCE_FAILURE_TOO_LARGE;
        snprintf(reason, capacity, "%dx%d", media->oversized_width, media->oversized_height);
        return 0;
    }
    if (choice->judged == 0) {
        snprintf(reason, capacity, now_seconds() > deadline ? "no frame decoded within %g s"
                                                             : "no frame of the video stream could be decoded",
                 request->seconds);
        return 0;
    }
    return convert(media, media->chosen, request->width, request->height, reason, capacity);
}

// --- Pixels: the matrix, the range, and HDR brought to SDR -------------------------------------

/// SDR white in cd/m²: BT.2408's reference (graphics) white, where HDR content puts what an SDR
/// picture shows as white.
static const double sdr_white = 203.0;

/// PQ (SMPTE ST 2084): a non-linear value (0 to 1) to cd/m², and back.
static double pq_to_light(double value) {
    const double m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32,
                 c3 = 2392.0 / 4096 * 32;
    double power = pow(value < 0 ? 0 : value, 1 / m2);
    double numerator = power - c1 > 0 ? power - c1 : 0;
    return 10000 * pow(numerator / (c2 - c3 * power), 1 / m1);
}

static double light_to_pq(double light) {
    const double m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32,
                 c3 = 2392.0 / 4096 * 32;
    double power = pow((light < 0 ? 0 : light) / 10000, m1);
    return pow((c1 + c2 * power) / (1 + c3 * power), m2);
}

/// HLG's inverse OETF (ARIB STD-B67): a non-linear value to scene light, 0 to 1.
static double hlg_to_scene(double value) {
    const double a = 0.17883277, b = 0.28466892, c = 0.55991073;
    if (value <= 0.5) return value * value / 3;
    return (exp((value - c) / a) + b) / 12;
}

/// HLG's nominal display: a 1000 cd/m² peak, system gamma 1.2 (BT.2100).
static const double hlg_peak = 1000.0, hlg_gamma = 1.2;

/// BT.2390's EETF: display light `light` of content peaking at `peak` (cd/m²) mapped into
/// [0, sdr_white], on the PQ scale, linear below the knee and a Hermite spline above it; then
/// relative to SDR white (0 to 1). Content that peaks at or below SDR white is only scaled.
static double tone_curve(double light, double peak) {
    if (peak <= sdr_white) return light / sdr_white > 1 ? 1 : light / sdr_white;
    double source_peak = light_to_pq(peak);
    double value = light_to_pq(light) / source_peak;
    double target = light_to_pq(sdr_white) / source_peak;
    double knee = 1.5 * target - 0.5;
    if (value > knee) {
        double t = (value - knee) / (1 - knee), t2 = t * t, t3 = t2 * t;
        value = (2 * t3 - 3 * t2 + 1) * knee + (t3 - 2 * t2 + t) * (1 - knee) + (-2 * t3 + 3 * t2) * target;
    }
    double mapped = pq_to_light(value * source_peak) / sdr_white;
    return mapped > 1 ? 1 : mapped;
}

enum { CURVE_SIZE = 4096 };

/// The tables one HDR conversion uses, built for the content's transfer and peak.
typedef struct {
    /// A 12-bit code (the 16-bit code's top bits) to light: PQ in cd/m², HLG in scene light.
    float light[CURVE_SIZE];
    /// sqrt(light / peak) in 4096 steps to the tone curve's output (relative to SDR white):
    /// square-root steps put most of them in the shadows, where the curve bends most.
    float curve[CURVE_SIZE];
    /// sqrt(linear) in 4096 steps to sRGB's 8-bit code.
    uint8_t encode[CURVE_SIZE];
    double peak;
} hdr_tables;

static void build_tables(hdr_tables *tables, glance_media_transfer transfer, double peak) {
    if (transfer == GLANCE_MEDIA_HLG) peak = hlg_peak;
    if (!(peak > sdr_white && peak <= 10000)) peak = 1000;  // HDR10's usual mastering peak when unsaid
    tables->peak = peak;
    for (int index = 0; index < CURVE_SIZE; index++) {
        double value = (index + 0.5) / CURVE_SIZE;
        tables->light[index] = (float)(transfer == GLANCE_MEDIA_PQ ? pq_to_light(value) : hlg_to_scene(value));
        double step = (double)index / (CURVE_SIZE - 1);
        tables->curve[index] = (float)tone_curve(step * step * peak, peak);
        double linear = step * step;
        double encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;
        tables->encode[index] = (uint8_t)lround(encoded * 255);
    }
}

static inline int curve_index(double fraction) {
    int index = (int)(sqrt(fraction > 1 ? 1 : fraction) * (CURVE_SIZE - 1) + 0.5);
    return index < 0 ? 0 : index;
}

/// One pixel of BT.2020 non-linear RGB (16-bit codes) to 8-bit sRGB: to display light, the tone
/// curve applied to the brightest component (so that hue and saturation stay, where per-channel
/// curves turn bright colours white), BT.2020's primaries to BT.709's in linear light, clipped,
/// and encoded.
static inline void tone_map_pixel(const hdr_tables *tables, glance_media_transfer transfer, const uint16_t in[3],
                                  uint8_t out[3]) {
    double light[3];
    for (int c = 0; c < 3; c++) light[c] = tables->light[in[c] >> 4];
    if (transfer == GLANCE_MEDIA_HLG) {
        double scene = 0.2627 * light[0] + 0.6780 * light[1] + 0.0593 * light[2];
        double gain = hlg_peak * (scene > 0 ? pow(scene, hlg_gamma - 1) : 0);
        for (int c = 0; c < 3; c++) light[c] *= gain;
    }
    double brightest = light[0] > light[1] ? light[0] : light[1];
    if (light[2] > brightest) brightest = light[2];
    double scale = brightest > 0 ? tables->curve[curve_index(brightest / tables->peak)] / brightest : 0;
    double r = light[0] * scale, g = light[1] * scale, b = light[2] * scale;
    double linear[3] = {1.6605 * r - 0.5876 * g - 0.0728 * b, -0.1246 * r + 1.1329 * g - 0.0083 * b,
                        -0.0182 * r - 0.1006 * g + 1.1187 * b};
    for (int c = 0; c < 3; c++) out[c] = tables->encode[curve_index(linear[c] < 0 ? 0 : linear[c])];
}

double glance_media_tone_map_grey(glance_media_transfer transfer, double peak, int code) {
    hdr_tables *tables = malloc(sizeof *tables);
    if (tables == NULL) return -1;
    build_tables(tables, transfer, peak);
    double light = tables->light[(uint16_t)code >> 4];
    if (transfer == GLANCE_MEDIA_HLG) light *= hlg_peak * (light > 0 ? pow(light, hlg_gamma - 1) : 0);
    double mapped = light > 0 ? tables->curve[curve_index(light / tables->peak)] : 0;
    free(tables);
    return mapped;
}

static int is_full_range_format(enum AVPixelFormat format) {
    return format == AV_PIX_FMT_YUVJ420P || format == AV_PIX_FMT_YUVJ422P || format == AV_PIX_FMT_YUVJ444P ||
           format == AV_PIX_FMT_YUVJ440P || format == AV_PIX_FMT_YUVJ411P;
}

static int convert(glance_media *media, const AVFrame *frame, int width, int height, char *reason, size_t capacity) {
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
        hdr_tables *tables = malloc(sizeof *tables);
        if (tables == NULL) {
            free(wide);
            snprintf(reason, capacity, "out of memory");
            return 0;
        }
        build_tables(tables, transfer, media->info.peak_luminance);
        for (size_t pixel = 0; pixel < (size_t)width * height; pixel++) {
            tone_map_pixel(tables, transfer, wide + 3 * pixel, media->rgb + 3 * pixel);
        }
        free(tables);
        free(wide);
    }
    media->rgb_width = width;
    media->rgb_height = height;
    return 1;
}

void glance_media_read_rows(glance_media *media, int first_row, int count, uint8_t *out) {
    size_t stride = (size_t)media->rgb_width * 3;
    memcpy(out, media->rgb + (size_t)first_row * stride, stride * (size_t)count);
}

void glance_media_close(glance_media *media) {
    if (media == NULL) return;
    if (media->codec != NULL) avcodec.free_context(&media->codec);
    if (media->packet != NULL) avcodec.packet_free(&media->packet);
    if (media->frame != NULL) avutil.frame_free(&media->frame);
    if (media->chosen != NULL) avutil.frame_free(&media->chosen);
    if (media->format != NULL) avformat.close_input(&media->format);
    if (media->io != NULL) {
        avutil.free(media->io->buffer);
        avformat.io_free(&media->io);
    }
    free(media->rgb);
    free(media);
}

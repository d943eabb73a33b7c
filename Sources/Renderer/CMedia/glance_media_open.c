// Opening a video or sound file through FFmpeg and describing it: its streams, its size and
// turn, its colour, its cover. See include/glance_media.h.
#define _GNU_SOURCE
#include "glance_media_private.h"

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
    snprintf(info->video_codec, sizeof info->video_codec, "%s", glance_media_codec_name(parameters));
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

/// Opens the container through `demuxer` over the file, reading no other: 1, or 0 with the
/// failure and its reason (the caller closes the handle). A stream larger than the pixel limit
/// by its header is refused before any frame is decoded.
static int open_container(glance_media *media, const char *demuxer, char *reason, size_t capacity,
                          glance_failure *failure) {
    const AVInputFormat *input = avformat.find_input_format(demuxer);
    uint8_t *buffer = avutil.malloc(IO_BUFFER);
    media->io = buffer != NULL ? avformat.io_alloc(buffer, IO_BUFFER, 0, media, read_packet, NULL, seek) : NULL;
    media->format = avformat.alloc_context();
    if (input == NULL || media->io == NULL || media->format == NULL) {
        if (media->io == NULL) avutil.free(buffer);
        snprintf(reason, capacity, input == NULL ? "FFmpeg has no %s demuxer" : "out of memory", demuxer);
        return 0;
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
        int oversized = oversized_stream(media->format, media->max_pixels);
        if (oversized < 0 && (analyse || needs_analysis(media->format)))
            status = avformat.find_stream_info(media->format, NULL);
        if (oversized < 0) oversized = oversized_stream(media->format, media->max_pixels);
        if (oversized >= 0) {
            const AVCodecParameters *parameters = media->format->streams[oversized]->codecpar;
            *failure = GLANCE_FAILURE_TOO_LARGE;
            snprintf(reason, capacity, "%dx%d", parameters->width, parameters->height);
            return 0;
        }
    }
    if (media->refused[0] != 0) {
        *failure = GLANCE_FAILURE_REFUSED;
        snprintf(reason, capacity, "the file asks to open \"%s\" (refused: only the file itself is read)",
                 media->refused);
        return 0;
    }
    if (status < 0) {
        if (status == AVERROR_EOF || status == AVERROR(EIO)) *failure = GLANCE_FAILURE_TRUNCATED;
        if (media->read_error != 0) {
            *failure = GLANCE_FAILURE_UNREADABLE;
            snprintf(reason, capacity, "%s", strerror(media->read_error));
            return 0;
        }
        glance_media_copy_av_error(status, reason, capacity);
        return 0;
    }
    return 1;
}

/// The streams the thumbnail comes from: the video stream with the most pixels (a cover picture
/// is not one), the first audio stream, the front cover; and what the file says of them.
static void choose_streams(glance_media *media) {
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
                 glance_media_codec_name(format->streams[media->audio]->codecpar));
    }
    if (media->cover >= 0) {
        const AVStream *cover = format->streams[media->cover];
        info->cover_bytes = (size_t)cover->attached_pic.size;
        info->cover_width = cover->codecpar->width;
        info->cover_height = cover->codecpar->height;
    }
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
    if (!open_container(media, demuxer, reason, capacity, failure)) {
        glance_media_close(media);
        return NULL;
    }
    choose_streams(media);
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

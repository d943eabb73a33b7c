// Choosing and decoding a frame: a key frame near the position asked for, the brightest of a
// few. See include/glance_media.h.
#define _GNU_SOURCE
#include "glance_media_private.h"

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
            snprintf(reason, capacity, "FFmpeg here has no decoder for %s video", glance_media_codec_name(parameters));
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
        glance_media_copy_av_error(status, reason, capacity);
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
    return glance_media_convert(media, media->chosen, request->width, request->height, reason, capacity);
}

void glance_media_read_rows(glance_media *media, int first_row, int count, uint8_t *out) {
    size_t stride = (size_t)media->rgb_width * 3;
    memcpy(out, media->rgb + (size_t)first_row * stride, stride * (size_t)count);
}


// Videos and audio files through FFmpeg's libraries (Debian's libavformat, libavcodec, libavutil
// and libswscale), loaded the first time such a file comes: together they bring some 60 libraries
// (every codec Debian builds in) into a process, which a batch of photos and PDFs should not map.
//
// The file is read through the job's descriptor only: a custom I/O context reads it with pread,
// the demuxer is the one sniffing chose (never probed), and every other file or URL the file asks
// for (an HLS or DASH playlist's segments, a concat list, a QuickTime reference, `file:`,
// `http:`) is refused by the format context's io_open, with the request named in the reason.
#ifndef GLANCE_MEDIA_H
#define GLANCE_MEDIA_H

#include "glance_failure.h"

#include <stddef.h>
#include <stdint.h>

/// Loads libavutil, libavcodec, libavformat and libswscale once per process; later calls return
/// the first call's result. Returns 1 when ready, else 0 with the reason in `reason`.
int glance_media_load(char *reason, size_t capacity);

/// An open video or audio file (opaque): its demuxer, its decoder and the frame chosen.
typedef struct glance_media glance_media;

/// The kind of high dynamic range a video stream is coded in.
typedef enum {
    GLANCE_MEDIA_SDR = 0,
    /// SMPTE ST 2084 (PQ): HDR10, HDR10+, Dolby Vision's HDR10-compatible base layer.
    GLANCE_MEDIA_PQ = 1,
    /// ARIB STD-B67 (hybrid log-gamma).
    GLANCE_MEDIA_HLG = 2,
} glance_media_transfer;

/// What the file says of itself, before any frame is decoded.
typedef struct {
    /// The duration in seconds; negative when the file does not say.
    double duration;
    /// Whether there is a video stream (other than a cover picture) and an audio stream.
    int has_video, has_audio;
    /// The video frame's size as displayed: its sample aspect ratio applied, before rotation.
    int width, height;
    /// The coded size, what is decoded.
    int coded_width, coded_height;
    /// Degrees the frame must be turned clockwise to be upright (0, 90, 180, 270), and whether
    /// it is mirrored first (the display matrix's determinant is negative).
    int rotation, mirrored;
    /// Frames a second (0: unknown), and the samples' bit depth.
    double frame_rate;
    int bit_depth;
    glance_media_transfer transfer;
    /// Dolby Vision's configuration: its profile (0: none) and the compatibility of its base
    /// layer (0: none, as in profile 5; 1 HDR10, 2 SDR, 4 HLG, 6 BT.2020 SDR).
    int dolby_vision_profile, dolby_vision_compatibility;
    /// The brightest the content is said to be, in cd/m² (MaxCLL, else the mastering display's
    /// peak); 0 when the file does not say.
    double peak_luminance;
    /// The codecs' short names (`h264`, `hevc`, `aac`), empty when there is no such stream.
    char video_codec[32], audio_codec[32];
    /// The attached cover picture: its size in bytes (0: none) and pixels (0 when unknown: MP4's
    /// and Matroska's streams are not analysed, their headers say enough).
    size_t cover_bytes;
    int cover_width, cover_height;
} glance_media_info;

/// Why glance_media_open failed.

/// Opens the file of `size` bytes on descriptor `fd` with FFmpeg's demuxer `demuxer` (`mov`,
/// `matroska`, `avi`, `mpegts`, `ogg`, `mp3`, `flac`): the descriptor stays the caller's and is
/// read with pread only. A video stream whose header gives more than `max_pixels` pixels a frame
/// is refused before any frame is decoded (finding the streams' parameters decodes some). Returns
/// NULL with the reason in `reason` and what failed in `*failure`. Only after glance_media_load.
glance_media *glance_media_open(int fd, int64_t size, const char *demuxer, int64_t max_pixels, char *reason,
                                size_t capacity, glance_failure *failure);

/// What the file says of itself; after glance_media_decode_frame, with what the frame told that
/// the container did not (its transfer, its bit depth).
void glance_media_describe(glance_media *media, glance_media_info *info);

/// A sealed, read-only file in memory holding the cover picture's bytes, for the image decoders
/// to read as they read a document (close-on-exec, offset 0); -1 with errno when it cannot be made
/// or there is no cover.
int glance_media_cover_file(glance_media *media);

/// How a frame is chosen and converted (glance_media_decode_frame).
typedef struct {
    /// The size to convert the frame to (the displayed size, or a reduction of it).
    int width, height;
    /// How many frames, at most, are judged (spread from 10% of the duration on).
    int candidates;
    /// The most packets read for one candidate before giving up on it.
    int packets_per_candidate;
    /// Wall-clock seconds after which the best frame so far is taken.
    double seconds;
    /// Where to take the frame, as a share of the duration (the key frame at or before it, not
    /// judged); negative: choose one (above).
    double position;
} glance_media_request;

/// What glance_media_decode_frame chose.
typedef struct {
    /// The chosen frame's time in seconds from the start (negative: unknown).
    double time;
    /// How many frames were judged.
    int judged;
    /// Whether the chosen frame failed the measure (all candidates were dark or flat).
    int all_flat;
    /// Why no frame was given, when glance_media_decode_frame returned 0:
    /// GLANCE_FAILURE_TOO_LARGE for a frame with more pixels than the limit glance_media_open was
    /// given (its own size, which may be larger than the container's header says; `reason`:
    /// WIDTHxHEIGHT), GLANCE_FAILURE_UNSUPPORTED for a codec this FFmpeg has no decoder for,
    /// GLANCE_FAILURE_CORRUPT otherwise.
    glance_failure failure;
} glance_media_choice;

/// Decodes candidate key frames and keeps the first that is neither near-black nor near-uniform
/// (else the one with the most luma entropy), or the key frame at the request's position,
/// converted to 8-bit sRGB at the request's size: the
/// stream's matrix and range honoured, PQ and HLG tone-mapped. Returns 1 on success; else 0 with
/// the reason in `reason`.
int glance_media_decode_frame(glance_media *media, const glance_media_request *request, glance_media_choice *choice,
                              char *reason, size_t capacity);

/// Copies `count` converted rows from `first_row` into `out` (width x count x 3 bytes, RGB).
/// Only after glance_media_decode_frame returned 1.
void glance_media_read_rows(glance_media *media, int first_row, int count, uint8_t *out);

/// Converts one HDR sample to display-referred SDR, for tests of the curve: `code` a 16-bit
/// non-linear value in `transfer`, `peak` the content's peak in cd/m². Returns linear light
/// relative to SDR white (203 cd/m², BT.2408's reference white) after the tone curve, for a
/// grey pixel of that code; -1 when memory ran out.
double glance_media_tone_map_grey(glance_media_transfer transfer, double peak, int code);

/// Frees the handle, its decoder, its frames and its converted pixels.
void glance_media_close(glance_media *media);

#endif

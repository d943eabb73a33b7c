import GlanceCore
import GlanceListing

/// What the preview page shows of a video or a sound file: the original in the browser's own
/// player where browsers play it (the original is served with ranges), the thumbnail as its
/// poster, and for a video a strip of frames the renderer draws (its pages), so that a clip no
/// browser plays (HEVC, MPEG-4 part 2, AVI, a transport stream) can still be seen.
struct MediaView: Sendable {
    /// `<video>` (true) or `<audio>`.
    let isVideo: Bool
    /// The original's URL, when browsers play it; nil: the poster and the strip only.
    let source: String?
    /// The type given to the player for `source`.
    let type: String
    /// The strip of frames (empty for sound), and whether there is one (stored, for the template).
    let frames: [Frame]
    let hasFrames: Bool

    /// One frame of the strip: a page of `/previews/`.
    struct Frame: Sendable {
        let number: Int
        let source: String
        let width: Int
        let height: Int
    }

    /// The side the strip's frames are drawn at.
    static let frameSide = 512

    /// Whether browsers play the original: Chromium and Firefox play MP4 (and QuickTime files
    /// holding what MP4 may) with H.264, VP9 or AV1, WebM with VP8, VP9 or AV1, Ogg with Theora,
    /// and the sound codecs below (WAV's PCM too); not HEVC, MPEG-4 part 2, AVI or MPEG-TS. Nil when they do not,
    /// else the type to give the player.
    static func playableType(of type: ContentType, media: MediaDetails) -> String? {
        let videoCodecs: Set = ["h264", "vp8", "vp9", "av1", "theora"]
        let soundCodecs: Set = [
            "aac", "mp3", "opus", "vorbis", "flac", "pcm_u8", "pcm_s16le", "pcm_s24le", "pcm_s32le", "pcm_f32le",
        ]
        if let video = media.videoCodec, !videoCodecs.contains(video) { return nil }
        if media.hasAudio == true, let sound = media.audioCodec, !soundCodecs.contains(sound) { return nil }
        switch type {
        case .mpeg4Video, .quickTimeMovie: return "video/mp4"
        case .webm, .oggVideo, .oggAudio, .mp3, .flac, .m4a, .wave: return type.mimeType
        default: return nil
        }
    }

    /// The view of `item` (a video or a sound file with details), its frames at `links`, each
    /// versioned by `version(page, side)`; nil for other documents.
    static func of(
        _ item: PromisedItemAttributes, links: PageLinks, version: (Int, Int) -> String
    ) -> MediaView? {
        guard let type = item.contentType, let media = item.details?.media else { return nil }
        let playable = playableType(of: type, media: media)
        var frames: [Frame] = []
        if media.hasFrames {
            // Laid out before it arrives: the frame's aspect in the strip's box.
            let (shown, other) = (max(media.width ?? 16, 1), max(media.height ?? 9, 1))
            let longer = max(shown, other)
            let (width, height) = (max(1, shown * frameSide / longer), max(1, other * frameSide / longer))
            frames = (1...MediaDetails.stripLength).map { page in
                Frame(
                    number: page,
                    source: links.pageImage(item.path, page: page, side: frameSide, version: version(page, frameSide)),
                    width: width, height: height)
            }
        }
        return MediaView(
            isVideo: media.hasFrames, source: playable == nil ? nil : links.document(item.path),
            type: playable ?? "", frames: frames, hasFrames: !frames.isEmpty)
    }
}

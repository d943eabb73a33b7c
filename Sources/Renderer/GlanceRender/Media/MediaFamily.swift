import GlanceCore

extension FormatFamily {
    /// Videos and sound files, through FFmpeg: a frame (its strip of frames are its pages) or the
    /// cover picture. Read a few packets at a time wherever the frame or cover is, never whole:
    /// no file-size limit, no digest. ISO base media files are told by their brands before
    /// HEIF's; the other containers after PDF's and the office formats' signatures.
    public static let media = FormatFamily(
        name: "video and sound",
        contentTypes: [
            .mpeg4Video, .quickTimeMovie, .matroska, .webm, .avi, .mpegTransportStream, .mpegProgramStream, .oggVideo,
            .oggAudio, .mp3, .flac, .m4a, .wave, .windowsMedia, .flashVideo, .aiff,
        ],
        sniffRules: [
            SniffRule(priority: 300) { MediaSniffer.isoMovie($0.prefix, named: $0.named) },
            SniffRule(priority: 600) { MediaSniffer.type(of: $0.prefix) },
        ],
        capabilities: [.pages, .readsOnlyWhatItNeeds, .noDigest]
    ) { type, tools in
        RasterPipeline(type, decoder: MediaDecoder.self, colourTransforms: tools.colourTransforms)
    }
}

/// What a video or a sound file tells besides its picture: its length, its frame, its codecs.
/// Part of ``DocumentDetails``; a renderer fills it, ``checked`` keeps what holds together.
public struct MediaDetails: Sendable, Equatable, Codable {
    /// The length in seconds, when the file says.
    public var durationSeconds: Double?
    /// The frame's size as shown: the sample aspect ratio and the rotation applied.
    public var width: Int?
    public var height: Int?
    /// The video codec's short name (`h264`, `hevc`, `vp9`, `av1`).
    public var videoCodec: String?
    /// Frames a second.
    public var frameRate: Double?
    /// The HDR kind (``HDRKind``); absent for SDR.
    public var hdr: HDRKind?
    /// Whether there is sound, and its codec's short name (`aac`, `opus`, `flac`).
    public var hasAudio: Bool?
    public var audioCodec: String?
    /// Where the thumbnail came from.
    public var picture: PictureSource?

    /// The kinds of high dynamic range a thumbnail is tone-mapped from.
    public enum HDRKind: String, Sendable, Equatable, Codable {
        /// SMPTE ST 2084 (HDR10, HDR10+).
        case pq = "PQ"
        /// Hybrid log-gamma.
        case hlg = "HLG"
        /// Dolby Vision, shown from its HDR10-, SDR- or HLG-compatible base layer.
        case dolbyVision = "Dolby Vision"
    }

    /// Where a media file's thumbnail came from.
    public enum PictureSource: String, Sendable, Equatable, Codable {
        /// The cover or poster picture the file carries.
        case cover
        /// A frame of the video.
        case frame
        /// Nothing: a sound file without a cover picture.
        case none
    }

    /// How many frames the preview page shows of a video: its pages (`/previews/PATH?page=N`),
    /// page 1 the thumbnail, page N the key frame at (N - 1) / 8 of the duration.
    public static let stripLength = 8

    /// Whether the preview page shows a strip of frames: a video stream's details.
    public var hasFrames: Bool { videoCodec != nil }

    public init(
        durationSeconds: Double? = nil, width: Int? = nil, height: Int? = nil, videoCodec: String? = nil,
        frameRate: Double? = nil, hdr: HDRKind? = nil, hasAudio: Bool? = nil, audioCodec: String? = nil,
        picture: PictureSource? = nil
    ) {
        self.durationSeconds = durationSeconds
        self.width = width
        self.height = height
        self.videoCodec = videoCodec
        self.frameRate = frameRate
        self.hdr = hdr
        self.hasAudio = hasAudio
        self.audioCodec = audioCodec
        self.picture = picture
    }

    /// The details with what does not hold together left out, nil when nothing is left (a
    /// renderer and a store's row are not trusted): a duration up to a year, sides up to 65,535,
    /// a frame rate up to 1,000, codec names of up to 32 lower-case letters, digits and `_-.`.
    public var checked: MediaDetails? {
        var result = MediaDetails()
        if let seconds = durationSeconds, seconds.isFinite, (0...31_622_400).contains(seconds) {
            result.durationSeconds = seconds
        }
        if let width, let height, (1...65_535).contains(width), (1...65_535).contains(height) {
            result.width = width
            result.height = height
        }
        result.videoCodec = videoCodec.flatMap(Self.checkedCodec)
        if let rate = frameRate, rate.isFinite, rate > 0, rate <= 1000 { result.frameRate = rate }
        result.hdr = hdr
        result.hasAudio = hasAudio
        result.audioCodec = hasAudio == true ? audioCodec.flatMap(Self.checkedCodec) : nil
        result.picture = picture
        return result == MediaDetails() ? nil : result
    }

    static func checkedCodec(_ name: String) -> String? {
        guard (1...32).contains(name.utf8.count),
            name.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte) || "_-.".utf8.contains(byte)
            })
        else { return nil }
        return name
    }

    /// `0:42`, `1:02:03`: the duration as people read it, whole seconds.
    public static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        if hours > 0 { return "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" }
        return "\(minutes):\(twoDigits(rest))"
    }
}

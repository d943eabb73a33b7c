import GlanceCore

/// Recognises video and sound containers by their first bytes, for ``ContentSniffer``: ISO base
/// media files by their `ftyp` brands, Matroska and WebM by the EBML header's document type, AVI
/// and WAV by their RIFF forms, AIFF by its FORM, Windows Media by its header's GUID, Flash
/// video by `FLV`, MPEG transport streams by their sync bytes every 188 (or 192) bytes, MPEG
/// program streams by their first pack header, Ogg by
/// its capture pattern and first codec header, MP3 by its ID3 tag or two MPEG audio frames in a
/// row, FLAC by its marker. Each type also names the FFmpeg demuxer that opens it
/// (``demuxer(for:)``): a file is never probed by FFmpeg, whose probing would try formats (a
/// playlist, an image sequence) that read other files.
enum MediaSniffer {
    /// The media type `bytes` start as, nil when none, ISO base media files aside:
    /// ``isoMovie(_:named:)`` tells those, before HEIF's brands are looked at.
    static func type(of bytes: [UInt8]) -> ContentType? {
        if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) {
            // The EBML header's DocType comes first in the file.
            return contains(Array("webm".utf8), in: bytes.prefix(64)) ? .webm : .matroska
        }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("AVI ".utf8) {
            return .avi
        }
        // RIFX: the big-endian form, as some audio tools (and SciPy's tests) write it.
        if bytes.count >= 12, ["RIFF", "RIFX", "RF64", "BW64"].contains(where: { bytes.starts(with: Array($0.utf8)) }),
            bytes[8..<12].elementsEqual("WAVE".utf8)
        {
            return .wave
        }
        if bytes.starts(with: Self.asfHeader) { return .windowsMedia }
        // `FLV`, version 1, flags (audio 4, video 1, nothing else), a 9-byte header.
        if bytes.count >= 9, bytes.starts(with: Array("FLV".utf8) + [1]), bytes[4] & 0xFA == 0,
            bytes.bigEndian(at: 5, count: 4) == 9
        {
            return .flashVideo
        }
        if bytes.count >= 12, bytes.starts(with: Array("FORM".utf8)),
            bytes[8..<12].elementsEqual("AIFF".utf8) || bytes[8..<12].elementsEqual("AIFC".utf8)
        {
            return .aiff
        }
        if isTransportStream(bytes) { return .mpegTransportStream }
        if isProgramStream(bytes) { return .mpegProgramStream }
        if bytes.starts(with: Array("OggS".utf8)) {
            let videoMarkers: [[UInt8]] = [
                [0x80] + Array("theora".utf8), Array("OVP80".utf8), [0x01] + Array("video".utf8),
            ]
            return videoMarkers.contains(where: { contains($0, in: bytes[...]) }) ? .oggVideo : .oggAudio
        }
        if bytes.starts(with: Array("fLaC".utf8)) { return .flac }
        if bytes.count >= 10, bytes.starts(with: Array("ID3".utf8)), (2...4).contains(bytes[3]) { return .mp3 }
        if let length = mpegAudioFrameLength(bytes, at: 0), let _ = mpegAudioFrameLength(bytes, at: length) {
            return .mp3
        }
        return nil
    }

    /// The FFmpeg demuxer for a media type.
    static func demuxer(for type: ContentType) -> String? {
        switch type {
        case .mpeg4Video, .quickTimeMovie, .m4a: "mov"
        case .matroska, .webm: "matroska"
        case .avi: "avi"
        case .mpegTransportStream: "mpegts"
        case .mpegProgramStream: "mpeg"
        case .oggVideo, .oggAudio: "ogg"
        case .mp3: "mp3"
        case .flac: "flac"
        case .wave: "wav"
        case .windowsMedia: "asf"
        case .flashVideo: "flv"
        case .aiff: "aiff"
        default: nil
        }
    }

    /// The ASF header object's GUID, which every Windows Media file starts with.
    static let asfHeader: [UInt8] = [
        0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C,
    ]

    /// Brands that make an ISO base media file a movie or a sound file (a HEIF's are images).
    private static let soundBrands: Set = ["M4A ", "M4B ", "M4P ", "F4A ", "F4B "]
    private static let movieBrandPrefixes = [
        "iso", "mp4", "mp7", "avc", "3gp", "3g2", "M4V", "f4v", "MSNV", "dash",
        "XAVC", "mmp4", "NDAS", "CAEP", "qt  ",
    ]

    /// A movie or sound file from its leading `ftyp` box's major brand (QuickTime's `qt  ` is a
    /// QuickTime movie, `M4A ` sound, the ISO and MPEG-4 brands a movie); before `ftyp` existed a
    /// QuickTime movie began with another box (`moov`, `mdat`, `wide`, `free`), taken as one only
    /// when the name says `.mov` or `.mp4`.
    static func isoMovie(_ bytes: [UInt8], named: ContentType?) -> ContentType? {
        guard bytes.count >= 12 else { return nil }
        let box = String(decoding: bytes[4..<8], as: UTF8.self)
        if box == "ftyp" {
            let major = String(decoding: bytes[8..<12], as: UTF8.self)
            if major == "qt  " { return .quickTimeMovie }
            if soundBrands.contains(major) { return .m4a }
            if movieBrandPrefixes.contains(where: { major.hasPrefix($0) }) { return .mpeg4Video }
            return nil
        }
        if ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(box),
            named == .quickTimeMovie || named == .mpeg4Video
        {
            return .quickTimeMovie
        }
        return nil
    }

    /// Sync bytes (0x47) at the start of three packets in a row: 188-byte packets, or the
    /// 192-byte packets of Blu-ray's M2TS (a 4-byte time code first).
    static func isTransportStream(_ bytes: [UInt8]) -> Bool {
        for (offset, size) in [(0, 188), (4, 192)] where bytes.count > offset + 2 * size {
            if (0..<3).allSatisfy({ bytes[offset + $0 * size] == 0x47 }) { return true }
        }
        return false
    }

    /// A pack header's start code (`00 00 01 BA`) and the marker bits that follow it in MPEG-1
    /// (`0010` then a marker bit) or MPEG-2 (`01`, and markers at bits 2 and 0 of the SCR's bytes).
    static func isProgramStream(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 14, bytes.starts(with: [0x00, 0x00, 0x01, 0xBA]) else { return false }
        if bytes[4] & 0xF1 == 0x21 { return bytes[6] & 0x01 == 1 && bytes[8] & 0x01 == 1 }
        return bytes[4] & 0xC4 == 0x44 && bytes[6] & 0x04 == 0x04 && bytes[8] & 0x04 == 0x04
    }

    /// The length of the MPEG audio layer III frame whose header is at `offset`, nil when none
    /// is there (sync, version, layer, bit rate and sample rate all valid).
    static func mpegAudioFrameLength(_ bytes: [UInt8], at offset: Int) -> Int? {
        guard offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] & 0xE0 == 0xE0 else { return nil }
        let version = (bytes[offset + 1] >> 3) & 3  // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
        let layer = (bytes[offset + 1] >> 1) & 3  // 1: layer III
        let rateIndex = Int(bytes[offset + 2] >> 4)
        let sampleIndex = Int((bytes[offset + 2] >> 2) & 3)
        guard version != 1, layer == 1, (1...14).contains(rateIndex), sampleIndex != 3 else { return nil }
        let mpeg1 = version == 3
        let kilobits =
            mpeg1
            ? [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320][rateIndex]
            : [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160][rateIndex]
        let sampleRate = [44_100, 48_000, 32_000][sampleIndex] / (version == 3 ? 1 : version == 2 ? 2 : 4)
        let padding = Int((bytes[offset + 2] >> 1) & 1)
        return (mpeg1 ? 144 : 72) * kilobits * 1000 / sampleRate + padding
    }

    private static func contains(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        var start = haystack.startIndex
        while start + needle.count <= haystack.endIndex {
            if haystack[start] == needle[0], haystack[start..<(start + needle.count)].elementsEqual(needle) {
                return true
            }
            start += 1
        }
        return false
    }
}

internal import CLibraryLoader
import CMedia
import GlanceCore

/// An open video or sound file: owns FFmpeg's demuxer, decoder and converted frame (through
/// `CMedia`, which loads FFmpeg's libraries on the first such file) and frees them.
final class MediaFile {
    private let handle: OpaquePointer
    private let format: String
    /// The most pixels a frame may have.
    private let maxPixels: Int
    /// What the file says of itself, as it was opened.
    let info: glance_media_info

    /// What the file says of itself now: after a frame was decoded, with what the frame told.
    var currentInfo: glance_media_info {
        var info = glance_media_info()
        glance_media_describe(handle, &info)
        return info
    }

    /// How a frame is looked for: at most four candidates from 10% of the duration on (10%, 25%,
    /// 40%, 55%), 600 packets each (20 s of a 30 fps stream when no key frame is flagged), and
    /// ten seconds in all, after which the best frame so far is taken.
    static let candidates = 4
    static let packetsPerCandidate = 600
    static let seconds = 10.0

    /// Opens `file` as `type` with the demuxer sniffing chose for it; a video stream of more
    /// than `maxPixels` pixels a frame is refused from its header.
    init(file: OpenFile, type: ContentType, maxPixels: Int) throws(ThumbnailError) {
        self.maxPixels = maxPixels
        format = type.displayName
        guard let demuxer = MediaSniffer.demuxer(for: type) else {
            throw .unsupported(detail: "no demuxer for \(type.displayName)")
        }
        let size = file.status().map { Int64($0.st_size) } ?? 0
        guard size > 0 else { throw .empty }
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_media_load(&reason, reason.count) == 1 else {
            throw .libraryUnavailable(
                library: "FFmpeg's libraries", detail: String(nulTerminated: reason))
        }
        var failure = GLANCE_FAILURE_CORRUPT
        guard
            let opened = glance_media_open(
                file.descriptor, size, demuxer, Int64(maxPixels), &reason, reason.count, &failure)
        else {
            throw ThumbnailError(failure, reason: String(nulTerminated: reason), format: format, limitPixels: maxPixels)
        }
        handle = opened
        var info = glance_media_info()
        glance_media_describe(opened, &info)
        self.info = info
    }

    deinit { glance_media_close(handle) }

    /// The cover picture as a sealed file in memory, for the image decoders; nil when there is
    /// none or it cannot be made.
    func coverFile() -> OpenFile? {
        let descriptor = glance_media_cover_file(handle)
        return descriptor >= 0 ? OpenFile(adopting: descriptor) : nil
    }

    /// The frame chosen (or, with `position`, the key frame at that share of the duration)
    /// and converted to `size`; says what was chosen.
    func decodeFrame(size: PixelSize, position: Double? = nil) throws(ThumbnailError) -> glance_media_choice {
        var request = glance_media_request(
            width: Int32(size.width), height: Int32(size.height), candidates: Int32(Self.candidates),
            packets_per_candidate: Int32(Self.packetsPerCandidate), seconds: Self.seconds, position: position ?? -1)
        var choice = glance_media_choice()
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_media_decode_frame(handle, &request, &choice, &reason, reason.count) == 1 else {
            throw ThumbnailError(
                choice.failure, reason: String(nulTerminated: reason), format: format, limitPixels: maxPixels)
        }
        return choice
    }

    /// Copies `count` converted rows from `first` into `out`.
    func readRows(from first: Int, count: Int, into out: UnsafeMutablePointer<UInt8>) {
        glance_media_read_rows(handle, Int32(first), Int32(count), out)
    }
}

import GlanceCore

/// Reads the beginning of an open document: no Foundation `Data`, no more bytes than asked for.
enum FileReader {
    /// The first `maxBytes` bytes of `file`, and whether that is the whole file.
    static func readPrefix(of file: OpenFile, maxBytes: Int) throws(ThumbnailError) -> (
        bytes: [UInt8], isWholeFile: Bool
    ) {
        var bytes: [UInt8]
        // No bigger a buffer than the file (and one byte, to see it grow): a 2 KB text read
        // for its first MiB must not fill a MiB of zeros first.
        let size = file.status().map { Int($0.st_size) } ?? maxBytes
        do {
            bytes = try file.read(count: min(maxBytes, max(0, size)) + 1, at: 0)
        } catch {
            throw .unreadable(reason: error.description)
        }
        let isWholeFile = bytes.count <= maxBytes
        if !isWholeFile { bytes.removeLast() }
        return (bytes, isWholeFile)
    }

    /// All of `file`, for the decoders that parse from memory (WebP, GIF, HEIF, SVG). The worker
    /// has already held the file to the size limit for images.
    static func readWhole(of file: OpenFile) throws(ThumbnailError) -> [UInt8] {
        let size = file.status().map { Int($0.st_size) } ?? 0
        guard size > 0 else { throw .empty }
        do {
            return try file.read(count: size, at: 0)
        } catch {
            throw .unreadable(reason: error.description)
        }
    }
}

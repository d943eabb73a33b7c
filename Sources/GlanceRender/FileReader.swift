import GlanceCore

/// Reads the beginning of an open document: no Foundation `Data`, no more bytes than asked for.
enum FileReader {
    /// The first `maxBytes` bytes of `file`, and whether that is the whole file.
    static func readPrefix(of file: OpenFile, maxBytes: Int) throws(ThumbnailError) -> (
        bytes: [UInt8], isWholeFile: Bool
    ) {
        var bytes: [UInt8]
        do {
            bytes = try file.read(count: maxBytes + 1, at: 0)
        } catch {
            throw .unreadable(reason: error.description)
        }
        let isWholeFile = bytes.count <= maxBytes
        if !isWholeFile { bytes.removeLast() }
        return (bytes, isWholeFile)
    }
}

import GlanceCore

/// The first bytes of a document, as read, and whether they are all of it.
public struct FilePrefix: Sendable {
    /// The bytes, from the file's start.
    public var bytes: [UInt8]
    /// Whether ``bytes`` is the whole file.
    public var isWholeFile: Bool
}

/// Reads the beginning of an open document: no Foundation `Data`, no more bytes than asked for.
enum FileReader {
    /// The first `maxBytes` bytes of `file`, and whether that is the whole file.
    static func readPrefix(of file: OpenFile, maxBytes: Int) throws(ThumbnailError) -> FilePrefix {
        try readPrefix(of: file, maxBytes: maxBytes, continuing: FilePrefix(bytes: [], isWholeFile: false))
    }

    /// The first `maxBytes` bytes of `file` when `read` holds its first bytes already: those,
    /// then only what follows them (nothing more when `read` is the whole file or as long).
    static func readPrefix(of file: OpenFile, maxBytes: Int, continuing read: FilePrefix) throws(ThumbnailError)
        -> FilePrefix
    {
        guard !read.isWholeFile, read.bytes.count < maxBytes else {
            return FilePrefix(
                bytes: Array(read.bytes.prefix(maxBytes)), isWholeFile: read.isWholeFile && read.bytes.count <= maxBytes
            )
        }
        // No bigger a buffer than the file (and one byte, to see it grow): a 2 KB text read
        // for its first MiB must not fill a MiB of zeros first.
        let size = file.status().map { Int($0.st_size) } ?? maxBytes
        let wanted = min(maxBytes, max(read.bytes.count, size)) + 1 - read.bytes.count
        var bytes = read.bytes
        do {
            bytes += try file.read(count: wanted, at: Int64(read.bytes.count))
        } catch {
            throw .unreadable(reason: error.description)
        }
        let isWholeFile = bytes.count <= maxBytes
        if !isWholeFile { bytes.removeSubrange(maxBytes...) }
        return FilePrefix(bytes: bytes, isWholeFile: isWholeFile)
    }

    /// Up to `count` bytes of `file` at `offset` (fewer only at its end), for the readers that
    /// walk a file's structure from where it says (a Photoshop document's sections, a carried
    /// preview).
    static func read(_ file: OpenFile, count: Int, at offset: Int) throws(ThumbnailError) -> [UInt8] {
        do { return try file.read(count: count, at: Int64(offset)) } catch {
            throw .unreadable(reason: error.description)
        }
    }

    /// Exactly `count` bytes of `file` at `offset`; a file that ends before them is `truncated`
    /// (`format` names it).
    static func read(_ file: OpenFile, exactly count: Int, at offset: Int, format: String) throws(ThumbnailError)
        -> [UInt8]
    {
        let bytes = try read(file, count: count, at: offset)
        guard bytes.count == count else { throw .truncated(format: format) }
        return bytes
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

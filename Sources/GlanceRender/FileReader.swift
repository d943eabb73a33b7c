#if canImport(Glibc)
    import Glibc
#endif

/// Reads the beginning of a file with plain POSIX calls: no Foundation `Data`, no more bytes
/// than asked for.
enum FileReader {
    /// The first `maxBytes` bytes of the file at `path`, and whether that is the whole file.
    static func readPrefix(path: String, maxBytes: Int) throws(ThumbnailError) -> (bytes: [UInt8], isWholeFile: Bool) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
            throw .unreadable(reason: "it is a folder")
        }
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { raw in
                read(descriptor, raw.baseAddress! + filled, raw.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            filled += count
        }
        let isWholeFile = filled <= maxBytes
        bytes.removeSubrange(min(filled, maxBytes)...)
        return (bytes, isWholeFile)
    }
}

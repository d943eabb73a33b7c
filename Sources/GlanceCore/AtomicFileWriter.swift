#if canImport(Glibc)
    import Glibc
#endif

/// Writes an output file so that readers see either the old file or the complete new one, never
/// a part, and so that nothing but that one name is ever written.
///
/// The bytes go to a temporary file in the same folder whose name is unpredictable and which is
/// created with `O_CREAT | O_EXCL | O_NOFOLLOW` (so a symlink planted at a guessed name is never
/// written through), are flushed, then renamed over the target. A target that exists and is not
/// a regular file (a device, a FIFO, a folder) is refused: renaming over it would replace it.
public enum AtomicFileWriter {
    /// Checks that `path` may be replaced: nothing is there, or a regular file (a symlink to one
    /// counts by its target) that is none of `protected` (the source document, say).
    public static func checkDestination(_ path: String, protecting protected: [FileIdentity] = [])
        throws(ThumbnailError)
    {
        var status = stat()
        guard FileName.withCString(path, { stat($0, &status) }) == 0 else {
            if errno == ENOENT { return }
            throw .writeFailed(path: path, reason: String(cString: strerror(errno)))
        }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFREG else {
            throw .writeFailed(
                path: path,
                reason: "it exists and is \(FileAccessError.describeKind(kind)), not a regular file "
                    + "(use -o - for standard output)")
        }
        let target = FileIdentity(status: status)
        if protected.contains(where: { $0.device == target.device && $0.inode == target.inode }) {
            throw .writeFailed(path: path, reason: "it is the document itself; documents are never written")
        }
    }

    /// Writes `bytes` to `path` atomically, after ``checkDestination(_:protecting:)``. On failure
    /// nothing is left behind.
    public static func write(_ bytes: [UInt8], to path: String, protecting protected: [FileIdentity] = [])
        throws(ThumbnailError)
    {
        try checkDestination(path, protecting: protected)
        let (folder, name) = split(path)
        var descriptor: Int32 = -1
        var temporary = ""
        for _ in 0..<16 {
            let suffix = "." + randomSuffix() + ".partial"
            temporary = folder + "." + FileName.prefix(of: name, leavingRoomFor: 1 + suffix.utf8.count) + suffix
            descriptor = FileName.withCString(temporary) {
                open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            }
            if descriptor >= 0 || errno != EEXIST { break }
        }
        guard descriptor >= 0 else { throw .writeFailed(path: path, reason: String(cString: strerror(errno))) }
        var failure: Int32 = 0
        if !DescriptorWriter.writeAll(bytes, to: descriptor) { failure = errno }
        if failure == 0 && fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0 {
            let renamed = FileName.withCString(temporary) { from in
                FileName.withCString(path) { to in rename(from, to) }
            }
            if renamed != 0 { failure = errno }
        }
        if failure != 0 {
            _ = FileName.withCString(temporary) { unlink($0) }
            throw .writeFailed(path: path, reason: String(cString: strerror(failure)))
        }
    }

    /// The folder part (with its trailing `/`, or empty) and the name of `path`.
    private static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[...slash]), String(path[path.index(after: slash)...]))
    }

    /// 12 random letters and digits from the kernel's random source: a temporary name nobody
    /// can guess.
    public static func randomSuffix() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<12).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }
}

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

    /// Writes `bytes` to `path` atomically, after ``checkDestination(_:protecting:)``, a new file
    /// made with `mode` (less the umask). On failure nothing is left behind.
    public static func write(
        _ bytes: [UInt8], to path: String, protecting protected: [FileIdentity] = [], mode: mode_t = 0o666
    ) throws(ThumbnailError) {
        try checkDestination(path, protecting: protected)
        let (folderPath, name) = split(path)
        // The folder is opened once, so the temporary file and the rename are in the same one
        // even if a folder above is renamed meanwhile.
        let folder = FileName.withCString(folderPath.isEmpty ? "." : folderPath) {
            open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard folder >= 0 else { throw .writeFailed(path: path, reason: String(cString: strerror(errno))) }
        defer { close(folder) }
        do {
            try write(bytes, as: name, in: folder, mode: mode, durable: true)
        } catch {
            throw .writeFailed(path: path, reason: String(cString: strerror(error.code)))
        }
    }

    /// Writes `bytes` as `name` in the open `folder`, atomically: to a new file of an unguessable
    /// name beside it (created with `O_CREAT | O_EXCL | O_NOFOLLOW`, so nothing planted is written
    /// through), renamed over `name`. `durable`: the file is flushed before the rename and the
    /// folder after it, so that a crash leaves the old file or the whole new one (a cache entry
    /// that is made again need not pay for that). On failure nothing is left behind. The one
    /// atomic writer: outputs, documents a store saves, desktop cache entries.
    public static func write(_ bytes: [UInt8], as name: String, in folder: Int32, mode: mode_t, durable: Bool)
        throws(AtomicWriteError)
    {
        var descriptor: Int32 = -1
        var temporary = ""
        for _ in 0..<16 {
            let suffix = "." + randomSuffix() + ".partial"
            temporary = "." + FileName.prefix(of: name, leavingRoomFor: 1 + suffix.utf8.count) + suffix
            descriptor = FileName.withCString(temporary) {
                openat(folder, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            }
            if descriptor >= 0 || errno != EEXIST { break }
        }
        guard descriptor >= 0 else { throw AtomicWriteError(code: errno) }
        var failure: Int32 = 0
        if !DescriptorWriter.writeAll(bytes, to: descriptor) { failure = errno }
        if failure == 0 && durable && fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0 {
            let renamed = FileName.withCString(temporary) { from in
                FileName.withCString(name) { to in renameat(folder, from, folder, to) }
            }
            if renamed != 0 { failure = errno }
        }
        if failure != 0 {
            _ = FileName.withCString(temporary) { unlinkat(folder, $0, 0) }
            throw AtomicWriteError(code: failure)
        }
        // The rename is durable only once the folder is.
        if durable { _ = fsync(folder) }
    }

    /// The folder part (with its trailing `/`, or empty) and the name of `path`.
    private static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[...slash]), String(path[path.index(after: slash)...]))
    }

    /// 12 random letters and digits from the kernel's random source: a temporary name nobody
    /// can guess.
    static func randomSuffix() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<12).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }
}

/// Why an atomic write failed: the system's error number.
public struct AtomicWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` of the call that failed.
    public let code: Int32

    public init(code: Int32) { self.code = code }

    public var description: String { String(cString: strerror(code)) }
}

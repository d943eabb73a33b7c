#if canImport(Glibc)
    import Glibc
#endif

/// Writes a file so that readers see either the old file or the complete new one, never a part:
/// the bytes go to a temporary file in the same folder, are flushed, then renamed over the target.
public enum AtomicFileWriter {
    /// Writes `bytes` to `path` atomically. On failure nothing is left behind.
    public static func write(_ bytes: [UInt8], to path: String) throws(ThumbnailError) {
        let temporary = path + ".partial-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .writeFailed(path: path, reason: String(cString: strerror(errno))) }
        var written = 0
        var failure: Int32 = 0
        bytes.withUnsafeBytes { raw in
            while written < raw.count {
                let count = Glibc.write(descriptor, raw.baseAddress! + written, raw.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                written += count
            }
        }
        if failure == 0 && fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw .writeFailed(path: path, reason: String(cString: strerror(failure)))
        }
    }
}

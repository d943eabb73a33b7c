import GlanceStore

#if canImport(Glibc)
    import Glibc
#endif

/// `stat(2)` in the terms of the store: one call, no opening of the file.
public enum FileStatus {
    /// The identity of the file at `path` (following symlinks), or nil if it is not there or
    /// not a regular file.
    public static func identity(ofFileAt path: String) -> FileIdentity? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return identity(of: status)
    }

    /// The identity described by a `stat` result.
    static func identity(of status: stat) -> FileIdentity {
        FileIdentity(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            modifiedNanoseconds: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec))
    }
}

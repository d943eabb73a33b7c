#if canImport(Glibc)
    import Glibc
#endif

/// A regular file opened for reading, owned by this object (closed when it goes away).
///
/// Documents are read through descriptors, never reopened by name: once a document is open, a
/// rename, a symlink swap or a replacement of its path cannot change what is read. The pipeline
/// opens documents beneath their container (`ContainerDirectory`) and hands the descriptor to the
/// renderer process that renders it.
public final class OpenFile: Sendable {
    /// The descriptor, open read-only.
    public let descriptor: Int32

    /// Takes ownership of `descriptor`.
    public init(adopting descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Opens the regular file at `path` (a symlink is followed), or says why not.
    ///
    /// Opened with `O_NONBLOCK`, so that a FIFO or a device is refused at once by the `fstat`
    /// that follows instead of blocking until a writer appears.
    public static func regularFile(atPath path: String) throws(FileAccessError) -> OpenFile {
        let descriptor = FileName.withCString(path) { open($0, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw FileAccessError(errno: errno) }
        return try checkedRegular(OpenFile(adopting: descriptor))
    }

    /// `file` if it is a regular file (clearing `O_NONBLOCK` again), else throws.
    public static func checkedRegular(_ file: OpenFile) throws(FileAccessError) -> OpenFile {
        guard let status = file.status() else { throw FileAccessError(errno: errno) }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFREG else { throw .notRegularFile(kind: FileAccessError.describeKind(kind)) }
        let flags = fcntl(file.descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(file.descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        return file
    }

    /// `fstat` of the descriptor, or nil (errno set).
    public func status() -> stat? {
        var status = stat()
        return fstat(descriptor, &status) == 0 ? status : nil
    }

    /// The identity of the open file now (size and modification time may change while it is open).
    public func identity() -> FileIdentity? {
        status().map(FileIdentity.init(status:))
    }

    /// Reads up to `buffer.count` bytes at `offset` into `buffer`; fewer only at the end of the
    /// file. Returns how many were read.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(FileAccessError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let got = pread(
                descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset) + off_t(filled))
            if got < 0 {
                if errno == EINTR { continue }
                throw FileAccessError(errno: errno)
            }
            if got == 0 { break }
            filled += got
        }
        return filled
    }

    /// Reads up to `count` bytes at `offset` (fewer only at the end of the file).
    public func read(count: Int, at offset: Int64) throws(FileAccessError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let filled = bytes.withUnsafeMutableBytes { raw in
            Result { () throws(FileAccessError) in try read(into: raw, at: offset) }
        }
        bytes.removeSubrange(try filled.get()...)
        return bytes
    }
}

extension FileIdentity {
    /// The identity described by a `stat` result.
    public init(status: stat) {
        self.init(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            modifiedNanoseconds: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec))
    }
}

/// Why a file could not be opened or read.
public enum FileAccessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed with this `errno`.
    case system(code: Int32)
    /// The path names something that is not a regular file (a FIFO, a device, a folder, ...).
    case notRegularFile(kind: String)
    /// The path leads out of the folder it must stay in (`..`, an absolute symlink, ...).
    case outside

    /// The error for `errno` (EXDEV, from openat2's RESOLVE_BENEATH, means "leads outside").
    public init(errno code: Int32) {
        self = code == EXDEV ? .outside : .system(code: code)
    }

    public var description: String {
        switch self {
        case .system(let code): String(cString: strerror(code))
        case .notRegularFile(let kind): "not a regular file (\(kind))"
        case .outside: "leads outside the container"
        }
    }

    /// Words for a `st_mode & S_IFMT` value.
    public static func describeKind(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a file"
        }
    }
}

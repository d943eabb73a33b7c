internal import CFileAccess
import GlanceCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A container's folder, held open: documents are opened beneath it and nowhere else.
///
/// Opening goes through `openat2` with `RESOLVE_BENEATH`: a path with `..` that climbs out, an
/// absolute symlink, or a relative one that leads out of the container fails, at the moment of
/// opening, whatever the path looked like when the container was scanned. What is read is then
/// the descriptor, which no later rename or swap of the path can change.
public final class ContainerDirectory: Sendable {
    /// The container's absolute, resolved path.
    public let root: String
    /// The folder, open for reading.
    public let descriptor: Int32
    /// How many times the container has been walked (a scan), for tests and the benchmark: on-save
    /// work must not walk it.
    let walkCount = Atomic<Int>(0)

    /// How many times the container has been walked since it was opened.
    public var walks: Int { walkCount.load(ordering: .relaxed) }

    /// Opens the folder at `path`; throws if it is not a folder that can be opened.
    public init(path: String) throws(ContainerError) {
        guard let resolved = FileName.withCString(path, { realpath($0, nil) }) else {
            throw ContainerError(path: path, reason: String(cString: strerror(errno)))
        }
        root = FileName.decode(cString: resolved)
        free(resolved)
        let opened = FileName.withCString(root) { Glibc.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard opened >= 0 else {
            let reason = errno == ENOTDIR ? "not a folder" : String(cString: strerror(errno))
            throw ContainerError(path: path, reason: reason)
        }
        descriptor = opened
    }

    deinit { close(descriptor) }

    /// Opens the regular file at `relative` (relative to the container) for reading, beneath the
    /// container; a FIFO or a device is refused at once (opened non-blocking, then `fstat`).
    public func open(_ relative: String) throws(FileAccessError) -> OpenFile {
        let opened = FileName.withCString(relative) {
            glance_open_beneath(descriptor, $0, O_RDONLY | O_NONBLOCK | O_NOCTTY)
        }
        guard opened >= 0 else { throw FileAccessError(errno: errno) }
        return try OpenFile.checkedRegular(OpenFile(adopting: opened))
    }

    /// The identity of the regular file at `relative` now (symlinks inside followed), without
    /// opening its content; nil if it is gone, not a regular file, or leads outside.
    public func identity(of relative: String) -> FileIdentity? {
        var status = stat()
        guard FileName.withCString(relative, { glance_stat_beneath(descriptor, $0, &status) }) == 0,
            (status.st_mode & S_IFMT) == S_IFREG
        else { return nil }
        return FileIdentity(status: status)
    }
}

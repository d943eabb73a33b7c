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
///
/// The rule for what is a document holds for where a path *leads*, not only for its spelling: a
/// path with a hidden component (`.env`, `.git/config`, the sidecar) or inside an excluded folder
/// (a `--store` inside the container) is refused, and so is a path whose links lead to one
/// (`env.txt -> .env`, `db.png -> .thumbnails/thumbnails.sqlite`). A path without links is
/// opened with `RESOLVE_NO_SYMLINKS` and judged by its spelling; one with a link is judged by the
/// path the kernel gives for the opened descriptor.
public final class ContainerDirectory: Sendable {
    /// The container's absolute, resolved path.
    public let root: String
    /// The folder, open for reading.
    public let descriptor: Int32
    /// Folders inside the container that hold no documents (the store's, when it lies inside),
    /// relative to the container, with their links resolved.
    let excludedFolders: [String]
    /// How many times the container has been walked (a scan), for tests and the benchmark: on-save
    /// work must not walk it.
    let walkCount = Atomic<Int>(0)

    /// How many times the container has been walked since it was opened.
    public var walks: Int { walkCount.load(ordering: .relaxed) }

    /// Opens the folder at `path`; throws if it is not a folder that can be opened. The folders
    /// `excluding` that lie inside it hold no documents.
    public init(path: String, excluding: [String] = []) throws(ContainerError) {
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
        let prefix = root == "/" ? "/" : root + "/"
        excludedFolders = excluding.compactMap { folder in
            guard let resolved = FileName.withCString(folder, { realpath($0, nil) }) else { return nil }
            defer { free(resolved) }
            let path = FileName.decode(cString: resolved)
            return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : nil
        }
    }

    deinit { close(descriptor) }

    /// Opens the regular file at `relative` (relative to the container) for reading, beneath the
    /// container; a FIFO or a device is refused at once (opened non-blocking, then `fstat`). A
    /// path that is not a document's, or leads to one that is not, fails with `ENOENT`.
    public func open(_ relative: String) throws(FileAccessError) -> OpenFile {
        let opened = openDocument(relative, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY)
        guard opened >= 0 else { throw FileAccessError(errno: errno) }
        return try OpenFile.checkedRegular(OpenFile(adopting: opened))
    }

    /// The identity of the regular file at `relative` now (symlinks inside followed), without
    /// opening its content; nil if it is gone, not a regular file, leads outside, or is not a
    /// document (see the type's rule).
    public func identity(of relative: String) -> FileIdentity? {
        let opened = openDocument(relative, flags: glance_path_only_flag())
        guard opened >= 0 else { return nil }
        defer { close(opened) }
        var status = stat()
        guard fstat(opened, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileIdentity(status: status)
    }

    /// Whether `relative`, as spelled, may name a document: ``FileName/isDocumentPath(_:)``, and
    /// not inside an excluded folder.
    public func mayHoldDocument(_ relative: String) -> Bool {
        FileName.isDocumentPath(relative)
            && !excludedFolders.contains { relative == $0 || relative.hasPrefix($0 + "/") }
    }

    /// Opens `relative` beneath the container with `flags`, applying the type's rule: a
    /// descriptor, or -1 with `errno` set (`ENOENT` for a path that is not a document's).
    private func openDocument(_ relative: String, flags: Int32) -> Int32 {
        guard mayHoldDocument(relative) else {
            errno = ENOENT
            return -1
        }
        let direct = FileName.withCString(relative) { glance_open_beneath_without_links(descriptor, $0, flags) }
        if direct >= 0 || errno != ELOOP { return direct }
        // A link on the way: open it as it leads, then judge where it led.
        let followed = FileName.withCString(relative) { glance_open_beneath(descriptor, $0, flags) }
        guard followed >= 0 else { return -1 }
        guard let target = leadsTo(followed), mayHoldDocument(target) else {
            close(followed)
            errno = ENOENT
            return -1
        }
        return followed
    }

    /// The path, relative to the container, of the file open at `opened`, or nil when it is not
    /// inside the container now (or its path cannot be read).
    private func leadsTo(_ opened: Int32) -> String? {
        guard let target = Self.currentPath(of: opened), let base = Self.currentPath(of: descriptor) else { return nil }
        let prefix = base == "/" ? "/" : base + "/"
        guard target.hasPrefix(prefix) else { return nil }
        return String(target.dropFirst(prefix.count))
    }

    /// The absolute path the kernel gives for an open descriptor.
    private static func currentPath(of descriptor: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = glance_descriptor_path(descriptor, &buffer, buffer.count)
        guard length > 0 else { return nil }
        return FileName.decode(cString: buffer)
    }
}

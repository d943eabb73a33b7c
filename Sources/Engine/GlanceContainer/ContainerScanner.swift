internal import CFileAccess
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// A document found in a container: its path relative to the container and its identity.
public struct ScannedDocument: Sendable, Equatable {
    /// `/`-separated, relative to the container; bytes that are not UTF-8 are kept as
    /// ``FileName`` escapes.
    public var path: String
    public var identity: FileIdentity

    public init(path: String, identity: FileIdentity) {
        self.path = path
        self.identity = identity
    }
}

/// Why a container cannot be used.
public struct ContainerError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// What one walk of a container found: the documents, and what it passed over and why.
public struct ContainerScan: Sendable {
    /// Entries passed over on purpose, by reason.
    public struct Skipped: Sendable, Equatable, Codable {
        /// Names starting with `.` (hidden files and folders, the default sidecar among them).
        public var hidden = 0
        /// FIFOs, sockets, devices: not documents.
        public var notRegularFiles = 0
        /// Symbolic links that lead out of the container, are absolute, dangle or loop.
        public var linksNotFollowed = 0
        /// Paths longer than `PATH_MAX` (4096 bytes), which no file call can take whole.
        public var pathsTooLong = 0
        /// Folders that are a Glance store (they hold its `CACHEDIR.TAG`): another container's
        /// sidecar, or a `--store` kept inside the container, whatever its name. Not documents.
        public var stores = 0

        public init() {}

        /// All of them together.
        public var total: Int { hidden + notRegularFiles + linksNotFollowed + pathsTooLong + stores }
    }

    /// A folder that could not be read: its documents are not in ``documents``.
    public struct UnreadableFolder: Sendable, Equatable {
        public var path: String
        public var reason: String
    }

    /// Every document, sorted by path.
    public var documents: [ScannedDocument] = []
    public var skipped = Skipped()
    public var unreadableFolders: [UnreadableFolder] = []
}

/// Walks a container: every regular file below it, by one `readdir` and one `stat` each.
///
/// The walk goes through descriptors (`openat` with `O_NOFOLLOW` for each folder), so a folder
/// swapped for a symlink while it runs leads nowhere. Skipped, and counted: names starting with
/// `.` (hidden files and folders, and so the `.thumbnails` sidecar), the store's folder wherever
/// it is, any other folder that is a Glance store (it holds Glance's `CACHEDIR.TAG`), paths
/// longer than `PATH_MAX`, things that are not regular files, and symbolic links
/// that are absolute or lead out of the container. Relative links to files inside are listed
/// under their own name; links to folders are not followed (a loop guard that costs nothing).
/// The content of files is never read.
public struct ContainerScanner: Sendable {
    /// The container's absolute, resolved path.
    public let root: String
    /// The container, open: every document is opened beneath it.
    public let directory: ContainerDirectory
    /// Folders never to descend into (the store folder, when it lies inside), by device and inode.
    let excludedFolders: Set<FolderKey>

    /// A scanner for `container`; throws if it is not a readable folder.
    public init(container: String, excluding: [String] = []) throws(ContainerError) {
        directory = try ContainerDirectory(path: container, excluding: excluding)
        root = directory.root
        var excluded = Set<FolderKey>()
        for folder in excluding {
            var status = stat()
            if FileName.withCString(folder, { stat($0, &status) }) == 0 {
                excluded.insert(FolderKey(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)))
            }
        }
        excludedFolders = excluded
    }

    /// Whether `folder` is one this scanner leaves out (false when it did not exist when the
    /// scanner was made).
    public func excludes(folder: String) -> Bool {
        var status = stat()
        guard FileName.withCString(folder, { stat($0, &status) }) == 0 else { return false }
        return excludedFolders.contains(FolderKey(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)))
    }

    /// Every document, sorted by path.
    public func scan() -> [ScannedDocument] { scanReporting().documents }

    /// Every document, sorted by path, with what was skipped and which folders could not be read.
    public func scanReporting() -> ContainerScan {
        var scan = ContainerScan()
        directory.walkCount.add(1, ordering: .relaxed)
        // A descriptor of its own: a dup would share the folder's read position between scans.
        let root = openat(directory.descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        walk(folderDescriptor: root, relative: "", relativeBytes: 0, into: &scan)
        scan.documents.sort { $0.path < $1.path }
        return scan
    }

    /// Opens the document at `relative` for reading, beneath the container (see
    /// ``ContainerDirectory/open(_:)``).
    public func open(_ relative: String) throws(FileAccessError) -> OpenFile {
        try directory.open(relative)
    }

    /// Opens the document at `relative` (as ``open(_:)``) with the identity of what was opened:
    /// what a render records, so that a change while it is read can be told.
    public func openWithIdentity(_ relative: String) throws(FileAccessError) -> (file: OpenFile, identity: FileIdentity)
    {
        let file = try directory.open(relative)
        guard let identity = file.identity() else { throw FileAccessError(errno: errno) }
        return (file, identity)
    }

    /// The identity of the document at `relative` now, without opening its content; nil if it is
    /// gone, not a regular file, or leads outside the container.
    public func identity(of relative: String) -> FileIdentity? {
        directory.identity(of: relative)
    }

    /// Whether `relative` passes through a hidden name (one starting with `.`): such a path is
    /// never a document, whatever it names (the walk passes hidden files and folders over).
    public static func isHidden(_ relative: String) -> Bool {
        FileName.components(of: relative).contains { FileName.isHidden(component: $0) }
    }

    /// Whether the container folder holds nothing at all, not even hidden entries: what the mount
    /// point of a network share that is not mounted looks like. False when it cannot be read.
    public var holdsNothing: Bool {
        let descriptor = openat(directory.descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0, let stream = fdopendir(descriptor) else {
            if descriptor >= 0 { close(descriptor) }
            return false
        }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let isDotOrDotDot = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                let name = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
                return name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0))
            }
            if !isDotOrDotDot { return false }
        }
        return true
    }

    /// The absolute path of a document given relative to the container (for messages and for
    /// links to the original; never for reading it).
    public func absolutePath(of relative: String) -> String { root + "/" + relative }

    /// Walks the folder open at `folderDescriptor` (which this call closes). `relative` is the
    /// folder's path (decoded), `relativeBytes` its length in bytes on disk.
    private func walk(folderDescriptor: Int32, relative: String, relativeBytes: Int, into scan: inout ContainerScan) {
        guard folderDescriptor >= 0, let stream = fdopendir(folderDescriptor) else {
            let reason = String(cString: strerror(errno))
            if folderDescriptor >= 0 { close(folderDescriptor) }
            scan.unreadableFolders.append(.init(path: relative, reason: reason))
            return
        }
        defer { closedir(stream) }
        let folder = dirfd(stream)
        var subfolders: [(name: [CChar], path: String, bytes: Int)] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 {
                    let reason = String(cString: strerror(errno))
                    scan.unreadableFolders.append(.init(path: relative, reason: reason))
                }
                break
            }
            // The name is read in place (d_name is NUL-terminated): no copy for the common case.
            var status = stat()
            let (name, length, found) = withUnsafeBytes(of: &entry.pointee.d_name) {
                raw -> (String?, Int, Int32) in
                let text = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
                let length = strlen(text)
                if text[0] == 0x2E {
                    let isLink = length == 1 || (length == 2 && text[1] == 0x2E)
                    return (isLink ? nil : "", length, -2)  // "." and "..": nil; hidden: ""
                }
                let found = fstatat(folder, text, &status, AT_SYMLINK_NOFOLLOW)
                return (FileName.decode(cString: text), length, found)
            }
            guard let name else { continue }
            if found == -2 {
                scan.skipped.hidden += 1
                continue
            }
            let bytes = relative.isEmpty ? length : relativeBytes + 1 + length
            if bytes >= Int(PATH_MAX) {
                scan.skipped.pathsTooLong += 1
                continue
            }
            guard found == 0 else { continue }  // gone since readdir
            let path = relative.isEmpty ? name : relative + "/" + name
            switch status.st_mode & S_IFMT {
            case S_IFDIR:
                let key = FolderKey(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
                if !excludedFolders.contains(key) {
                    let raw = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                        Array(raw.bindMemory(to: CChar.self).prefix(length + 1))
                    }
                    subfolders.append((raw, path, bytes))
                }
            case S_IFREG:
                scan.documents.append(ScannedDocument(path: path, identity: FileIdentity(status: status)))
            case S_IFLNK:
                if let target = directory.identity(of: path) {
                    scan.documents.append(ScannedDocument(path: path, identity: target))
                } else {
                    scan.skipped.linksNotFollowed += 1
                }
            default:
                scan.skipped.notRegularFiles += 1
            }
        }
        for (name, path, bytes) in subfolders {
            let child = name.withUnsafeBufferPointer {
                openat(folder, $0.baseAddress!, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            if child >= 0, Self.isGlanceStore(child) {
                close(child)
                scan.skipped.stores += 1
                continue
            }
            walk(folderDescriptor: child, relative: path, relativeBytes: bytes, into: &scan)
        }
    }

    /// Whether the open folder `folder` is a Glance store: its `CACHEDIR.TAG` (a regular file,
    /// not followed if a link) starts as Glance writes it. One `openat` for each folder walked,
    /// which fails at once for all but stores.
    static func isGlanceStore(_ folder: Int32) -> Bool {
        let tag = openat(folder, StoreTag.fileName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard tag >= 0 else { return false }
        defer { close(tag) }
        var start = [UInt8](repeating: 0, count: StoreTag.start.count)
        let count = start.withUnsafeMutableBytes { read(tag, $0.baseAddress, $0.count) }
        return count == StoreTag.start.count && start == StoreTag.start
    }

    /// A folder's device and inode.
    struct FolderKey: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
    }
}

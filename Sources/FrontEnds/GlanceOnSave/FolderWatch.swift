internal import CWatch
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// One thing inotify saw, with its path relative to the container.
struct WatchEvent: Sendable, Equatable {
    /// What happened.
    enum Kind: Sendable, Equatable {
        /// A file opened for writing was closed.
        case closedAfterWriting
        /// Moved away from here; a `movedIn` with the same cookie may follow.
        case movedOut(cookie: UInt32)
        /// Moved here from somewhere (inside the container if a `movedOut` shares the cookie).
        case movedIn(cookie: UInt32)
        case created
        case deleted
        /// The kernel's queue overflowed: events were lost.
        case overflow
        /// The container folder itself is gone (deleted, or its file system unmounted): nothing
        /// more will be seen in it.
        case containerGone
    }

    var kind: Kind
    /// `/`-separated, relative to the container ("" for overflow and containerGone).
    var path: String
    var isFolder: Bool
}

/// Why a folder could not be watched.
public struct WatchError: Error, Sendable, CustomStringConvertible {
    public let folder: String
    public let message: String

    public var description: String { "\(folder): \(message)" }

    public init(folder: String, message: String) {
        self.folder = folder
        self.message = message
    }
}

/// inotify on the folders of one container: one descriptor, a watch per folder, and the map from
/// watch descriptors to folders. Made and used by the watcher's reading thread only.
final class FolderWatch {
    let descriptor: Int32
    /// The container's absolute path.
    let root: String
    /// Folders (relative) whose events are ignored: the store's, when it lies inside.
    let excluded: Set<String>
    private var folders: [Int32: String] = [:]
    /// The container folder, held (`O_PATH`) to see it deleted: while a process holds a folder
    /// open, the kernel says nothing of its deletion (no `IN_DELETE_SELF`) until it is closed.
    private let rootHandle: Int32

    init(root: String, excluding excluded: Set<String>) throws(WatchError) {
        let opened = glance_watch_open()
        guard opened >= 0 else {
            throw WatchError(folder: root, message: "cannot start inotify: \(String(cString: strerror(errno)))")
        }
        descriptor = opened
        rootHandle = FileName.withCString(root) { glance_watch_hold_folder($0) }
        self.root = root
        self.excluded = excluded
    }

    deinit {
        close(descriptor)
        if rootHandle >= 0 { close(rootHandle) }
    }

    /// Whether the container folder has been deleted (its inode has no name left).
    var rootIsDeleted: Bool {
        var status = stat()
        return rootHandle >= 0 && fstat(rootHandle, &status) == 0 && status.st_nlink == 0
    }

    /// The absolute path of a relative folder.
    func absolute(_ relative: String) -> String { relative.isEmpty ? root : root + "/" + relative }

    /// Watches `folder` and every folder below it (hidden ones and the store's excepted); returns
    /// the folders now watched. A folder that cannot be watched throws, with a message that says
    /// what to do (the watch limit, most often).
    @discardableResult
    func watchTree(_ folder: String) throws(WatchError) -> [String] {
        var added: [String] = []
        var pending = [folder]
        while let next = pending.popLast() {
            if excluded.contains(next) { continue }
            let watch = FileName.withCString(absolute(next)) { glance_watch_add(descriptor, $0) }
            guard watch >= 0 else {
                let code = errno
                if code == ENOENT || code == ENOTDIR { continue }  // gone, or not a folder
                if code == ENOSPC {
                    throw WatchError(
                        folder: next.isEmpty ? "." : next,
                        message:
                            "cannot watch this folder: the inotify watch limit (fs.inotify.max_user_watches) is "
                            + "reached; raise it, e.g. sysctl fs.inotify.max_user_watches=524288")
                }
                throw WatchError(
                    folder: next.isEmpty ? "." : next, message: "cannot watch: \(String(cString: strerror(code)))")
            }
            folders[watch] = next
            added.append(next)
            pending += subfolders(of: next)
        }
        return added
    }

    /// Forgets the watches of `folder` and below (moved or deleted), renaming them to `newFolder`
    /// when given: a folder moved inside the container keeps its watches.
    func rename(folder: String, to newFolder: String?) {
        let prefix = folder + "/"
        for (watch, path) in folders where path == folder || path.hasPrefix(prefix) {
            if let newFolder {
                folders[watch] = newFolder + path.dropFirst(folder.count)
            } else {
                folders[watch] = nil
            }
        }
    }

    /// How many folders are watched.
    var count: Int { folders.count }

    /// The names of the folders directly in `folder`, relative to the container, hidden ones and
    /// the store's excepted.
    func subfolders(of folder: String) -> [String] {
        entries(of: folder).filter(\.isFolder).map(\.path)
    }

    /// The regular files and folders directly in `folder` (hidden ones excepted), by one
    /// `readdir` and one `lstat` each.
    func entries(of folder: String) -> [(path: String, isFolder: Bool)] {
        guard let stream = FileName.withCString(absolute(folder), { opendir($0) }) else { return [] }
        defer { closedir(stream) }
        var found: [(String, Bool)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            if name.first == 0x2E { continue }
            let decoded = FileName.decode(name)
            let path = folder.isEmpty ? decoded : folder + "/" + decoded
            if excluded.contains(path) { continue }
            var status = stat()
            guard FileName.withCString(absolute(path), { lstat($0, &status) }) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: found.append((path, true))
            case S_IFREG, S_IFLNK: found.append((path, false))
            default: continue
            }
        }
        return found
    }

    /// Every regular file (or link) below `folder`.
    func files(below folder: String) -> [String] {
        var files: [String] = []
        var pending = [folder]
        while let next = pending.popLast() {
            for entry in entries(of: next) {
                if entry.isFolder { pending.append(entry.path) } else { files.append(entry.path) }
            }
        }
        return files
    }

    /// Waits up to `milliseconds` for events and returns those that arrived (none on a timeout).
    func read(waiting milliseconds: Int32) -> [WatchEvent] {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, milliseconds) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
        guard count > 0 else { return [] }
        var events: [WatchEvent] = []
        var offset = 0
        var watch: Int32 = 0
        var mask: UInt32 = 0
        var cookie: UInt32 = 0
        var name: UnsafePointer<CChar>?
        buffer.withUnsafeBufferPointer { bytes in
            while glance_watch_next(bytes.baseAddress, count, &offset, &watch, &mask, &cookie, &name) == 0 {
                if let event = event(watch: watch, mask: mask, cookie: cookie, name: name) { events.append(event) }
            }
        }
        return events
    }

    /// The event for one inotify record, or nil when it is not one Glance acts on.
    private func event(watch: Int32, mask: UInt32, cookie: UInt32, name: UnsafePointer<CChar>?) -> WatchEvent? {
        if mask & UInt32(GLANCE_WATCH_OVERFLOW) != 0 { return WatchEvent(kind: .overflow, path: "", isFolder: false) }
        if mask & UInt32(GLANCE_WATCH_IGNORED) != 0 {
            // The kernel dropped the watch: its folder is gone. The root's is the container's.
            let folder = folders.removeValue(forKey: watch)
            return folder == "" ? WatchEvent(kind: .containerGone, path: "", isFolder: true) : nil
        }
        guard let folder = folders[watch], let name, name.pointee != 0 else { return nil }
        let decoded = FileName.decode(cString: name)
        if decoded.hasPrefix(".") && mask & UInt32(GLANCE_WATCH_MOVED_FROM) == 0 { return nil }
        let path = folder.isEmpty ? decoded : folder + "/" + decoded
        if excluded.contains(path) { return nil }
        let isFolder = mask & UInt32(GLANCE_WATCH_IS_FOLDER) != 0
        let kind: WatchEvent.Kind
        if mask & UInt32(GLANCE_WATCH_CLOSE_WRITE) != 0 {
            kind = .closedAfterWriting
        } else if mask & UInt32(GLANCE_WATCH_MOVED_FROM) != 0 {
            kind = .movedOut(cookie: cookie)
        } else if mask & UInt32(GLANCE_WATCH_MOVED_TO) != 0 {
            kind = .movedIn(cookie: cookie)
        } else if mask & UInt32(GLANCE_WATCH_CREATE) != 0 {
            kind = .created
        } else if mask & UInt32(GLANCE_WATCH_DELETE) != 0 {
            kind = .deleted
        } else {
            return nil
        }
        return WatchEvent(kind: kind, path: path, isFolder: isFolder)
    }
}

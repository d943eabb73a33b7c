import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// One folder of the cache, held open: entries are read and written relative to its
/// descriptor, so a rename of a folder above it changes nothing mid-run.
final class CacheFolder: Sendable {
    let path: String
    private let descriptor: Int32

    /// Opens the folder at `path`, creating it and any missing parent with mode 0700 (the
    /// standard's: thumbnails reveal what a user has). Folders that exist keep their mode.
    ///
    /// `base` (the cache folder the user names, `$XDG_CACHE_HOME`) and the folders above it are
    /// taken as they are, links included. The folders below it are the cache's own
    /// (`thumbnails/large`, `thumbnails/fail/…`): each is made and opened beneath the one above,
    /// never through a symbolic link, so that a link planted there cannot send entries elsewhere,
    /// and must be the user's and writable by no other user.
    init(creating path: String, below base: String) throws(DesktopCacheError) {
        var prefix = ""
        for component in base.split(separator: "/") {
            prefix += "/" + component
            let made = FileName.withCString(prefix) { mkdir($0, 0o700) }
            if made != 0 && errno != EEXIST {
                throw .folder(path: prefix, reason: String(cString: strerror(errno)))
            }
        }
        var current = FileName.withCString(base) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard current >= 0 else { throw .folder(path: base, reason: String(cString: strerror(errno))) }
        var walked = base
        for component in path.dropFirst(base.count).split(separator: "/") {
            walked += "/" + component
            let name = String(component)
            let made = FileName.withCString(name) { mkdirat(current, $0, 0o700) }
            if made != 0 && errno != EEXIST {
                let code = errno
                close(current)
                throw .folder(path: walked, reason: String(cString: strerror(code)))
            }
            let next = FileName.withCString(name) {
                openat(current, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            let code = errno
            var status = stat()
            let isLink =
                next < 0 && FileName.withCString(name) { fstatat(current, $0, &status, AT_SYMLINK_NOFOLLOW) } == 0
                && status.st_mode & S_IFMT == S_IFLNK
            close(current)
            guard next >= 0 else {
                let reason =
                    isLink
                    ? "it is a symbolic link: the cache's own folders are never followed"
                    : code == ENOTDIR ? "it is not a folder" : String(cString: strerror(code))
                throw .folder(path: walked, reason: reason)
            }
            // A folder of the cache another user owns, or any user may write, could be emptied
            // or filled with links by them: refused, with the reason (it was written silently).
            var own = stat()
            if fstat(next, &own) == 0, own.st_uid != geteuid() || own.st_mode & 0o002 != 0 {
                close(next)
                throw .folder(
                    path: walked,
                    reason: own.st_uid != geteuid()
                        ? "it belongs to another user (uid \(own.st_uid)); the cache's folders must be the user's own"
                        : "any user may write it; make it owner-only (chmod 700)")
            }
            current = next
        }
        self.path = path
        self.descriptor = current
    }

    /// Opens the folder at `path` if it exists (for reading entries), else nil.
    init?(existing path: String) {
        let descriptor = FileName.withCString(path) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The first `limit` bytes of the regular file `name` in this folder, or nil (missing, not a
    /// regular file, a symbolic link, unreadable). The default is enough for an entry's header
    /// and text chunks, which come before the image data; the image itself is never read.
    func read(_ name: String, limit: Int = 16 << 10) -> [UInt8]? {
        let file = name.withCString { openat(descriptor, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard file >= 0 else { return nil }
        let open = OpenFile(adopting: file)
        guard (try? OpenFile.checkedRegular(open)) != nil else { return nil }
        return try? open.read(count: limit, at: 0)
    }

    /// Writes `bytes` as `name`, mode 0600, atomically: to a new file of an unguessable name
    /// (created with `O_EXCL | O_NOFOLLOW`, so nothing planted is written through), then renamed
    /// over `name`. Not flushed to disk: a cache entry lost in a crash is made again.
    func write(_ bytes: [UInt8], as name: String) throws(DesktopCacheError) {
        do {
            try AtomicFileWriter.write(bytes, as: name, in: descriptor, mode: 0o600, durable: false)
        } catch {
            throw .write(path: "\(path)/\(name)", reason: error.description)
        }
    }

    /// Removes the entry `name` if it is there (a stale failure entry).
    func remove(_ name: String) {
        _ = name.withCString { unlinkat(descriptor, $0, 0) }
    }
}

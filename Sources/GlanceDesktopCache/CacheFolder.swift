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
    init(creating path: String) throws(DesktopCacheError) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            let made = FileName.withCString(prefix) { mkdir($0, 0o700) }
            if made != 0 && errno != EEXIST {
                throw .folder(path: prefix, reason: String(cString: strerror(errno)))
            }
        }
        let descriptor = FileName.withCString(path) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw .folder(path: path, reason: String(cString: strerror(errno))) }
        self.path = path
        self.descriptor = descriptor
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
        var temporary = ""
        var file: Int32 = -1
        for _ in 0..<16 {
            temporary = ".\(name).\(AtomicFileWriter.randomSuffix()).partial"
            file = temporary.withCString {
                openat(descriptor, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            }
            if file >= 0 || errno != EEXIST { break }
        }
        guard file >= 0 else { throw .write(path: "\(path)/\(name)", reason: String(cString: strerror(errno))) }
        var failure: Int32 = 0
        if !DescriptorWriter.writeAll(bytes, to: file) { failure = errno }
        close(file)
        if failure == 0 {
            let renamed = temporary.withCString { from in
                name.withCString { renameat(descriptor, from, descriptor, $0) }
            }
            if renamed != 0 { failure = errno }
        }
        if failure != 0 {
            _ = temporary.withCString { unlinkat(descriptor, $0, 0) }
            throw .write(path: "\(path)/\(name)", reason: String(cString: strerror(failure)))
        }
    }

    /// Removes the entry `name` if it is there (a stale failure entry).
    func remove(_ name: String) {
        _ = name.withCString { unlinkat(descriptor, $0, 0) }
    }
}

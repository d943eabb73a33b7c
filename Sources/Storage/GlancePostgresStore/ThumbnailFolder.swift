internal import CDigest
import Foundation
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// The folder where a PostgreSQL store keeps its thumbnails' image bytes as files, so that the
/// database holds only their names (`?thumbnails=DIR` on the address; see docs/scale-out.md).
///
/// Files are content-addressed: a file's name is the SHA-256 of its bytes, in two levels of
/// folders by its first two bytes (`3f/a0/3fa0…`), so identical thumbnails are stored once and a
/// file read back is checked against its own name. A file is written under a temporary name,
/// flushed and renamed (``AtomicFileWriter``), and its folder flushed, before the row that names it
/// commits: a row never names a file that a crash could leave half-written. Files are the
/// service user's alone (0600, folders 0700), as private as the documents they show.
///
/// The folder is held open by descriptor, and every name is opened beneath it without following
/// links. It carries a marker file (``markerName``) holding a random token that the database
/// records too, so that an empty mount point (the shared storage not mounted) or another
/// database's folder is recognised and refused rather than written to: a store opens a folder
/// only when its marker matches the database's token, and creates the marker only for a database
/// that has none yet, in a folder that is empty. Before each write the folder's path is checked
/// to still lead to the folder held open (an unmount under a running worker).
public final class ThumbnailFolder: Sendable {
    /// The folder's absolute path, as the address gives it.
    public let path: String
    /// The folder, held open.
    let descriptor: Int32
    /// The folder's device and inode when it was opened.
    private let device: UInt64
    private let inode: UInt64

    /// The marker file's name.
    public static let markerName = "glance-thumbnails"
    /// The largest thumbnail file read back (a row claiming more is refused, not trusted).
    static let largestFile = 64 << 20

    /// Opens the folder at `path`, creating it (0700) when it does not exist and `create`.
    init(path: String, create: Bool, location: String) throws(StoreError) {
        guard path.hasPrefix("/") else {
            throw StoreError(.invalid, message: "thumbnails=\(path) must be an absolute path", location: location)
        }
        self.path = path
        var opened = FileName.withCString(path) { open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        if opened < 0, errno == ENOENT, create {
            if FileName.withCString(path, { mkdir($0, 0o700) }) != 0, errno != EEXIST {
                throw Self.failure("cannot create the thumbnail folder \(path)", errno, location: location)
            }
            opened = FileName.withCString(path) { open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        }
        guard opened >= 0 else {
            let reason = errno == ELOOP || errno == ENOTDIR ? "it is not a folder" : Self.describe(errno)
            throw StoreError(.io, message: "cannot open the thumbnail folder \(path): \(reason)", location: location)
        }
        var status = stat()
        guard fstat(opened, &status) == 0 else {
            let code = errno
            Glibc.close(opened)
            throw Self.failure("cannot read the thumbnail folder \(path)", code, location: location)
        }
        descriptor = opened
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    deinit { Glibc.close(descriptor) }

    // MARK: - The marker

    /// The token in the folder's marker, or nil when it has none.
    func markerToken(location: String) throws(StoreError) -> String? {
        let file = openat(descriptor, Self.markerName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard file >= 0 else {
            if errno == ENOENT { return nil }
            throw Self.failure("cannot read \(path)/\(Self.markerName)", errno, location: location)
        }
        defer { Glibc.close(file) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = Glibc.read(file, &buffer, buffer.count)
        guard count > 0 else {
            throw StoreError(.io, message: "\(path)/\(Self.markerName) is empty or unreadable", location: location)
        }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("token ") }),
            case let token = String(line.dropFirst(6)), Self.isToken(token)
        else {
            throw StoreError(
                .io, message: "\(path)/\(Self.markerName) is not a Glance thumbnail folder's marker",
                location: location)
        }
        return token
    }

    /// Whether the folder holds nothing but hidden temporary files (a new folder, or an empty
    /// mount point).
    func isEmpty() -> Bool {
        Self.names(in: descriptor)?.isEmpty ?? false
    }

    /// Writes the marker with `token` (a new folder's).
    func writeMarker(token: String, location: String) throws(StoreError) {
        let text = "Glance thumbnail folder: files named by the SHA-256 of their bytes.\ntoken \(token)\n"
        do {
            try AtomicFileWriter.write(
                Array(text.utf8), as: Self.markerName, in: descriptor, mode: 0o600, durable: true)
        } catch {
            throw StoreError(
                .io, message: "cannot write \(path)/\(Self.markerName): \(error.description)", location: location)
        }
    }

    /// A new random token: 32 hex digits.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in hex(UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Whether `text` is a token as ``newToken()`` makes them.
    static func isToken(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { isHexDigit($0) }
    }

    // MARK: - Files

    /// Stores `bytes` (unless a file of the same bytes is there already: then its time is set to
    /// now, so that a sweep in progress keeps it) and returns their SHA-256, the file's name.
    /// When this returns, the file and its name are on disk.
    ///
    /// - Throws: ``StoreError`` (`io`) when the folder's path no longer leads to the folder (the
    ///   storage was unmounted) or a write fails (a read-only or full file system).
    func store(_ bytes: [UInt8], location: String) throws(StoreError) -> [UInt8] {
        try checkUsable(location: location)
        let digest = Self.sha256(bytes)
        let name = Self.fileName(digest)
        let shard = try shardFolder(digest, creating: true, location: location)
        defer { Glibc.close(shard) }
        var status = stat()
        if fstatat(shard, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG,
            Int(status.st_size) == bytes.count
        {
            if utimensat(shard, name, nil, AT_SYMLINK_NOFOLLOW) == 0 { return digest }
        }
        do {
            try AtomicFileWriter.write(bytes, as: name, in: shard, mode: 0o600, durable: true)
        } catch {
            throw StoreError(
                .io, message: "cannot write a thumbnail file in \(path): \(error.description)", location: location)
        }
        return digest
    }

    /// What reading a thumbnail's file found.
    enum Reading {
        /// The bytes, which hash to the file's name.
        case bytes([UInt8])
        /// No such file.
        case missing
        /// A file that is not what its name says (of another length, other bytes, not a file).
        case damaged(String)
    }

    /// Reads the file named by `digest`, which its row says holds `byteCount` bytes, and checks
    /// the bytes against the name. A row is not trusted: a digest that is not 32 bytes or a count
    /// beyond ``largestFile`` is damage, not a path or an allocation.
    func read(_ digest: [UInt8], byteCount: Int) -> Reading {
        guard digest.count == 32 else { return .damaged("its row names no SHA-256 (\(digest.count) bytes)") }
        guard (0...Self.largestFile).contains(byteCount) else {
            return .damaged("its row says it holds \(byteCount) bytes")
        }
        let shard: Int32
        do { shard = try shardFolder(digest, creating: false, location: path) } catch { return .missing }
        defer { Glibc.close(shard) }
        let file = openat(shard, Self.fileName(digest), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard file >= 0 else { return errno == ENOENT ? .missing : .damaged(Self.describe(errno)) }
        defer { Glibc.close(file) }
        var status = stat()
        guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return .damaged("not a file") }
        guard Int(status.st_size) == byteCount else {
            return .damaged("it holds \(status.st_size) bytes, its row says \(byteCount)")
        }
        var bytes = [UInt8](repeating: 0, count: byteCount)
        var done = 0
        while done < byteCount {
            let count = bytes.withUnsafeMutableBytes {
                pread(file, $0.baseAddress! + done, byteCount - done, off_t(done))
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return .damaged(count == 0 ? "it is shorter than it was" : Self.describe(errno)) }
            done += count
        }
        guard Self.sha256(bytes) == digest else { return .damaged("its bytes do not match its name") }
        return .bytes(bytes)
    }

    /// Deletes the file named by `digest` (a damaged one), if it is there.
    func remove(_ digest: [UInt8]) {
        guard digest.count == 32,
            let shard = try? shardFolder(digest, creating: false, location: path)
        else { return }
        defer { Glibc.close(shard) }
        _ = unlinkat(shard, Self.fileName(digest), 0)
    }

    /// The path of the file named by `digest`, relative to the folder (for messages).
    static func relativePath(_ digest: [UInt8]) -> String {
        guard digest.count == 32 else { return "(no name)" }
        return "\(hex(digest[0]))/\(hex(digest[1]))/\(fileName(digest))"
    }

    // MARK: - Sweeping

    /// One file found by ``files(inShard:)``.
    struct FoundFile {
        /// Its name as a digest, or nil for a temporary file left by a write that never finished.
        var digest: [UInt8]?
        /// Its name in its folder.
        var name: String
        /// Its bytes.
        var size: Int64
        /// When it was last written or reused.
        var modified: Date
    }

    /// The files of the first-level folder `first` (its second-level folders' files).
    func files(inShard first: UInt8) -> [(folder: String, files: [FoundFile])] {
        var result: [(folder: String, files: [FoundFile])] = []
        let top = openat(descriptor, Self.hex(first), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard top >= 0 else { return [] }
        defer { Glibc.close(top) }
        for second in Self.names(in: top) ?? [] {
            guard second.utf8.count == 2, second.utf8.allSatisfy({ Self.isHexDigit($0) }) else { continue }
            let folder = openat(top, second, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folder >= 0 else { continue }
            defer { Glibc.close(folder) }
            var found: [FoundFile] = []
            for name in Self.names(in: folder) ?? [] {
                var status = stat()
                guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG
                else { continue }
                let modified = Date(
                    timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
                let digest = Self.digest(named: name)
                // Only the store's own names: its files, and its writer's temporary files.
                guard digest != nil || (name.hasPrefix(".") && name.hasSuffix(".partial")) else { continue }
                found.append(FoundFile(digest: digest, name: name, size: Int64(status.st_size), modified: modified))
            }
            result.append(("\(Self.hex(first))/\(second)", found))
        }
        return result
    }

    /// Deletes `file` from `folder` (a path ``files(inShard:)`` gave) if it was not written or
    /// reused since `cutoff`: its time is read again just before, so a save that reuses it
    /// meanwhile keeps it (but for the moment between that read and the deletion; a file lost
    /// there is a miss, drawn again, never a wrong picture). Returns whether it was deleted.
    func removeIfUnused(_ file: FoundFile, in folder: String, since cutoff: Date) -> Bool {
        let opened = openat(descriptor, folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard opened >= 0 else { return false }
        defer { Glibc.close(opened) }
        var status = stat()
        guard fstatat(opened, file.name, &status, AT_SYMLINK_NOFOLLOW) == 0,
            Double(status.st_mtim.tv_sec) < cutoff.timeIntervalSince1970
        else { return false }
        return unlinkat(opened, file.name, 0) == 0
    }

    // MARK: - Helpers

    /// Fails, saying why, when thumbnails cannot be written to the folder: its path leads
    /// elsewhere than the folder held open (see ``checkStillMounted(location:)``), its file system
    /// is mounted read-only, or the process may not write in it. A worker asks after a save
    /// failed, to stop taking jobs rather than fail each one.
    public func checkUsable(location: String) throws(StoreError) {
        try checkStillMounted(location: location)
        var system = statvfs()
        if fstatvfs(descriptor, &system) == 0, system.f_flag & UInt(ST_RDONLY) != 0 {
            throw StoreError(
                .io, message: "the thumbnail folder \(path) is on a read-only file system; nothing can be saved",
                location: location)
        }
        if faccessat(descriptor, ".", W_OK, AT_EACCESS) != 0 {
            throw StoreError(
                .io, message: "the thumbnail folder \(path) is not writable: \(Self.describe(errno))",
                location: location)
        }
    }

    /// Fails when the folder's path leads elsewhere than the folder held open: the storage was
    /// unmounted (leaving the empty mount point) or the folder replaced.
    func checkStillMounted(location: String) throws(StoreError) {
        var status = stat()
        let found = FileName.withCString(path) { lstat($0, &status) } == 0
        guard found, UInt64(status.st_dev) == device, UInt64(status.st_ino) == inode else {
            throw StoreError(
                .io,
                message: "the thumbnail folder \(path) is no longer the one opened (was its storage unmounted?); "
                    + "nothing was written",
                location: location)
        }
    }

    /// Opens the second-level folder of `digest`, creating both levels (0700) when `creating`.
    private func shardFolder(_ digest: [UInt8], creating: Bool, location: String) throws(StoreError) -> Int32 {
        var folder = descriptor
        for level in 0..<2 {
            let name = Self.hex(digest[level])
            var next = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT, creating {
                if mkdirat(folder, name, 0o700) == 0 {
                    // The new folder's name is durable only once its parent is.
                    _ = fsync(folder)
                } else if errno != EEXIST {
                    let code = errno
                    if folder != descriptor { Glibc.close(folder) }
                    throw Self.failure("cannot create a folder in \(path)", code, location: location)
                }
                next = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            let code = errno
            if folder != descriptor { Glibc.close(folder) }
            guard next >= 0 else { throw Self.failure("cannot open a folder in \(path)", code, location: location) }
            folder = next
        }
        return folder
    }

    /// The names in the open folder `folder`, but `.` and `..`, from its start; nil when it
    /// cannot be listed.
    private static func names(in folder: Int32) -> [String]? {
        let copy = dup(folder)
        guard copy >= 0, let listing = fdopendir(copy) else { return nil }
        defer { closedir(listing) }
        // The copy shares the folder's position: list from the start.
        rewinddir(listing)
        var names: [String] = []
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The SHA-256 of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = glance_sha256_bytes(bytes, bytes.count, glance_sha256_has_cpu_extensions(), &digest)
        return digest
    }

    /// A file's name: its digest in 64 lowercase hex digits.
    static func fileName(_ digest: [UInt8]) -> String { digest.map(hex).joined() }

    /// The digest a file's name spells, or nil for any other name.
    static func digest(named name: String) -> [UInt8]? {
        let digits = Array(name.utf8)
        guard digits.count == 64, digits.allSatisfy({ isHexDigit($0) && !(0x41...0x46).contains($0) }) else {
            return nil
        }
        return (0..<32).map { UInt8(hexValue(digits[2 * $0]) << 4 | hexValue(digits[2 * $0 + 1])) }
    }

    private static func hexValue(_ digit: UInt8) -> UInt8 {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        default: digit - 0x41 + 10
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    private static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

    private static func failure(_ what: String, _ code: Int32, location: String) -> StoreError {
        StoreError(.io, message: "\(what): \(describe(code))", location: location)
    }
}

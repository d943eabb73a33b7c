import Foundation
import GlanceCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store's folder on disk: made when missing and marked as a cache with a `CACHEDIR.TAG`, so
/// that backup tools (restic, borg, tar --exclude-caches, ...) skip thumbnails they can rebuild,
/// and with a `.gitignore` of `*`, so that `git add .` in a container kept in git never commits
/// the live database (a later `git checkout` would write old bytes over it while it is open).
///
/// A store holds pictures of documents, so it is as private as they are: the folder is made
/// owner-only (0700) and the database owner-only (0600; SQLite gives its `-wal` and `-shm` the
/// database's mode). A store that grants anything to other users (the 0755/0644 of Glance
/// before this rule) is narrowed to owner-only when it is next opened for writing; one shared
/// with a group on purpose (`chgrp`, `chmod 2770` on the folder, `660` on its files) is left as
/// it is.
///
/// Nothing is written through a name another user could have planted: the folder is opened
/// with `O_NOFOLLOW`, must belong to the user writing (or be made here) and be writable by no
/// one else; the database and its `-wal` and `-shm` must not be links, nor belong to another
/// user. (In a folder only its owner can write, nobody else can put a link there afterwards.)
///
/// See <https://bford.info/cachedir/> for the tag's format.
public enum CacheDirectory {
    /// The tag's file name and content (``StoreTag``, which the walk reads too).
    static let tagFileName = StoreTag.fileName
    static let tagContent = StoreTag.content

    /// The ignore file's name, and its content: everything in the folder, itself included.
    static let ignoreFileName = ".gitignore"
    static let ignoreContent = "# Glance's thumbnail store: a cache, never committed.\n*\n"

    /// The mode of a folder this makes, and of its database.
    static let folderMode: mode_t = 0o700
    static let databaseMode: mode_t = 0o600

    /// Makes `path` (missing parents with mode 0755, the folder itself 0700), checks that it is
    /// this user's and safe to write (see the type), writes its tag if missing, and makes the
    /// database file `databaseName` owner-only when it does not exist yet. The `.gitignore` goes
    /// only into a folder made here or one that already holds a Glance store's database: a
    /// `--store` that names an existing folder of the user's (a repository's root) must not
    /// vanish from their `git status`.
    ///
    /// Returns the folder, open: what was checked is what the caller then opens files in.
    @discardableResult
    public static func prepare(at path: String, databaseName: String? = nil) throws(StoreError) -> StoreFolder {
        let made = try makeDirectory(path, location: path)
        let opened = StoreFolder(descriptor: try openOwnFolder(path))
        let folder = opened.descriptor
        let hadDatabase = exists(databaseName ?? SidecarStore.databaseFileName, in: folder)
        try writeIfMissing(tagFileName, content: tagContent, in: folder, location: path)
        if made || hadDatabase {
            try writeIfMissing(ignoreFileName, content: ignoreContent, in: folder, location: path)
        }
        guard let databaseName else { return opened }
        for name in [databaseName, databaseName + "-wal", databaseName + "-shm"] {
            try checkOwnFile(name, in: folder, location: path)
        }
        if !hadDatabase {
            let created = FileName.withCString(databaseName) {
                openat(folder, $0, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, databaseMode)
            }
            if created >= 0 {
                _ = fchmod(created, databaseMode)
                close(created)
            } else if errno != EEXIST {
                throw StoreError(.io, message: "cannot create the database: \(describe(errno))", location: path)
            }
        }
        return opened
    }

    /// Opens the store's folder without following a link, and refuses one that another user
    /// owns or may write; narrows the mode of a folder that grants other users anything.
    private static func openOwnFolder(_ path: String) throws(StoreError) -> Int32 {
        let folder = FileName.withCString(path) { open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard folder >= 0 else {
            let reason =
                errno == ELOOP || errno == ENOTDIR
                ? "the store's folder is a symbolic link (or not a folder); name the folder it leads to"
                : describe(errno)
            throw StoreError(.io, message: reason, location: path)
        }
        var status = stat()
        guard fstat(folder, &status) == 0 else {
            let reason = describe(errno)
            close(folder)
            throw StoreError(.io, message: reason, location: path)
        }
        if status.st_uid != geteuid() {
            close(folder)
            throw StoreError(
                .io,
                message: "the store's folder belongs to another user (uid \(status.st_uid)); Glance writes only a "
                    + "store of its own user (remove the folder, or run as its owner)",
                location: path)
        }
        if status.st_mode & 0o002 != 0 {
            close(folder)
            throw StoreError(
                .io, message: "the store's folder may be written by any user; make it owner-only (chmod 700)",
                location: path)
        }
        if status.st_mode & 0o007 != 0 {
            // The owner's bits kept as they are (a read-only store stays read-only).
            _ = fchmod(folder, status.st_mode & 0o700)
            narrowFiles(in: folder)
        }
        return folder
    }

    /// The database files of a store made before stores were owner-only, narrowed to the owner's
    /// bits (0644 becomes 0600).
    private static func narrowFiles(in folder: Int32) {
        let name = SidecarStore.databaseFileName
        for file in [name, name + "-wal", name + "-shm"] {
            var status = stat()
            guard FileName.withCString(file, { fstatat(folder, $0, &status, AT_SYMLINK_NOFOLLOW) }) == 0,
                status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid()
            else { continue }
            _ = FileName.withCString(file) { fchmodat(folder, $0, status.st_mode & 0o700, 0) }
        }
    }

    /// Refuses a file of the store that is a link, not a regular file, or another user's.
    private static func checkOwnFile(_ name: String, in folder: Int32, location: String) throws(StoreError) {
        var status = stat()
        guard FileName.withCString(name, { fstatat(folder, $0, &status, AT_SYMLINK_NOFOLLOW) }) == 0 else { return }
        if status.st_mode & S_IFMT == S_IFLNK {
            throw StoreError(
                .io, message: "\(name) is a symbolic link; a store's files must be its own (remove the link)",
                location: location)
        }
        if status.st_mode & S_IFMT != S_IFREG {
            throw StoreError(.io, message: "\(name) is not a regular file", location: location)
        }
        if status.st_uid != geteuid() {
            throw StoreError(
                .io, message: "\(name) belongs to another user (uid \(status.st_uid)); remove it or run as its owner",
                location: location)
        }
    }

    /// Whether `name` exists in `folder` (a link counts: it is not followed).
    private static func exists(_ name: String, in folder: Int32) -> Bool {
        var status = stat()
        return FileName.withCString(name) { fstatat(folder, $0, &status, AT_SYMLINK_NOFOLLOW) } == 0
    }

    /// `mkdir -p`, with the reason of the first failure in words; true when it made `path`.
    @discardableResult
    private static func makeDirectory(_ path: String, location: String) throws(StoreError) -> Bool {
        if mkdir(path, folderMode) == 0 {
            return true
        }
        let code = errno
        switch code {
        case EEXIST:
            // Something is there already: fine if it is a folder (or a link to one).
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw StoreError(
                    .io, message: "\(path) exists and is not a folder; choose another --store", location: location)
            }
            return false
        case ENOENT:
            // A parent is missing: make it, then try again. Another process may make the same
            // folder meanwhile, which the EEXIST case above accepts.
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else {
                throw StoreError(.io, message: "cannot create the folder: \(describe(code))", location: location)
            }
            try makeParent(parent, location: location)
            if mkdir(path, folderMode) == 0 { return true }
            if errno != EEXIST {
                throw StoreError(.io, message: "cannot create the folder: \(describe(errno))", location: location)
            }
            return false
        default:
            throw StoreError(.io, message: "cannot create the folder: \(describe(code))", location: location)
        }
    }

    /// `mkdir -p` for the folders above the store (mode 0755: they are the user's, not the store).
    private static func makeParent(_ path: String, location: String) throws(StoreError) {
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
        guard errno == ENOENT else {
            throw StoreError(.io, message: "cannot create the folder: \(describe(errno))", location: location)
        }
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty, parent != path else {
            throw StoreError(.io, message: "cannot create the folder: \(describe(ENOENT))", location: location)
        }
        try makeParent(parent, location: location)
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw StoreError(.io, message: "cannot create the folder: \(describe(errno))", location: location)
        }
    }

    /// Writes the file `name` in `folder` unless something of that name exists (a link
    /// included: `O_EXCL` never follows one). `O_EXCL` also makes concurrent openers agree on
    /// one writer; the others see the file and leave it alone.
    private static func writeIfMissing(_ name: String, content: String, in folder: Int32, location: String)
        throws(StoreError)
    {
        let fd = FileName.withCString(name) {
            openat(folder, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        }
        if fd < 0 {
            let code = errno
            if code == EEXIST {
                return
            }
            throw StoreError(.io, message: "cannot write \(name): \(describe(code))", location: location)
        }
        defer { close(fd) }
        guard DescriptorWriter.writeAll(Array(content.utf8), to: fd) else {
            let code = errno
            // A half-written file would fool a later open into keeping it; remove it.
            _ = FileName.withCString(name) { unlinkat(folder, $0, 0) }
            throw StoreError(.io, message: "cannot write \(name): \(describe(code))", location: location)
        }
    }

    /// `strerror` as a Swift string ("Permission denied").
    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

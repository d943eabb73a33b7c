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
/// See <https://bford.info/cachedir/> for the tag's format.
public enum CacheDirectory {
    /// The tag's file name, fixed by the specification.
    static let tagFileName = "CACHEDIR.TAG"

    /// The line the specification requires at the very start of the tag.
    static let signature = "Signature: 8a477f597d28d172789f06886806bc55"

    /// The tag's whole content: the signature line, then a comment saying who made it.
    static let tagContent = """
        \(signature)
        # This file marks a cache directory created by Glance (thumbnails). See https://bford.info/cachedir/

        """

    /// The ignore file's name, and its content: everything in the folder, itself included.
    static let ignoreFileName = ".gitignore"
    static let ignoreContent = "# Glance's thumbnail store: a cache, never committed.\n*\n"

    /// Makes `path` (and missing parents, mode 0755) and writes its tag if missing. The
    /// `.gitignore` goes only into a folder made here or one that already holds a Glance store's
    /// database: a `--store` that names an existing folder of the user's (a repository's root)
    /// must not vanish from their `git status`.
    public static func prepare(at path: String) throws(StoreError) {
        let made = try makeDirectory(path, location: path)
        try writeIfMissing(tagFileName, content: tagContent, in: path)
        if made || access(path + "/" + SidecarStore.databaseFileName, F_OK) == 0 {
            try writeIfMissing(ignoreFileName, content: ignoreContent, in: path)
        }
    }

    /// `mkdir -p`, with the reason of the first failure in words; true when it made `path`.
    @discardableResult
    private static func makeDirectory(_ path: String, location: String) throws(StoreError) -> Bool {
        if mkdir(path, 0o755) == 0 {
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
            try makeDirectory(parent, location: location)
            if mkdir(path, 0o755) == 0 { return true }
            if errno != EEXIST {
                throw StoreError(.io, message: "cannot create the folder: \(describe(errno))", location: location)
            }
            return false
        default:
            throw StoreError(.io, message: "cannot create the folder: \(describe(code))", location: location)
        }
    }

    /// Writes the file `name` unless something of that name exists (a link included: `O_EXCL`
    /// never follows one). `O_EXCL` also makes concurrent openers agree on one writer; the
    /// others see the file and leave it alone.
    private static func writeIfMissing(_ name: String, content: String, in directory: String) throws(StoreError) {
        let filePath = directory + "/" + name
        let fd = open(filePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 {
            let code = errno
            if code == EEXIST {
                return
            }
            throw StoreError(.io, message: "cannot write \(name): \(describe(code))", location: directory)
        }
        defer { close(fd) }
        guard DescriptorWriter.writeAll(Array(content.utf8), to: fd) else {
            let code = errno
            // A half-written file would fool a later open into keeping it; remove it.
            unlink(filePath)
            throw StoreError(.io, message: "cannot write \(name): \(describe(code))", location: directory)
        }
    }

    /// `strerror` as a Swift string ("Permission denied").
    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

import Foundation
import GlanceCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store's folder on disk: made when missing and marked as a cache with a `CACHEDIR.TAG`, so
/// that backup tools (restic, borg, tar --exclude-caches, ...) skip thumbnails they can rebuild.
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

    /// Makes `path` (and missing parents, mode 0755) and writes its tag if missing.
    public static func prepare(at path: String) throws(StoreError) {
        try makeDirectory(path, location: path)
        try writeTagIfMissing(in: path)
    }

    /// `mkdir -p`, with the reason of the first failure in words.
    private static func makeDirectory(_ path: String, location: String) throws(StoreError) {
        if mkdir(path, 0o755) == 0 {
            return
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
        case ENOENT:
            // A parent is missing: make it, then try again. Another process may make the same
            // folder meanwhile, which the EEXIST case above accepts.
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else {
                throw StoreError(.io, message: "cannot create the folder: \(describe(code))", location: location)
            }
            try makeDirectory(parent, location: location)
            if mkdir(path, 0o755) != 0, errno != EEXIST {
                throw StoreError(.io, message: "cannot create the folder: \(describe(errno))", location: location)
            }
        default:
            throw StoreError(.io, message: "cannot create the folder: \(describe(code))", location: location)
        }
    }

    /// Writes `CACHEDIR.TAG` unless it exists. `O_EXCL` makes concurrent openers agree on one
    /// writer; the others see the file and leave it alone.
    private static func writeTagIfMissing(in directory: String) throws(StoreError) {
        let tagPath = directory + "/" + tagFileName
        let fd = open(tagPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 {
            let code = errno
            if code == EEXIST {
                return
            }
            throw StoreError(.io, message: "cannot write \(tagFileName): \(describe(code))", location: directory)
        }
        defer { close(fd) }
        guard DescriptorWriter.writeAll(Array(tagContent.utf8), to: fd) else {
            let code = errno
            // A half-written tag would fool a later open into keeping it; remove it.
            unlink(tagPath)
            throw StoreError(.io, message: "cannot write \(tagFileName): \(describe(code))", location: directory)
        }
    }

    /// `strerror` as a Swift string ("Permission denied").
    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

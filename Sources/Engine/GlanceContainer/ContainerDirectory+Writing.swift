internal import CFileAccess
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Writing documents into a container, for a document store that saves through Glance
/// (`DocumentLibrary`): every name is resolved beneath the container, and no link is followed.
extension ContainerDirectory {
    /// Writes `bytes` to the document at `relative` atomically: a hidden temporary file in the
    /// same folder (created with `O_EXCL | O_NOFOLLOW`), flushed, renamed over the document, and
    /// the folder flushed, so that a reader sees the old document or the whole new one, and a
    /// crash leaves one of them. Missing folders are created (mode 0755).
    public func writeDocument(_ bytes: [UInt8], to relative: String) throws(FileAccessError) {
        let (folder, name) = try openParent(of: relative, creating: true)
        defer { close(folder) }
        do {
            try AtomicFileWriter.write(bytes, as: name, in: folder, mode: 0o644, durable: true)
        } catch {
            throw .system(code: error.code)
        }
    }

    /// Deletes the document at `relative` (never a folder, never through a link).
    public func removeDocument(_ relative: String) throws(FileAccessError) {
        let (folder, name) = try openParent(of: relative, creating: false)
        defer { close(folder) }
        guard FileName.withCString(name, { unlinkat(folder, $0, 0) }) == 0 else { throw FileAccessError(errno: errno) }
        _ = fsync(folder)
    }

    /// Renames the document at `from` to `to`, both beneath the container; `to`'s folders are
    /// created when missing. An existing document at `to` is replaced.
    public func moveDocument(from: String, to: String) throws(FileAccessError) {
        let (source, sourceName) = try openParent(of: from, creating: false)
        defer { close(source) }
        let (target, targetName) = try openParent(of: to, creating: true)
        defer { close(target) }
        let renamed = FileName.withCString(sourceName) { old in
            FileName.withCString(targetName) { new in renameat(source, old, target, new) }
        }
        guard renamed == 0 else { throw FileAccessError(errno: errno) }
        _ = fsync(source)
        _ = fsync(target)
    }

    /// The folder holding `relative` (opened beneath the container) and the last name.
    private func openParent(of relative: String, creating: Bool) throws(FileAccessError) -> (Int32, String) {
        var parts = FileName.components(of: relative)
        guard let name = parts.popLast(), !name.isEmpty, name != ".", name != ".." else {
            throw .system(code: EINVAL)
        }
        var folder = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard folder >= 0 else { throw FileAccessError(errno: errno) }
        for part in parts {
            guard part != ".", part != ".." else {
                close(folder)
                throw .outside
            }
            if creating {
                _ = FileName.withCString(part) { mkdirat(folder, $0, 0o755) }
            }
            let next = FileName.withCString(part) {
                glance_open_beneath(folder, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
            }
            let code = errno
            close(folder)
            guard next >= 0 else { throw FileAccessError(errno: code) }
            folder = next
        }
        return (folder, name)
    }
}

internal import CStoreFolder

#if canImport(Glibc)
    import Glibc
#endif

/// The store's folder, held open by descriptor after ``CacheDirectory`` checked it: SQLite opens
/// the database, its `-wal` and its `-shm` through it (`/proc/self/fd/N/NAME` under the
/// `glance-folder` VFS, `CStoreFolder`), so a folder swapped for a link or another folder after
/// the checks is not the one written. Closes the descriptor when the store lets go of it.
public final class StoreFolder: Sendable {
    /// The open folder.
    let descriptor: Int32

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The URI SQLite opens `name` in this folder by (with `immutable`, read without locks or the
    /// WAL), or nil where the process cannot name its descriptors (no `/proc`) or SQLite has no
    /// unix VFS to build on: the caller then opens by path, as SQLite would anyway.
    func sqliteURI(of name: String, immutable: Bool = false) -> String? {
        guard let vfs = glance_store_folder_vfs() else { return nil }
        let folder = "/proc/self/fd/\(descriptor)"
        var status = stat()
        guard stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return nil }
        // The store's own names only: letters, digits, dots and dashes need no escaping in a URI.
        guard name.utf8.allSatisfy({ $0 < 0x80 && !"?#%&=".utf8.contains($0) }) else { return nil }
        return "file:\(folder)/\(name)?vfs=\(String(cString: vfs))\(immutable ? "&immutable=1" : "")"
    }
}

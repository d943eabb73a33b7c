internal import CGraphics

#if canImport(Glibc)
    import Glibc
#endif

/// The content digest of a file: SHA-256 (glib's), as lower-case hex.
///
/// It identifies a document by content so that its thumbnail can follow it when it is moved by
/// copy and delete (a new inode). Read in 256 KiB chunks: memory stays flat for any size.
public enum ContentDigest {
    /// SHA-256 of the file at `path`, or nil if it cannot be read.
    public static func sha256(ofFileAt path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let checksum = g_checksum_new(G_CHECKSUM_SHA256) else { return nil }
        defer { g_checksum_free(checksum) }
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = read(descriptor, chunk, 256 * 1024)
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            g_checksum_update(checksum, chunk.assumingMemoryBound(to: UInt8.self), count)
        }
        guard let hex = g_checksum_get_string(checksum) else { return nil }
        return String(cString: hex)
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// The one place that writes a whole buffer to a descriptor (files, sockets, standard output and
/// error), retrying short writes and interrupted ones.
public enum DescriptorWriter {
    /// Writes all of `bytes` to `descriptor`; false on a write error (errno set), such as the
    /// other end of a socket being gone.
    @discardableResult
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { writeAll($0, to: descriptor) }
    }

    /// Writes all of `raw` to `descriptor`, as ``writeAll(_:to:)-([UInt8],_)`` does, without
    /// copying it into an array first.
    @discardableResult
    public static func writeAll(_ raw: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < raw.count {
            let count = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += count
        }
        return true
    }
}

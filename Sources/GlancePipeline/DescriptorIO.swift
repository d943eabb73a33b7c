#if canImport(Glibc)
    import Glibc
#endif

/// Plain reads and writes on file descriptors (pipes to and from workers).
enum DescriptorIO {
    /// Writes all of `bytes`, retrying short writes; false if the other end is gone.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { raw in
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
}

/// Reads newline-terminated lines from a descriptor, blocking.
final class LineReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// The next line without its newline, or nil at the end of input.
    func nextLine() -> [UInt8]? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                if start > 65536 {
                    buffer.removeFirst(start)
                    start = 0
                }
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}

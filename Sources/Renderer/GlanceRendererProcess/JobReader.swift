internal import CFileAccess
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads jobs from the worker's end of its socket: newline-terminated lines, each of which came
/// with one descriptor (`SCM_RIGHTS`), blocking.
///
/// When no job has come for `idleMilliseconds`, it calls `whenIdle` once before it waits on: a
/// worker gives back the memory it keeps between documents while there is nothing to do.
final class JobReader {
    private let descriptor: Int32
    private let idleMilliseconds: Int32
    private let whenIdle: () -> Void
    private var buffer: [UInt8] = []
    private var start = 0
    /// Descriptors received and not yet given out, oldest first; one per line.
    private var files: [OpenFile] = []

    init(descriptor: Int32, idleMilliseconds: Int32 = 1000, whenIdle: @escaping () -> Void = {}) {
        self.descriptor = descriptor
        self.idleMilliseconds = idleMilliseconds
        self.whenIdle = whenIdle
    }

    /// The next line without its newline and the descriptor that came with it, or nil at the
    /// end of input.
    func nextJob() -> (line: [UInt8], file: OpenFile?)? {
        var idle = false
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                if start > 65536 {
                    buffer.removeFirst(start)
                    start = 0
                }
                return (line, files.isEmpty ? nil : files.removeFirst())
            }
            if !idle && !waitForInput() {
                idle = true
                whenIdle()
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            var received: Int32 = -1
            let count = chunk.withUnsafeMutableBytes {
                glance_receive_with_descriptor(descriptor, $0.baseAddress, $0.count, &received)
            }
            if received >= 0 { files.append(OpenFile(adopting: received)) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<Int(count)])
        }
    }

    /// Whether input came within `idleMilliseconds` (or the wait could not be made: then the
    /// read that follows finds out).
    private func waitForInput() -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&request, 1, idleMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            return ready != 0
        }
    }
}

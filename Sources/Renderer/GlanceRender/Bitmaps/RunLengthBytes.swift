import GlanceCore

/// The bytes of a picture's rows read on from `start` of a whole file, stored as they are or as
/// runs of one value (PCX's and Sun raster's byte runs). A run left over at a row's end goes on
/// in the next, as files written against their format's rule have them.
struct RunLengthBytes {
    /// How a format writes one run: given the file and where the run starts, its length (0: a
    /// run of nothing, passed over) and value, and where the next starts; nil when it is cut off.
    typealias RunReader = (_ data: [UInt8], _ at: Int) -> (count: Int, value: UInt8, next: Int)?

    private let data: [UInt8]
    private let format: String
    private let readRun: RunReader?
    private var at: Int
    private var run = (count: 0, value: UInt8(0))

    /// The bytes from `start` of `data`: stored, or as `readRun` reads runs; `format` names the
    /// format in the error of a cut file.
    init(_ data: [UInt8], from start: Int, format: String, runs readRun: RunReader?) {
        (self.data, self.format, self.readRun, at) = (data, format, readRun, start)
    }

    /// Fills `line` with the next `line.count` bytes.
    mutating func fill(_ line: inout [UInt8]) throws(ThumbnailError) {
        guard let readRun else {
            guard at + line.count <= data.count else { throw .truncated(format: format) }
            line.withUnsafeMutableBufferPointer { target in
                _ = target.initialize(from: data[at..<(at + target.count)])
            }
            at += line.count
            return
        }
        for index in line.indices {
            while run.count == 0 {
                guard at < data.count, let read = readRun(data, at) else { throw .truncated(format: format) }
                (run, at) = ((read.count, read.value), read.next)
            }
            line[index] = run.value
            run.count -= 1
        }
    }
}

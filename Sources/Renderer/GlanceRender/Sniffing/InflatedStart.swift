internal import CCompression

/// The start of a gzip or Zstandard stream, inflated: the head of a compressed file read without
/// inflating the rest (a Blender file's header and thumbnail, a compressed PostScript's header or
/// its whole program), through zlib and libzstd.
enum InflatedStart {
    /// The first `limit` bytes `data` inflates to: fewer when the stream (or `data`) ends first,
    /// none when `data` is neither kind of stream or is damaged before a byte came.
    static func of(_ data: ArraySlice<UInt8>, limit: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: limit)
        let written = data.withUnsafeBytes { input in
            output.withUnsafeMutableBytes {
                glance_decompress_start(input.baseAddress, input.count, $0.baseAddress, limit)
            }
        }
        output.removeSubrange(written...)
        return output
    }
}

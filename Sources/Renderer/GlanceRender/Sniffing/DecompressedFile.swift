internal import CCompression
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// A document kept compressed as a whole (GIMP's `.xcf.gz`, `.xcf.bz2`, `.xcf.xz`), decompressed
/// into a memory file that its decoder then reads as it reads the plain document: a chunk at a
/// time through zlib, libbz2, liblzma or libzstd, never held twice, and refused past a limit
/// however small the compressed file is.
enum DecompressedFile {
    /// Whether `prefix`, a file's first bytes, starts a gzip, bzip2, xz or Zstandard stream.
    static func isCompressed(_ prefix: [UInt8]) -> Bool {
        prefix.withUnsafeBytes { glance_compression_of($0.baseAddress, $0.count) } != GLANCE_COMPRESSION_NONE
    }

    /// `file` itself when it is not compressed, else what it decompresses to, at most `limit`
    /// bytes. `format` names the document in errors.
    static func of(_ file: OpenFile, limit: Int, format: String) throws(ThumbnailError) -> OpenFile {
        guard isCompressed(try FileReader.read(file, count: 8, at: 0)) else { return file }
        let named = "compressed " + format
        var (descriptor, length): (Int32, UInt64) = (-1, 0)
        switch glance_decompress_file(file.descriptor, UInt64(limit), &descriptor, &length) {
        case 0: return OpenFile(adopting: descriptor)
        case -2: throw .needsTooMuchMemory(format: named, limitMegabytes: limit >> 20)
        case -3: throw .unreadable(reason: String(cString: strerror(errno)))
        case -4: throw .needsTooMuchMemory(format: named, limitMegabytes: limit >> 20)
        default: throw .corrupt(format: named, detail: "it does not decompress")
        }
    }
}

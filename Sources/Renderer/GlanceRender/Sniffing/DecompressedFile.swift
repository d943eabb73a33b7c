internal import CCompression
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// A document kept compressed as a whole (GIMP's `.xcf.gz`, `.xcf.bz2`, `.xcf.xz`; a text's
/// `.gz`, `.bz2`, `.xz` or `.zst`), decompressed into a memory file that its decoder then reads as
/// it reads the plain document: a chunk at a time through zlib, libbz2, liblzma or libzstd, never
/// held twice, and refused past a limit however small the compressed file is (or, for a text,
/// whose first page and first megabyte are all that is read, cut there).
enum DecompressedFile {
    /// The most a document kept compressed whole may decompress to (a GIMP image, a PDF). The
    /// memory file is not mapped, so a renderer's address-space limit does not hold it: this does
    /// (half the default limit; an RGBA layer of 100 megapixels, stored, is 400 MB).
    static let documentLimit = 512 << 20

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

    /// The first `limit` bytes `file` (compressed) decompresses to, and whether that is all of
    /// it: the rest is not decompressed. What a cut or damaged stream made before it stopped is
    /// kept, as not all. `format` names the document in errors.
    static func start(of file: OpenFile, limit: Int, format: String) throws(ThumbnailError) -> (
        file: OpenFile, isComplete: Bool
    ) {
        let named = "compressed " + format
        var (descriptor, length, complete): (Int32, UInt64, Int32) = (-1, 0, 0)
        switch glance_decompress_file_start(file.descriptor, UInt64(limit), &descriptor, &length, &complete) {
        case 0: return (OpenFile(adopting: descriptor), complete != 0)
        case -3: throw .unreadable(reason: String(cString: strerror(errno)))
        case -4: throw .needsTooMuchMemory(format: named, limitMegabytes: max(1, limit >> 20))
        default: throw .corrupt(format: named, detail: "it does not decompress")
        }
    }
}

internal import CArchive
internal import CLibraryLoader
import GlanceCore
import Synchronization

/// An archive's listing, as sniffing made it, handed on to the renderer in its request
/// (``RenderRequest/listing``) so that the archive is listed once, not once to sniff and again to
/// draw. Opaque outside the render layer.
public struct ArchiveListing: Sendable {
    let reader: ArchiveReader
}

/// An archive opened through libarchive (loaded on first use, see `CArchive`): the ZIP package
/// of an office document or an e-book, or a comic book's ZIP, RAR or 7-Zip archive. Its listing
/// is read from what the archive declares and held to ``Limits`` before any entry is read; its
/// entries are read whole, each held to the same limit by what it inflates to. Entry names are
/// data, never paths: nothing is written anywhere.
final class ArchiveReader: Sendable {
    /// Which archive formats are read.
    enum Formats {
        /// ZIP only: office documents and e-books.
        case zip
        /// ZIP, RAR (4 and 5) and 7-Zip: comic books.
        case comics
    }

    /// What a package may hold.
    struct Limits: Sendable, Equatable {
        var entries: Int
        var entryBytes: Int64
        var totalBytes: Int64
        /// The declared total against the package's own size.
        var ratio: Double

        /// A package's (an office document's, an e-book's): 10,000 entries, 256 MiB an entry, 1 GiB in all, and 500 times
        /// its own size. Deflate cannot do better than about 1,030 to 1, which bombs come close
        /// to; a 100,000-row sheet made here inflates 11 times, a deck of repeated slides 30.
        static let package = Limits(entries: 10_000, entryBytes: 256 << 20, totalBytes: 1 << 30, ratio: 500)

        /// A comic book's: as an office document's for each entry, but 64 GiB in all (its pages
        /// are stored, not compressed: a scanned omnibus runs to gigabytes, and the ratio to its
        /// own size still holds a bomb). Only one page is ever read.
        static let comics = Limits(entries: 10_000, entryBytes: 256 << 20, totalBytes: 64 << 30, ratio: 500)
    }

    /// One entry of the listing.
    struct Entry {
        /// The name as the archive spells it (UTF-8 where it is; never a path to open).
        var name: String
        /// Its declared size, or -1 when the archive does not say.
        var size: Int64
        var isFile: Bool
        var isEncrypted: Bool
    }

    /// libarchive's reader, used by one call at a time.
    private let handle: Mutex<OpaquePointer>
    /// The document's kind, for errors ("corrupt Word document data").
    private let format: String
    let entries: [Entry]
    /// What the listing was held to, and which formats were read.
    let limits: Limits
    let formats: Formats
    /// The archive's own size, in bytes.
    private let size: Int64

    /// Lists the archive open at `file` (read as `formats`) and checks the listing against
    /// `limits`; `format` names it in errors.
    init(file: OpenFile, format: String, limits: Limits, formats: Formats = .zip) throws(ThumbnailError) {
        self.format = format
        self.limits = limits
        self.formats = formats
        let size = file.status().map { Int64($0.st_size) } ?? 0
        self.size = size
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_archive_load(&reason, reason.count) == 1 else {
            throw .unsupported(detail: "reading \(format) needs libarchive: \(String(nulTerminated: reason))")
        }
        var cLimits = glance_archive_limits(
            max_entries: limits.entries, max_entry_bytes: limits.entryBytes, max_total_bytes: limits.totalBytes,
            max_ratio: limits.ratio)
        var failure = GLANCE_FAILURE_CORRUPT
        guard
            let opened = glance_archive_open(
                file.descriptor, size, formats == .zip ? GLANCE_ARCHIVE_ZIP : GLANCE_ARCHIVE_COMICS, &cLimits, &reason,
                reason.count, &failure)
        else {
            throw Self.error(failure, String(nulTerminated: reason), format: format)
        }
        entries = (0..<glance_archive_entry_count(opened)).map { index in
            Entry(
                name: String(cString: glance_archive_entry_name(opened, index)),
                size: glance_archive_entry_size(opened, index),
                isFile: glance_archive_entry_is_file(opened, index) != 0,
                isEncrypted: glance_archive_entry_is_encrypted(opened, index) != 0)
        }
        handle = Mutex(opened)
    }

    deinit { glance_archive_close(handle.withLock { $0 }) }

    /// This listing, for a renderer of a family whose limits are `wanted`, read as `formats`:
    /// itself when it was read as those formats under limits no stricter per entry, and what it
    /// declares holds to `wanted` (so that an archive sniffing listed is not listed again); nil
    /// when it must be opened again under `wanted`. Throws when the listing is past `wanted`.
    func listing(heldTo wanted: Limits, as formats: Formats, format: String) throws(ThumbnailError) -> ArchiveReader? {
        guard formats == self.formats, limits.entryBytes == wanted.entryBytes, limits.entries >= wanted.entries else {
            return nil
        }
        let declared = entries.reduce(Int64(0)) { $0 + max(0, $1.size) }
        if entries.count > wanted.entries {
            throw .archiveRefused(
                format: format, detail: "\(entries.count) entries, past the limit of \(wanted.entries)")
        }
        if declared > wanted.totalBytes || Double(declared) > wanted.ratio * Double(max(size, 1)) {
            throw .archiveRefused(
                format: format, detail: "its entries declare \(declared) bytes in all, past the limit for \(format)")
        }
        return self
    }

    /// The index of the entry named exactly `name`, if any.
    func index(of name: String) -> Int? {
        entries.firstIndex { $0.name == name && $0.isFile }
    }

    /// Entry `index`'s bytes, at most the limits' size per entry.
    func read(_ index: Int) throws(ThumbnailError) -> [UInt8] {
        let (bytes, failure) = handle.withLock { handle -> ([UInt8], (glance_failure, String)?) in
            var data: UnsafeMutablePointer<UInt8>?
            var length = 0
            var reason = [CChar](repeating: 0, count: 512)
            var failure = GLANCE_FAILURE_CORRUPT
            guard glance_archive_read_entry(handle, index, &data, &length, &reason, reason.count, &failure) == 1 else {
                return ([], (failure, String(nulTerminated: reason)))
            }
            defer { glance_archive_free(data) }
            return (data.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? [], nil)
        }
        if let (failure, reason) = failure { throw Self.error(failure, reason, format: format) }
        return bytes
    }

    /// Inflates every entry once, nothing kept, to hold what they actually inflate to (not what
    /// they declare) to the limits, and lists and inflates an embedded ZIP archive the same way.
    func checkContents() throws(ThumbnailError) {
        let failure = handle.withLock { handle -> (glance_failure, String)? in
            var reason = [CChar](repeating: 0, count: 512)
            var failure = GLANCE_FAILURE_CORRUPT
            guard glance_archive_check_contents(handle, &reason, reason.count, &failure) == 1 else {
                return (failure, String(nulTerminated: reason))
            }
            return nil
        }
        if let (failure, reason) = failure { throw Self.error(failure, reason, format: format) }
    }

    /// The archive open at `request`'s file, read as `formats` and held to `limits`: the listing
    /// sniffing made when it fits (``listing(heldTo:as:format:)``), else listed now.
    static func open(
        _ request: RenderRequest, format: String, limits: Limits, formats: Formats = .zip
    ) throws(ThumbnailError) -> ArchiveReader {
        if let listed = try request.listing?.reader.listing(heldTo: limits, as: formats, format: format) {
            return listed
        }
        return try ArchiveReader(file: request.file, format: format, limits: limits, formats: formats)
    }

    private static func error(_ failure: glance_failure, _ reason: String, format: String) -> ThumbnailError {
        ThumbnailError(failure, reason: reason, format: format)
    }
}

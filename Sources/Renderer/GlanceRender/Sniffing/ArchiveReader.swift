internal import CArchive
internal import CLibraryLoader
import GlanceCore

/// An archive opened through libarchive (loaded on first use, see `CArchive`): the ZIP package
/// of an office document or an e-book, or a comic book's ZIP, RAR or 7-Zip archive. Its listing
/// is read from what the archive declares and held to ``Limits`` before any entry is read; its
/// entries are read whole, each held to the same limit by what it inflates to. Entry names are
/// data, never paths: nothing is written anywhere.
final class ArchiveReader {
    /// Which archive formats are read.
    enum Formats {
        /// ZIP only: office documents and e-books.
        case zip
        /// ZIP, RAR (4 and 5) and 7-Zip: comic books.
        case comics
    }

    /// What a package may hold.
    struct Limits: Sendable {
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

    private let handle: OpaquePointer
    /// The document's kind, for errors ("corrupt Word document data").
    private let format: String
    let entries: [Entry]

    /// Lists the archive open at `file` (read as `formats`) and checks the listing against
    /// `limits`; `format` names it in errors.
    init(file: OpenFile, format: String, limits: Limits, formats: Formats = .zip) throws(ThumbnailError) {
        self.format = format
        let size = file.status().map { Int64($0.st_size) } ?? 0
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
        handle = opened
        entries = (0..<glance_archive_entry_count(opened)).map { index in
            Entry(
                name: String(cString: glance_archive_entry_name(opened, index)),
                size: glance_archive_entry_size(opened, index),
                isFile: glance_archive_entry_is_file(opened, index) != 0,
                isEncrypted: glance_archive_entry_is_encrypted(opened, index) != 0)
        }
    }

    deinit { glance_archive_close(handle) }

    /// The index of the entry named exactly `name`, if any.
    func index(of name: String) -> Int? {
        entries.firstIndex { $0.name == name && $0.isFile }
    }

    /// Entry `index`'s bytes, at most the limits' size per entry.
    func read(_ index: Int) throws(ThumbnailError) -> [UInt8] {
        var data: UnsafeMutablePointer<UInt8>?
        var length = 0
        var reason = [CChar](repeating: 0, count: 512)
        var failure = GLANCE_FAILURE_CORRUPT
        guard glance_archive_read_entry(handle, index, &data, &length, &reason, reason.count, &failure) == 1 else {
            throw Self.error(failure, String(nulTerminated: reason), format: format)
        }
        defer { glance_archive_free(data) }
        guard let data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    /// Inflates every entry once, nothing kept, to hold what they actually inflate to (not what
    /// they declare) to the limits, and lists and inflates an embedded ZIP archive the same way.
    func checkContents() throws(ThumbnailError) {
        var reason = [CChar](repeating: 0, count: 512)
        var failure = GLANCE_FAILURE_CORRUPT
        guard glance_archive_check_contents(handle, &reason, reason.count, &failure) == 1 else {
            throw Self.error(failure, String(nulTerminated: reason), format: format)
        }
    }

    private static func error(_ failure: glance_failure, _ reason: String, format: String) -> ThumbnailError {
        ThumbnailError(failure, reason: reason, format: format)
    }
}

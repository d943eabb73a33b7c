import GlanceCore

/// Tells apart what comes in an archive or a compound file, by what it holds, never by its name:
///
/// - a **ZIP** is an office document (``OfficeSniffer``), else an **EPUB** (its `mimetype` entry
///   says `application/epub+zip`), else a **CBZ comic book** when it holds a picture, or when it
///   is named `.cbz` (a comic book without pages then fails in one line, as a comic book);
/// - an **OLE2 compound file** is a 97-2003 office document (``OfficeSniffer``);
/// - a **RAR** (4 or 5) or **7-Zip** archive is a comic book (CBR, CB7) when it holds a picture,
///   or is named as one.
///
/// Any other archive is not a supported document. The listing read here is held to the comic
/// books' limits (``ArchiveReader/Limits/comics``); an office document's is held to its own
/// when it is checked.
enum ArchiveSniffer {
    /// An EPUB's `mimetype`.
    static let epubMimetype = "application/epub+zip"

    /// `Rar!\x1A\x07`: RAR 4 (then 0) and RAR 5 (then 1 0).
    static func startsAsRAR(_ prefix: [UInt8]) -> Bool {
        prefix.starts(with: [0x52, 0x61, 0x72, 0x21, 0x1A, 0x07])
    }

    /// `7z\xBC\xAF\x27\x1C`.
    static func startsAs7z(_ prefix: [UInt8]) -> Bool {
        prefix.starts(with: [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C])
    }

    /// Whether `prefix` starts as one of the containers this sniffer reads.
    /// The limits a container is listed under to be told apart: the loosest of the built-in
    /// families' whose documents are archives (a comic book's), so that sniffing refuses nothing
    /// its renderer would take; each renderer then holds its listing to its own family's.
    static let listingLimits: ArchiveReader.Limits =
        FormatFamily.builtIn.compactMap(\.limits.archive).max {
            $0.totalBytes < $1.totalBytes
        } ?? .comics

    static func startsAsContainer(_ prefix: [UInt8]) -> Bool {
        OfficeSniffer.startsAsContainer(prefix) || startsAsRAR(prefix) || startsAs7z(prefix)
    }

    /// What the container open at `file`, whose first bytes are `prefix`, holds; `named` is the
    /// type its name suggests. Throws for an archive past its limits and a password-protected
    /// document.
    static func type(of file: OpenFile, prefix: [UInt8], named: ContentType?) throws(ThumbnailError) -> (
        result: SniffResult, listing: ArchiveReader?
    ) {
        if OfficeSniffer.startsAsPackage(prefix) {
            let archive = try ArchiveReader(
                file: file, format: named?.displayName ?? "ZIP archive", limits: listingLimits, formats: .zip)
            if let office = try OfficeSniffer.packageType(archive) { return (.supported(office), archive) }
            if try OfficeSniffer.mimetype(of: archive) == epubMimetype { return (.supported(.epub), archive) }
            if named == .comicZip || ComicPages.hasPages(archive.entries) { return (.supported(.comicZip), archive) }
            return (
                .unsupported(
                    detail: "a ZIP archive, not a Word, Excel, PowerPoint, OpenDocument, EPUB or comic book file"),
                nil
            )
        }
        if prefix.starts(with: CompoundFile.signature) {
            if let compound = CompoundFile(file: file),
                let office = try OfficeSniffer.compoundType(compound, named: named)
            {
                return (.supported(office), nil)
            }
            return (.unsupported(detail: "an OLE2 compound file, not a Word, Excel or PowerPoint file"), nil)
        }
        let (kind, container): (ContentType, String) =
            startsAsRAR(prefix) ? (.comicRar, "a RAR archive") : (.comic7z, "a 7-Zip archive")
        let archive = try ArchiveReader(file: file, format: kind.displayName, limits: listingLimits, formats: .comics)
        if named == kind || ComicPages.hasPages(archive.entries) { return (.supported(kind), archive) }
        return (.unsupported(detail: "\(container) with no pictures, not a comic book"), nil)
    }
}

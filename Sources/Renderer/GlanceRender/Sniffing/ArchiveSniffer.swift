import GlanceCore

/// Tells apart what comes in an archive or a compound file, by what it holds, never by its name:
///
/// - a **ZIP**, **RAR** (4 or 5) or **7-Zip** archive is listed once, and the families'
///   ``ContainerRule``s, in their order, say what it is: an office document (``OfficeSniffer``),
///   an EPUB (its `mimetype` entry), a Pages, Keynote or Numbers file, and last, when nothing more
///   specific claims it, a comic book when it holds a picture or is named as one (a comic book
///   without pages then fails in one line, as a comic book);
/// - an **OLE2 compound file** is a 97-2003 office document (``OfficeSniffer``).
///
/// Any other archive is not a supported document. The listing read here is held to the loosest
/// limits a family declares (``listingLimits``), and handed on: each renderer holds it to its
/// own family's.
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

    /// The limits a container is listed under to be told apart: the loosest of the built-in
    /// families' whose documents are archives (a comic book's), so that sniffing refuses nothing
    /// its renderer would take; each renderer then holds its listing to its own family's.
    static let listingLimits: ArchiveReader.Limits =
        FormatFamily.builtIn.compactMap(\.limits.archive).max {
            $0.totalBytes < $1.totalBytes
        } ?? .comics

    /// Whether `prefix` starts as one of the containers this sniffer reads.
    static func startsAsContainer(_ prefix: [UInt8]) -> Bool {
        OfficeSniffer.startsAsContainer(prefix) || startsAsRAR(prefix) || startsAs7z(prefix)
    }

    /// What the container open at `file`, whose first bytes are `prefix`, holds, by the first of
    /// `rules` (the families' ``ContainerRule``s, lowest priority first) that claims its listing;
    /// `named` is the type its name suggests. Throws for an archive past its limits and a
    /// password-protected document.
    static func type(
        of file: OpenFile, prefix: [UInt8], named: ContentType?, rules: [ContainerRule]
    ) throws(ThumbnailError) -> (result: SniffResult, listing: ArchiveReader?) {
        if prefix.starts(with: CompoundFile.signature) {
            if let compound = CompoundFile(file: file),
                let office = try OfficeSniffer.compoundType(compound, named: named)
            {
                return (.supported(office), nil)
            }
            return (
                .unsupported(detail: "an OLE2 compound file, not a Word, Excel, PowerPoint, Visio or Publisher file"),
                nil
            )
        }
        let (container, described): (ArchiveContainer, String) =
            OfficeSniffer.startsAsPackage(prefix)
            ? (.zip, "a ZIP archive") : startsAsRAR(prefix) ? (.rar, "a RAR archive") : (.sevenZip, "a 7-Zip archive")
        let archive = try ArchiveReader(
            file: file, format: named?.displayName ?? described, limits: listingLimits,
            formats: container == .zip ? .zip : .comics)
        var kinds: [String] = []
        for rule in rules {
            if let type = try rule.match(archive, container, named) { return (.supported(type), archive) }
            if !kinds.contains(rule.kinds) { kinds.append(rule.kinds) }
        }
        let named =
            kinds.count > 1 ? kinds.dropLast().joined(separator: ", ") + " or " + kinds.last! : kinds.first ?? ""
        return (.unsupported(detail: "\(described), not a \(named) file"), nil)
    }
}

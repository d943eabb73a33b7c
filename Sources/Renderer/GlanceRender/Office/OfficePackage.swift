import GlanceCore

/// The checks an office document passes before LibreOffice sees it, and what they find on the
/// way: the thumbnail the document carries.
///
/// - A ZIP package (Office Open XML, OpenDocument) is listed and held to the office family's ``FormatLimits/archive``
///   from what it declares, then inflated once, nothing kept, and held to the same limits by what
///   it actually inflates to; an embedded ZIP (a workbook inside a report) is checked the same way,
///   and one nested deeper is refused. A bomb ends here, in one line.
/// - An OpenDocument package whose manifest holds encryption data is password-protected.
/// - The embedded thumbnail: OpenDocument's `Thumbnails/thumbnail.png` (LibreOffice writes one of
///   at most 512 pixels since 7.x; 256 before), Office Open XML's `docProps/thumbnail.jpeg` (or `.png`), when present.
///
/// The compound files of the 97-2003 formats and RTF have no package: sniffing has checked their
/// containers (``OfficeSniffer``), and the file-size limit bounds them.
public struct OfficePackage {
    /// The largest thumbnail documents carry, on its longer side: LibreOffice writes 512 pixels
    /// (256 before version 7), Word 256 when asked to save one.
    public static let largestEmbeddedThumbnail = 512

    /// The thumbnail the document carries (PNG or JPEG bytes), if any.
    public private(set) var embeddedThumbnail: [UInt8]?

    /// Checks the office document of `type` open at `file`; `inflating`: inflate every entry to
    /// hold what they hold to the limits (an office renderer does, on the copy LibreOffice will
    /// read; a renderer that hands the document on lists it only, as the inflating is done there,
    /// once: 0.1 s for a 100,000-row sheet). `listing` is the package's listing as sniffing made
    /// it: a check that does not inflate takes it instead of listing the package again.
    public init(
        file: OpenFile, type: ContentType, inflating: Bool = true, listing: ArchiveListing? = nil
    ) throws(ThumbnailError) {
        guard [.wordDocument, .spreadsheet, .presentation].contains(type) || Self.isOpenDocument(type) else { return }
        let limits = FormatFamily.office.limits.archive ?? .package
        // Inflating holds what the entries inflate to against the limits the listing was opened
        // under: only a listing opened under this family's own will do.
        let listed = inflating ? nil : try listing?.reader.listing(heldTo: limits, as: .zip, format: type.displayName)
        let package: ArchiveReader
        if let listed {
            package = listed
        } else {
            package = try ArchiveReader(file: file, format: type.displayName, limits: limits)
        }
        if inflating { try package.checkContents() }
        if Self.isOpenDocument(type), let manifest = package.index(of: "META-INF/manifest.xml"),
            package.entries[manifest].size < (4 << 20)
        {
            let text = try package.read(manifest)
            if Self.contains(text, "encryption-data") { throw .passwordProtected(format: type.displayName) }
        }
        let names = [
            "Thumbnails/thumbnail.png", "docProps/thumbnail.jpeg", "docProps/thumbnail.jpg", "docProps/thumbnail.png",
        ]
        if let index = names.lazy.compactMap({ package.index(of: $0) }).first, package.entries[index].size < (8 << 20) {
            embeddedThumbnail = try? package.read(index)
        }
    }

    static func isOpenDocument(_ type: ContentType) -> Bool {
        [.openDocumentText, .openDocumentSpreadsheet, .openDocumentPresentation, .openDocumentDrawing].contains(type)
    }

    private static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let marker = Array(text.utf8)
        guard bytes.count >= marker.count else { return false }
        return (0...(bytes.count - marker.count)).contains { start in
            bytes[start] == marker[0] && bytes[start..<(start + marker.count)].elementsEqual(marker)
        }
    }
}

import GlanceCore

/// Tells office documents apart by their content, never by their names:
///
/// - **OpenDocument**: a ZIP whose `mimetype` entry (stored first, uncompressed, as the standard
///   asks, so it shows in the first bytes; else read from the package) names the kind;
/// - **Office Open XML**: a ZIP whose `[Content_Types].xml` names a Word, Excel or PowerPoint main
///   part (the macro-enabled and template kinds included);
/// - **Word, Excel and PowerPoint 97-2003, Visio 2003-2010, Publisher 98-2010**: an OLE2 compound
///   file holding a `WordDocument`, `Workbook` (or `Book`), `PowerPoint Document` or
///   `VisioDocument` stream, or `Contents` with `EscherStm`; one holding `EncryptedPackage` is a
///   password-protected Office Open XML file;
/// - **RTF**: `{\rtf`.
///
/// Password protection is found here, from the container, so that it costs one line and never a
/// LibreOffice load: an encrypted package, a Word file's FIB flag, an Excel file's FILEPASS
/// record, a PowerPoint file's `EncryptedSummary` stream, an OpenDocument manifest's encryption
/// data.
enum OfficeSniffer {
    /// `PK\3\4`: a ZIP's first local header.
    static func startsAsPackage(_ prefix: [UInt8]) -> Bool {
        prefix.starts(with: [0x50, 0x4B, 0x03, 0x04])
    }

    /// Whether `prefix` starts as one of the containers office documents come in.
    static func startsAsContainer(_ prefix: [UInt8]) -> Bool {
        startsAsPackage(prefix) || prefix.starts(with: CompoundFile.signature)
    }

    /// `{\rtf`.
    static func startsAsRichText(_ prefix: [UInt8]) -> Bool {
        prefix.starts(with: Array("{\\rtf".utf8))
    }

    /// The OpenDocument kinds by their `mimetype`.
    static let openDocumentTypes: [String: ContentType] = [
        "application/vnd.oasis.opendocument.text": .openDocumentText,
        "application/vnd.oasis.opendocument.text-template": .openDocumentText,
        "application/vnd.oasis.opendocument.spreadsheet": .openDocumentSpreadsheet,
        "application/vnd.oasis.opendocument.spreadsheet-template": .openDocumentSpreadsheet,
        "application/vnd.oasis.opendocument.presentation": .openDocumentPresentation,
        "application/vnd.oasis.opendocument.presentation-template": .openDocumentPresentation,
        "application/vnd.oasis.opendocument.graphics": .openDocumentDrawing,
        "application/vnd.oasis.opendocument.graphics-template": .openDocumentDrawing,
    ]

    /// An OpenDocument package's kind from its first local header: the entry `mimetype`, stored.
    static func openDocumentType(prefix: [UInt8]) -> ContentType? {
        storedMimetype(prefix: prefix).flatMap { openDocumentTypes[$0] }
    }

    /// The text of a ZIP's first entry when it is `mimetype`, stored uncompressed, as
    /// OpenDocument and EPUB put it so that it shows in the first bytes.
    static func storedMimetype(prefix: [UInt8]) -> String? {
        guard startsAsPackage(prefix), prefix.count >= 30 else { return nil }
        let method = CompoundFile.u16(prefix, 8)
        let size = Int(CompoundFile.u32(prefix, 18))
        let nameLength = Int(CompoundFile.u16(prefix, 26))
        let extraLength = Int(CompoundFile.u16(prefix, 28))
        let start = 30 + nameLength + extraLength
        guard method == 0, nameLength == 8, prefix.count >= start + size, size < 128,
            prefix[30..<38].elementsEqual("mimetype".utf8)
        else { return nil }
        return String(decoding: prefix[start..<(start + size)], as: UTF8.self)
    }

    /// A ZIP package's kind: an OpenDocument `mimetype` entry, else the main part of its
    /// `[Content_Types].xml`.
    static func packageType(_ package: ArchiveReader) throws(ThumbnailError) -> ContentType? {
        if let type = try mimetype(of: package).flatMap({ openDocumentTypes[$0] }) { return type }
        guard let index = package.index(of: "[Content_Types].xml"), package.entries[index].size < (1 << 20) else {
            return nil
        }
        return officeOpenXMLType(contentTypes: try package.read(index))
    }

    /// The text of a package's `mimetype` entry wherever it is, spaces trimmed; nil without one.
    static func mimetype(of package: ArchiveReader) throws(ThumbnailError) -> String? {
        guard let index = package.index(of: "mimetype"), package.entries[index].size < 128 else { return nil }
        return String(decoding: try package.read(index), as: UTF8.self).trimmingWhitespace
    }

    /// The Word, Excel, PowerPoint or Visio kind that `[Content_Types].xml` gives its main part
    /// (`...wordprocessingml.document.main+xml`, `...ms-excel.sheet.macroEnabled.main+xml`,
    /// `application/vnd.ms-visio.drawing.main+xml`, ...).
    static func officeOpenXMLType(contentTypes: [UInt8]) -> ContentType? {
        let text = String(decoding: contentTypes, as: UTF8.self)
        let families: [(marker: String, type: ContentType)] = [
            ("wordprocessingml.", .wordDocument), ("ms-word.", .wordDocument),
            ("spreadsheetml.", .spreadsheet), ("ms-excel.", .spreadsheet),
            ("presentationml.", .presentation), ("ms-powerpoint.", .presentation),
            ("ms-visio.drawing", .visioDrawing), ("ms-visio.template", .visioDrawing),
        ]
        for part in text.split(separator: "ContentType=\"").dropFirst() {
            let value = part.prefix { $0 != "\"" }
            guard value.hasSuffix(".main+xml") else { continue }
            if let family = families.first(where: { value.contains($0.marker) }) { return family.type }
        }
        return nil
    }

    /// A compound file's kind from its streams; throws for a password-protected one.
    static func compoundType(_ compound: CompoundFile, named: ContentType?) throws(ThumbnailError) -> ContentType? {
        if compound.stream(named: "EncryptedPackage") != nil {
            throw .passwordProtected(
                format: named.flatMap { FormatFamily.office.contentTypes.contains($0) ? $0.displayName : nil }
                    ?? "Office document")
        }
        if let word = compound.stream(named: "WordDocument") {
            // The FIB's flags: fEncrypted is bit 8 of the word at offset 10.
            if let fib = compound.firstSector(of: word), CompoundFile.u16(fib, 10) & 0x0100 != 0 {
                throw .passwordProtected(format: ContentType.legacyWordDocument.displayName)
            }
            return .legacyWordDocument
        }
        if let workbook = compound.stream(named: "Workbook") ?? compound.stream(named: "Book") {
            if let records = compound.firstSector(of: workbook), hasFilePassRecord(records) {
                throw .passwordProtected(format: ContentType.legacySpreadsheet.displayName)
            }
            return .legacySpreadsheet
        }
        // Visio 2003-2010 (and 5 to 2002): its drawing in one stream, read by LibreOffice's libvisio.
        if compound.stream(named: "VisioDocument") != nil { return .legacyVisioDrawing }
        // Publisher 98 to 2010: its Contents beside an Office drawing layer (Works' files, also
        // Quill's, have no drawing layer), read by LibreOffice's libmspub.
        if compound.stream(named: "Contents") != nil,
            compound.stream(named: "EscherStm") != nil || compound.stream(named: "EscherDelayStm") != nil
        {
            return .publisherDocument
        }
        if compound.stream(named: "PowerPoint Document") != nil {
            if compound.stream(named: "EncryptedSummary") != nil {
                throw .passwordProtected(format: ContentType.legacyPresentation.displayName)
            }
            return .legacyPresentation
        }
        return nil
    }

    /// Whether the workbook stream's first records (BOF, then the globals) include FILEPASS
    /// (0x002F), which an encrypted workbook has before anything else it holds.
    static func hasFilePassRecord(_ records: [UInt8]) -> Bool {
        var offset = 0
        for _ in 0..<16 {
            guard offset + 4 <= records.count else { return false }
            let kind = CompoundFile.u16(records, offset)
            let length = Int(CompoundFile.u16(records, offset + 2))
            if kind == 0x002F { return true }
            offset += 4 + length
        }
        return false
    }
}

extension String {
    /// Without spaces, tabs and line ends at either end.
    fileprivate var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}

import GlanceCore

extension FormatFamily {
    /// Windows metafiles, EMF (its header record, then ` EMF` at byte 40) and WMF (a placeable
    /// metafile's `D7 CD C6 9A`, or a plain one's header), drawn by LibreOffice in the office
    /// renderers as a drawing of one page, as it imports them.
    public static let metafiles = FormatFamily(
        name: "metafile", contentTypes: [.enhancedMetafile, .windowsMetafile],
        sniffRules: [SniffRule(priority: 195) { MetafileHeaders.type(of: $0.prefix) }],
        pool: .office
    ) { type, tools in tools.office.map { OfficeRenderer(type, office: $0) } }
}

/// What the metafiles' headers look like.
enum MetafileHeaders {
    static func type(of prefix: [UInt8]) -> ContentType? {
        if prefix.count >= 44, prefix.littleEndian(at: 0, count: 4) == 1, prefix[40..<44].elementsEqual(" EMF".utf8) {
            return .enhancedMetafile
        }
        if prefix.starts(with: [0xD7, 0xCD, 0xC6, 0x9A]) { return .windowsMetafile }
        // A plain WMF: its type (1 in memory, 2 on disk), a header of 9 words, a known version.
        if prefix.count >= 18, [1, 2].contains(prefix.littleEndian(at: 0, count: 2)),
            prefix.littleEndian(at: 2, count: 2) == 9, [0x100, 0x300].contains(prefix.littleEndian(at: 4, count: 2))
        {
            return .windowsMetafile
        }
        return nil
    }
}

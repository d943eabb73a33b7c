import GlanceCore

extension FormatFamily {
    /// Fonts: TrueType (`00 01 00 00` or `true`, with a plausible table directory), OpenType
    /// with CFF outlines (`OTTO`), collections (`ttcf`), WOFF (`wOFF`) and WOFF2 (`wOF2`), drawn
    /// as a sheet by ``FontSheetRenderer``. Its pages, in the preview: the sheet, a waterfall of
    /// sizes and the glyph coverage.
    public static let fonts = FormatFamily(
        name: "font", contentTypes: [.trueTypeFont, .openTypeFont, .fontCollection, .woff, .woff2],
        sniffRules: [SniffRule(priority: 190) { FontSignatures.type(of: $0.prefix) }],
        capabilities: [.pages]
    ) { _, _ in FontSheetRenderer() }
}

/// The font formats' first bytes.
enum FontSignatures {
    static func type(of prefix: [UInt8]) -> ContentType? {
        guard prefix.count >= 12 else { return nil }
        switch String(decoding: prefix[0..<4], as: UTF8.self) {
        case "OTTO": return hasTableDirectory(prefix) ? .openTypeFont : nil
        case "true": return hasTableDirectory(prefix) ? .trueTypeFont : nil
        case "ttcf": return [1, 2].contains(prefix.bigEndian(at: 4, count: 2)) ? .fontCollection : nil
        case "wOFF": return .woff
        case "wOF2": return .woff2
        default:
            return prefix.starts(with: [0, 1, 0, 0]) && hasTableDirectory(prefix) ? .trueTypeFont : nil
        }
    }

    /// A table count a font has (1 to 100), and the binary search fields that follow it as the
    /// format defines them from that count.
    private static func hasTableDirectory(_ prefix: [UInt8]) -> Bool {
        let tables = prefix.bigEndian(at: 4, count: 2)
        guard (1...100).contains(tables) else { return false }
        var power = 1
        while power * 2 <= tables { power *= 2 }
        return prefix.bigEndian(at: 6, count: 2) == power * 16
    }
}

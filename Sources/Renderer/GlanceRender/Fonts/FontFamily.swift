import GlanceCore

extension FormatFamily {
    /// Fonts: TrueType (`00 01 00 00` or `true`, with a plausible table directory), OpenType
    /// with CFF outlines (`OTTO`), collections (`ttcf`), WOFF (`wOFF`), WOFF2 (`wOF2`),
    /// PostScript Type 1 (`%!PS-AdobeFont-1` or `%!FontType1`, bare as PFA or in a PFB's first
    /// segment) and the bitmap fonts of X11 (PCF, `01 66 63 70`) and BDF (`STARTFONT `), drawn as
    /// a sheet by ``FontSheetRenderer`` (FreeType reads each). Kept compressed whole too, as X's
    /// PCF fonts ship (`.pcf.gz`). Its pages, in the preview: the sheet, a waterfall of sizes and
    /// the glyph coverage. Before PostScript, which a Type 1 font's first line also starts as, and
    /// before text, which a BDF font is.
    public static let fonts = FormatFamily(
        name: "font",
        contentTypes: [.trueTypeFont, .openTypeFont, .fontCollection, .woff, .woff2, .type1Font, .pcfFont, .bdfFont],
        sniffRules: [SniffRule(priority: 190) { FontSignatures.type(of: $0.prefix) }],
        capabilities: [.pages, .drawnDecompressed]
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
        case "\u{01}fcp": return .pcfFont
        case "STAR": return prefix.starts(with: "STARTFONT ".utf8) ? .bdfFont : nil
        default:
            if prefix.starts(with: [0, 1, 0, 0]) && hasTableDirectory(prefix) { return .trueTypeFont }
            return isType1(prefix) ? .type1Font : nil
        }
    }

    /// A Type 1 font's first line: `%!PS-AdobeFont-1` or `%!FontType1`, at the start (PFA) or
    /// after a PFB's first segment header (`80 01` and the segment's length).
    private static func isType1(_ prefix: [UInt8]) -> Bool {
        let text = prefix.starts(with: [0x80, 0x01]) ? prefix.dropFirst(6) : prefix[...]
        return text.starts(with: "%!PS-AdobeFont-1".utf8) || text.starts(with: "%!FontType1".utf8)
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

import GlanceCore

/// The families whose documents are drawn as pages: PDF (poppler) and SVG (librsvg).
extension FormatFamily {
    /// PDF: `%PDF-` within the first KiB. Its pages are pages.
    public static let pdf = FormatFamily(
        name: "PDF", contentTypes: [.pdf],
        sniffRules: [SniffRule(priority: 500) { PageSignatures.containsPDFHeader($0.prefix) ? .pdf : nil }],
        capabilities: [.pages, .drawnDecompressed]
    ) { _, _ in PDFRenderer() }

    /// SVG: XML whose root is `<svg`; kept compressed whole too (`.svgz`, `.svg.gz`, `.svg.xz`: told
    /// by what it decompresses to, and drawn from a decompressed copy).
    public static let svg = FormatFamily(
        name: "SVG", contentTypes: [.svg],
        sniffRules: [SniffRule(priority: 400) { PageSignatures.startsAsSVG($0.prefix) ? .svg : nil }],
        capabilities: [.drawnDecompressed]
    ) { _, _ in SVGRenderer() }
}

/// The signatures of the page formats.
enum PageSignatures {
    /// Whether `bytes` are XML whose root element is `<svg`: a byte-order mark, white space, the
    /// XML declaration, processing instructions, comments and a DOCTYPE may come first.
    static func startsAsSVG(_ bytes: [UInt8]) -> Bool {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func starts(_ text: String) -> Bool {
            let marker = Array(text.utf8)
            return index + marker.count <= bytes.count && bytes[index..<(index + marker.count)].elementsEqual(marker)
        }
        func skip(past text: String) -> Bool {
            let marker = Array(text.utf8)
            while index + marker.count <= bytes.count {
                if bytes[index..<(index + marker.count)].elementsEqual(marker) {
                    index += marker.count
                    return true
                }
                index += 1
            }
            return false
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                index += 1
            } else if starts("<?") {
                guard skip(past: "?>") else { return false }
            } else if starts("<!--") {
                guard skip(past: "-->") else { return false }
            } else if starts("<!DOCTYPE") {
                // To its closing `>`, past an internal subset in brackets.
                var depth = 0
                while index < bytes.count {
                    let next = bytes[index]
                    index += 1
                    if next == UInt8(ascii: "[") { depth += 1 }
                    if next == UInt8(ascii: "]") { depth -= 1 }
                    if next == UInt8(ascii: ">") && depth <= 0 { break }
                }
            } else if starts("<svg") || starts("<svg:svg") {
                let after = index + (starts("<svg:svg") ? 8 : 4)
                guard after < bytes.count else { return false }
                return [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(bytes[after])
            } else {
                return false
            }
        }
        return false
    }

    /// `%PDF-` in the first KiB (some producers put junk before it; readers accept that).
    static func containsPDFHeader(_ bytes: [UInt8]) -> Bool {
        let marker: [UInt8] = Array("%PDF-".utf8)
        let limit = min(bytes.count, 1024) - marker.count
        guard limit >= 0 else { return false }
        for start in 0...limit where bytes[start] == 0x25 {
            if bytes[start..<(start + marker.count)].elementsEqual(marker) { return true }
        }
        return false
    }
}

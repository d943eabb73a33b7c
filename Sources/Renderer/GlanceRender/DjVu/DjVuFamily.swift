import GlanceCore

extension FormatFamily {
    /// DjVu documents: `AT&TFORM`, then a single page (`DJVU`) or a bundled or indirect
    /// document (`DJVM`), drawn by ``DjVuRenderer``. Its pages are pages.
    public static let djvu = FormatFamily(
        name: "DjVu", contentTypes: [.djvu],
        sniffRules: [
            SniffRule(priority: 185) { input in
                let prefix = input.prefix
                guard prefix.count >= 16, prefix.starts(with: Array("AT&TFORM".utf8)) else { return nil }
                return ["DJVU", "DJVM"].contains(String(decoding: prefix[12..<16], as: UTF8.self)) ? .djvu : nil
            }
        ],
        capabilities: [.pages]
    ) { _, _ in DjVuRenderer() }
}

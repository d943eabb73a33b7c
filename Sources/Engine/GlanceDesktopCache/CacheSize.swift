/// The sizes of the freedesktop.org thumbnail cache (Thumbnail Managing Standard 0.9): each a
/// folder of `$XDG_CACHE_HOME/thumbnails/` holding thumbnails that fit a square box.
public enum CacheSize: String, Sendable, CaseIterable, Codable, Comparable {
    case normal
    case large
    case xLarge = "x-large"
    case xxLarge = "xx-large"

    /// The box's side in pixels: 128, 256, 512, 1024.
    public var side: Int {
        switch self {
        case .normal: 128
        case .large: 256
        case .xLarge: 512
        case .xxLarge: 1024
        }
    }

    /// The folder's name, which is also how people name the size (`xx-large`).
    public var folderName: String { rawValue }

    /// Every size, largest first: the order GIO looks for a thumbnail in.
    public static let largestFirst: [CacheSize] = allCases.sorted(by: >)

    /// Parses `xx-large,large` (any order, no repeats) into sizes, largest first.
    public static func list(_ text: String) throws(DesktopCacheError) -> [CacheSize] {
        var sizes: [CacheSize] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = name.filter { $0 != " " }
            guard let size = CacheSize(rawValue: trimmed) else { throw .unknownSize(String(trimmed)) }
            if !sizes.contains(size) { sizes.append(size) }
        }
        return sizes.sorted(by: >)
    }

    public static func < (left: CacheSize, right: CacheSize) -> Bool { left.side < right.side }
}

/// The smaller sizes a store keeps beside each document's standard 1024-pixel thumbnail, for
/// grids and lists: a tile of 160 pixels loads the 256, a 2× screen the 512, never the 1024.
///
/// Every size is scaled in the renderer from the standard thumbnail's own pixels (one decode
/// of the document, every size) and saved in the same transaction. The sizes are a setting of
/// the store (``settingName``), chosen by `glance generate --sizes` and the same for every command
/// that opens it: a record without one of them is `stale` (``FreshnessPolicy``), so the next
/// `generate` (or an on-demand request) makes them.
public struct ThumbnailSizes: Sendable, Equatable, CustomStringConvertible {
    /// The boxes, smallest first, each smaller than the standard box.
    public let sides: [Int]

    /// 256 and 512: a grid tile of up to 256 CSS pixels at 1× and at 2×.
    public static let standard = ThumbnailSizes(checkedSides: [256, 512])
    /// Only the standard thumbnail.
    public static let none = ThumbnailSizes(checkedSides: [])
    /// The store setting that holds them (`256,512`, or `none`).
    public static let settingName = "thumbnail-sizes"
    /// The smallest box a size may have.
    public static let smallestSide = 32

    private init(checkedSides: [Int]) { sides = checkedSides }

    /// The sizes of `text`: box sides separated by commas (`256,512`), or `none`; nil when a side
    /// is not a number from ``smallestSide`` to one less than `maxSide`.
    public init?(_ text: String, maxSide: Int = ThumbnailLimits.defaultMaxSide) {
        let trimmed = String(text.filter { $0 != " " })
        if trimmed == "none" || trimmed.isEmpty {
            sides = []
            return
        }
        var sides: Set<Int> = []
        for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            guard let side = Int(part),
                (Self.smallestSide..<maxSide).contains(side)
            else { return nil }
            sides.insert(side)
        }
        self.sides = sides.sorted()
    }

    /// `256,512`, or `none`: as the setting and `--sizes` write it.
    public var description: String { sides.isEmpty ? "none" : sides.map(String.init).joined(separator: ",") }

    /// The size keys of the sides (`256x256`), smallest first.
    public var sizeKeys: [String] { sides.map(Self.sizeKey(side:)) }

    /// The size key of a box: `256x256`.
    public static func sizeKey(side: Int) -> String { "\(side)x\(side)" }

    /// The side of a size key (`256x256` is 256), or nil when it names no square box.
    public static func side(ofSizeKey key: String) -> Int? {
        let parts = key.split(separator: "x")
        guard parts.count == 2, parts[0] == parts[1], let side = Int(parts[0]), side > 0 else { return nil }
        return side
    }

    /// Whether the standard thumbnail, `width` by `height`, fits a `side` box as it is: that size
    /// would be the same image again, so it is not made or stored, and whoever asks for it gets
    /// the standard thumbnail (``StoredDocument/thumbnail(sizeKey:)``). The one rule for the
    /// renderer, freshness and every reader.
    public static func standardServes(side: Int, width: Int, height: Int) -> Bool {
        width > 0 && height > 0 && max(width, height) <= side
    }
}

extension StoredDocument {
    /// The image that answers for `sizeKey`: the one stored under it, or the standard thumbnail
    /// when that fits the key's box (``ThumbnailSizes/standardServes(side:width:height:)``); nil
    /// when neither. Its `data` is there only when the read asked for that image's bytes.
    public func thumbnail(sizeKey: String) -> ThumbnailImage? {
        if let image = thumbnails.first(where: { $0.sizeKey == sizeKey }) { return image }
        guard let side = ThumbnailSizes.side(ofSizeKey: sizeKey), side < ThumbnailLimits.defaultMaxSide,
            let standard = thumbnails.first(where: { $0.sizeKey == ThumbnailImage.standardSizeKey }),
            ThumbnailSizes.standardServes(side: side, width: standard.width, height: standard.height)
        else { return nil }
        return standard
    }
}

extension ThumbnailStore {
    /// The smaller sizes this store keeps: its setting, or ``ThumbnailSizes/standard`` when it was
    /// never set. A setting that is not a list of sizes (another program wrote it) is an error,
    /// not a guess.
    public func thumbnailSizes() async throws(StoreError) -> ThumbnailSizes {
        guard let text = try await setting(ThumbnailSizes.settingName) else { return .standard }
        guard let sizes = ThumbnailSizes(text) else {
            throw StoreError(
                .invalid,
                message:
                    "its setting \(ThumbnailSizes.settingName) is '\(text.prefix(40))', not sizes such as 256,512; "
                    + "set it again with glance generate --sizes",
                location: "(setting)")
        }
        return sizes
    }
}

import GlanceCore
import GlanceListing

/// What the preview template shows: one document large, its promised-item attributes, and the
/// documents before and after it in the grid's order and filter.
struct PreviewPage: Sendable {
    /// One line of the attribute list.
    struct Attribute: Sendable {
        let label: String
        let value: String
    }

    let title: String
    let assets: PageAssets.Links
    /// The neighbours' thumbnails, fetched while the reader looks at this one.
    let prefetch: [String]
    let events: String?
    /// The sign-out button, for a browser signed in with a session.
    let signOut: SignOutForm?
    let name: String
    /// The path as the change events carry it (`data-path`), not display-escaped: see
    /// ``GridPage/Item/path``.
    let path: String
    let gridURL: String
    /// 1-based position in the filtered, sorted sequence, and its length.
    let position: Int
    let count: Int
    let previousURL: String?
    let nextURL: String?
    let thumbnailURL: String?
    let width: Int
    let height: Int
    let colour: String
    let note: String
    let state: String
    let attributes: [Attribute]
    let documentURL: String
    let itemURL: String

    /// The promised-item attributes as label and value lines.
    static func attributes(of item: PromisedItemAttributes) -> [Attribute] {
        var lines = [
            Attribute(label: "Path", value: DisplayText.escaped(item.path)),
            Attribute(label: "Kind", value: item.kind),
            Attribute(label: "Type", value: item.mimeType),
            Attribute(label: "Size", value: "\(ListingFormatter.byteCount(item.size)) (\(item.size) bytes)"),
            Attribute(label: "Modified", value: ListingFormatter.iso8601(item.modified)),
            Attribute(label: "State", value: DisplayText.escaped(ListingFormatter.stateText(item))),
        ]
        for image in item.thumbnails {
            lines.append(
                Attribute(
                    label: "Thumbnail \(image.sizeKey)",
                    value:
                        "\(image.width)×\(image.height) \(image.format.rawValue.uppercased()), "
                        + ListingFormatter.byteCount(Int64(image.byteCount))))
        }
        if let digest = item.digest { lines.append(Attribute(label: "Digest", value: digest)) }
        if let generatedAt = item.generatedAt {
            lines.append(Attribute(label: "Generated", value: ListingFormatter.iso8601(generatedAt)))
        }
        if let version = item.generatorVersion { lines.append(Attribute(label: "By", value: "Glance \(version)")) }
        return lines
    }
}

/// The list of containers, when one server serves several.
struct SitePage: Sendable {
    struct Container: Sendable {
        let name: String
        let url: String
        let totals: String
    }

    let title: String
    let assets: PageAssets.Links
    let prefetch: [String] = []
    let signOut: SignOutForm?
    let containers: [Container]
}

/// The store's totals for people: `9,990 fresh · 10 failed · 412 MB of thumbnails`.
func totalsText(_ totals: StoreTotals) -> String {
    var parts: [String] = []
    for state in DocumentState.allCases {
        if let count = totals.documents[state], count > 0 { parts.append("\(grouped(count)) \(state.rawValue)") }
    }
    if parts.isEmpty { return "nothing stored yet" }
    return (parts + ["\(ListingFormatter.byteCount(totals.thumbnailBytes)) of thumbnails"]).joined(separator: " · ")
}

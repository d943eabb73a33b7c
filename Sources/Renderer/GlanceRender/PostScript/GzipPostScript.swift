import GlanceCore

/// PostScript and EPS kept gzip-compressed (`.ps.gz`, `.eps.gz`: how preprint archives served
/// papers, and what evince opens): told by what the file's first bytes inflate to, and inflated
/// whole in memory before Ghostscript reads the program, to at most ``inflatedLimit`` bytes (a
/// file that inflates to more is refused, however small it is).
enum GzipPostScript {
    /// The most a compressed program may inflate to.
    static let inflatedLimit = 256 << 20

    /// PostScript or EPS when `prefix` is gzip whose start inflates to a PostScript header.
    static func type(of prefix: [UInt8]) -> ContentType? {
        guard prefix.starts(with: [0x1F, 0x8B]) else { return nil }
        return PostScriptHeader.type(of: InflatedStart.of(prefix[...], limit: 512))
    }

    /// The program in `data`: `data` itself, or what it inflates to when it is gzip.
    static func program(_ data: [UInt8], format: String) throws(ThumbnailError) -> [UInt8] {
        guard data.starts(with: [0x1F, 0x8B]) else { return data }
        // Grown as needed: most programs inflate to a few times their compressed size.
        var capacity = min(inflatedLimit, max(1 << 20, data.count * 8))
        while true {
            let inflated = InflatedStart.of(data[...], limit: capacity)
            if inflated.isEmpty { throw .corrupt(format: "gzip-compressed " + format, detail: "it does not inflate") }
            if inflated.count < capacity { return inflated }
            guard capacity < inflatedLimit else {
                throw .needsTooMuchMemory(format: "gzip-compressed " + format, limitMegabytes: inflatedLimit >> 20)
            }
            capacity = min(inflatedLimit, capacity * 4)
        }
    }
}

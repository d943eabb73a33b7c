/// What a renderer did about a document's colour profile: the thumbnail was converted from the
/// embedded (or PNG-chunk) profile named `profile` to sRGB. Reported by `-v` and in JSON; absent
/// when the source was sRGB or untagged, which need nothing.
public struct ColourConversion: Codable, Sendable, Equatable {
    /// The source profile's own description ("Adobe RGB (1998)"), or what it was made from
    /// ("PNG gAMA 0.30").
    public var profile: String
    /// Whether the transform came from the worker's cache (built for an earlier document with
    /// the same profile) rather than being built for this one.
    public var transformReused: Bool

    public init(profile: String, transformReused: Bool) {
        self.profile = profile
        self.transformReused = transformReused
    }

    /// One line for `-v`: `colour: converted from "Adobe RGB (1998)" to sRGB (cached transform)`.
    public var summary: String {
        "colour: converted from \"\(profile)\" to sRGB" + (transformReused ? " (cached transform)" : "")
    }
}

internal import CColour

/// An ICC profile found in a document (or made from a PNG's gAMA and cHRM chunks), read far
/// enough to decide what to do with it.
struct ColourProfile: Hashable {
    /// The colour space a profile describes.
    enum Space: Hashable {
        case rgb, gray, cmyk, other
    }

    /// The profile itself: what a transform is built from, and the cache's key.
    let bytes: [UInt8]
    let space: Space
    /// The profile's own description, or what it was made from; never empty.
    var name: String
    /// An RGB profile equal to sRGB: the pixels need nothing.
    let isSRGB: Bool
    /// An input, display, output or colour-space profile: one that can be a transform's source.
    let isUsableClass: Bool

    /// Reads `bytes` as an ICC profile; `fallbackName` names it when it has no description.
    init(bytes: [UInt8], fallbackName: String) throws(ColourProfileError) {
        var info = glance_colour_profile_info()
        var message = [CChar](repeating: 0, count: 200)
        let status = bytes.withUnsafeBufferPointer { buffer in
            glance_colour_inspect(buffer.baseAddress, buffer.count, &info, &message, message.count)
        }
        guard status == 0 else { throw .malformed(detail: String(cString: message)) }
        self.bytes = bytes
        switch info.space {
        case Int32(GLANCE_COLOUR_SPACE_RGB.rawValue): space = .rgb
        case Int32(GLANCE_COLOUR_SPACE_GRAY.rawValue): space = .gray
        case Int32(GLANCE_COLOUR_SPACE_CMYK.rawValue): space = .cmyk
        default: space = .other
        }
        let description = withUnsafeBytes(of: info.description) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        let trimmed = String(description.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        name = trimmed.isEmpty ? fallbackName : trimmed
        isSRGB = info.is_srgb != 0
        isUsableClass = info.is_display_class != 0
    }

    /// The profile a PNG's gAMA chunk (file gamma `gamma`) and cHRM chunk (white, red, green,
    /// blue chromaticities; nil for sRGB's) describe, for a gray or a colour image.
    static func fromPNGChunks(gamma: Double, chromaticities: [Double]?, gray: Bool) throws(ColourProfileError)
        -> ColourProfile
    {
        var data: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 200)
        let status: Int32
        if let chromaticities, chromaticities.count == 8 {
            status = chromaticities.withUnsafeBufferPointer { values in
                glance_colour_profile_from_png_chunks(
                    gamma, values.baseAddress, gray ? 1 : 0, &data, &length, &message, message.count)
            }
        } else {
            status = glance_colour_profile_from_png_chunks(
                gamma, nil, gray ? 1 : 0, &data, &length, &message, message.count)
        }
        guard status == 0, let data else { throw .malformed(detail: String(cString: message)) }
        defer { free(data) }
        let bytes = Array(UnsafeBufferPointer(start: data, count: length))
        let source = chromaticities == nil ? "PNG gAMA \(gamma)" : "PNG gAMA \(gamma) and cHRM"
        var made = try ColourProfile(bytes: bytes, fallbackName: source)
        made.name = source
        return made
    }
}

extension ColourProfile {
    /// The profile of RGB on `chromaticities` (white, red, green, blue x, y) with the sRGB
    /// transfer curve, named `name`: an nclx colour description of a HEIF or AVIF.
    static func fromPrimaries(_ chromaticities: [Double], name: String) throws(ColourProfileError) -> ColourProfile {
        guard chromaticities.count == 8 else { throw .malformed(detail: "\(name): not 4 chromaticities") }
        var data: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = chromaticities.withUnsafeBufferPointer { values in
            glance_colour_profile_from_primaries(values.baseAddress, &data, &length, &message, message.count)
        }
        guard status == 0, let data else {
            throw .malformed(
                detail: String(nulTerminated: message))
        }
        defer { free(data) }
        var made = try ColourProfile(bytes: Array(UnsafeBufferPointer(start: data, count: length)), fallbackName: name)
        made.name = name
        return made
    }
}

/// Why a document's colour profile was not used. Never fails a document: the thumbnail is
/// rendered without the profile, and the reason becomes a warning.
enum ColourProfileError: Error, Equatable {
    /// The profile could not be read (truncated, malformed).
    case malformed(detail: String)
    /// The profile is for another colour space than the image's (a CMYK profile in an RGB file).
    case wrongSpace(profile: String, image: String)
    /// A device link, abstract or named-colour profile: nothing to convert from.
    case unsupportedClass(profile: String)

    /// The warning a user reads (`-v`, JSON).
    var warning: String {
        switch self {
        case .malformed(let detail):
            return "embedded colour profile ignored: it is malformed (\(detail)); colours may be off"
        case .wrongSpace(let profile, let image):
            return "embedded colour profile \"\(profile)\" ignored: it is not for \(image) images; colours may be off"
        case .unsupportedClass(let profile):
            return "embedded colour profile \"\(profile)\" ignored: it is not an image profile; colours may be off"
        }
    }
}

#if canImport(Glibc)
    import Glibc
#endif

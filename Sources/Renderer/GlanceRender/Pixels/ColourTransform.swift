internal import CColour
import GlanceCore
import Synchronization

/// How the pixels a ``ColourTransform`` reads are laid out (it always writes 8-bit sRGB).
enum ColourPixels: Hashable {
    /// RGB or RGBA (alpha copied), converted in place.
    case rgb, rgba
    /// A gray image stored as R = G = B (the decoders expand gray), with or without alpha.
    case grayInRGB, grayInRGBA
    /// CMYK samples in (inverted as Adobe writes them, or plain), RGB out.
    case cmyk(inverted: Bool)

    fileprivate var code: Int32 {
        switch self {
        case .rgb: Int32(GLANCE_PIXELS_RGB.rawValue)
        case .rgba: Int32(GLANCE_PIXELS_RGBA.rawValue)
        case .grayInRGB: Int32(GLANCE_PIXELS_GRAY_IN_RGB.rawValue)
        case .grayInRGBA: Int32(GLANCE_PIXELS_GRAY_IN_RGBA.rawValue)
        case .cmyk(let inverted):
            inverted ? Int32(GLANCE_PIXELS_CMYK_INVERTED.rawValue) : Int32(GLANCE_PIXELS_CMYK.rawValue)
        }
    }

    /// The pixels' layout for an image of `channels` channels whose profile is `space`.
    static func layout(for space: ColourProfile.Space, channels: Int) -> ColourPixels? {
        switch (space, channels) {
        case (.rgb, 3): .rgb
        case (.rgb, 4): .rgba
        case (.gray, 3): .grayInRGB
        case (.gray, 4): .grayInRGBA
        default: nil
        }
    }
}

/// A Little CMS transform from one profile to sRGB (perceptual, black-point compensation);
/// owns the C transform and frees it. Not shared between threads: the cache that keeps it hands
/// it out under its lock.
final class ColourTransform {
    private let handle: OpaquePointer

    /// A transform from `profile`; `lcmsOnly` keeps matrix/curves profiles off Glance's direct
    /// path (tests compare the two).
    init(profile: ColourProfile, pixels: ColourPixels, lcmsOnly: Bool = false) throws(ColourProfileError) {
        var message = [CChar](repeating: 0, count: 200)
        let made = profile.bytes.withUnsafeBufferPointer { buffer in
            glance_colour_transform_create(
                buffer.baseAddress, buffer.count, pixels.code, lcmsOnly ? 1 : 0, &message, message.count)
        }
        guard let made else { throw .malformed(detail: String(cString: message)) }
        handle = made
    }

    deinit { glance_colour_transform_free(handle) }

    /// Transforms `rows` rows of `width` pixels from `input` to `output` (the same buffer for the
    /// in-place layouts).
    func apply(
        input: UnsafePointer<UInt8>, inputStride: Int, output: UnsafeMutablePointer<UInt8>, outputStride: Int,
        width: Int, rows: Int
    ) {
        glance_colour_transform_rows(handle, input, inputStride, output, outputStride, Int32(width), Int32(rows))
    }

    /// Converts every pixel of `image` in place.
    func apply(to image: inout PixelBuffer) {
        let width = image.width
        let height = image.height
        let stride = image.rowBytes
        image.bytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            apply(input: base, inputStride: stride, output: base, outputStride: stride, width: width, rows: height)
        }
    }
}

/// The colour transforms a process has built, by profile and pixel layout, so that a batch of
/// photos from one camera builds its transform once (building one takes milliseconds; applying
/// it to a thumbnail, about as long). Bounded: the least recently used goes first.
///
/// A worker keeps one for its life (in its ``Thumbnailer``). The transforms never leave the lock.
public final class ColourTransformCache: Sendable {
    private struct Key: Hashable {
        let profile: [UInt8]
        let pixels: ColourPixels
    }

    private struct State: ~Copyable {
        var transforms: [Key: ColourTransform] = [:]
        var recency: [Key] = []
        var hits = 0
        var builds = 0
    }

    private let state = Mutex(State())
    private let capacity: Int

    /// A cache of at most `capacity` transforms.
    public init(capacity: Int = 8) {
        self.capacity = max(1, capacity)
    }

    /// How many lookups found a transform built before, and how many built one.
    public var counts: (hits: Int, builds: Int) {
        state.withLock { ($0.hits, $0.builds) }
    }

    /// Runs `body` with the transform for `profile` and `pixels`, building it first if needed;
    /// returns whether it was reused.
    func withTransform(
        for profile: ColourProfile, pixels: ColourPixels, _ body: (ColourTransform) -> Void
    ) throws(ColourProfileError) -> Bool {
        try state.withLock { (state: inout State) throws(ColourProfileError) -> Bool in
            let key = Key(profile: profile.bytes, pixels: pixels)
            if let transform = state.transforms[key] {
                state.hits += 1
                if let index = state.recency.firstIndex(of: key) { state.recency.remove(at: index) }
                state.recency.append(key)
                body(transform)
                return true
            }
            let transform = try ColourTransform(profile: profile, pixels: pixels)
            state.builds += 1
            if state.transforms.count >= capacity, let oldest = state.recency.first {
                state.recency.removeFirst()
                state.transforms[oldest] = nil
            }
            state.transforms[key] = transform
            state.recency.append(key)
            body(transform)
            return false
        }
    }
}

/// How a GIMP layer in another mode than normal mixes its colour with what lies below it, one
/// channel at a time (``XCFDecoder``): the separable modes of GIMP 2.10 and their legacy
/// (GIMP 2.8) forms, told by the mode numbers GIMP writes (its `GimpLayerMode`).
///
/// Composed as GIMP 2.10 composes a mode other than normal by default, clipped to the backdrop:
/// the layer changes the colour below it by its alpha (times its opacity and mask) and leaves the
/// alpha below as it was, so it draws nothing over a clear canvas. The mix is taken on the
/// sRGB-encoded values, as the legacy modes take it; GIMP 2.10 takes some of its own in linear
/// light (multiply, screen and others), which comes out somewhat lighter or darker. Modes that are
/// not separable (hue, saturation, colour, value, luminance) and those that change alpha (dissolve,
/// behind, erase, merge, split) are not drawn this way: ``init(mode:)`` gives nil for them.
enum XCFBlend: Equatable {
    case multiply, screen, overlay, softLight, hardLight, difference, addition, subtract, darkenOnly, lightenOnly
    case divide, dodge, burn, grainExtract, grainMerge, vividLight, pinLight, linearLight, hardMix, exclusion
    case linearBurn

    /// The blend GIMP's mode number `mode` names, nil for normal and for modes not drawn this way.
    init?(mode: Int) {
        switch mode {
        case 3, 30: self = .multiply
        case 4, 31: self = .screen
        // The legacy "overlay" (5) was soft light in GIMP 2.8; 2.10 kept it so under that number.
        case 5, 19, 45: self = .softLight
        case 23: self = .overlay
        case 6, 32: self = .difference
        case 7, 33: self = .addition
        case 8, 34: self = .subtract
        case 9, 35: self = .darkenOnly
        case 10, 36: self = .lightenOnly
        case 15, 41: self = .divide
        case 16, 42: self = .dodge
        case 17, 43: self = .burn
        case 18, 44: self = .hardLight
        case 20, 46: self = .grainExtract
        case 21, 47: self = .grainMerge
        case 48: self = .vividLight
        case 49: self = .pinLight
        case 50: self = .linearLight
        case 51: self = .hardMix
        case 52: self = .exclusion
        case 53: self = .linearBurn
        default: return nil
        }
    }

    /// Whether GIMP's mode number `mode` is drawn as it is: normal (0 and 28), a group's pass
    /// through (61), or a blend of ``init(mode:)``.
    static func isDrawn(mode: Int) -> Bool {
        [0, 28, 61].contains(mode) || XCFBlend(mode: mode) != nil
    }

    /// The channel that results from `layer` over `below` (both 0 to 255).
    func mix(_ below: Int, _ layer: Int) -> Int {
        let (a, b) = (Double(below) / 255, Double(layer) / 255)
        let value: Double
        switch self {
        case .multiply: value = a * b
        case .screen: value = 1 - (1 - a) * (1 - b)
        case .overlay: value = a < 0.5 ? 2 * a * b : 1 - 2 * (1 - a) * (1 - b)
        case .softLight: value = (1 - a) * a * b + a * (1 - (1 - a) * (1 - b))
        case .hardLight: value = b <= 0.5 ? 2 * a * b : 1 - 2 * (1 - a) * (1 - b)
        case .difference: value = abs(a - b)
        case .addition: value = a + b
        case .subtract: value = a - b
        case .darkenOnly: value = min(a, b)
        case .lightenOnly: value = max(a, b)
        case .divide: value = b > 0 ? a / b : (a > 0 ? 1 : 0)
        case .dodge: value = b < 1 ? a / (1 - b) : (a > 0 ? 1 : 0)
        case .burn: value = b > 0 ? 1 - (1 - a) / b : (a < 1 ? 0 : 1)
        case .grainExtract: value = a - b + 0.5
        case .grainMerge: value = a + b - 0.5
        case .vividLight:
            value =
                b <= 0.5
                ? (b > 0 ? 1 - (1 - a) / (2 * b) : (a < 1 ? 0 : 1))
                : (b < 1 ? a / (2 * (1 - b)) : (a > 0 ? 1 : 0))
        case .pinLight: value = b > 0.5 ? max(a, 2 * b - 1) : min(a, 2 * b)
        case .linearLight: value = a + 2 * b - 1
        case .hardMix: value = a + b >= 1 ? 1 : 0
        case .exclusion: value = a + b - 2 * a * b
        case .linearBurn: value = a + b - 1
        }
        return Int((min(1, max(0, value)) * 255).rounded())
    }
}

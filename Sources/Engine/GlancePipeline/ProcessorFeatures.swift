import CProcessorFeatures

#if canImport(Glibc)
    import Glibc
#endif

/// The optional SIMD extensions the renderers' own code uses on this machine (the scaler's AVX2
/// passes, the PNG checksum's SSSE3, the digest's SHA extensions): those the processor has, less
/// those `GLANCE_SIMD_DISABLE` turns off, so that a machine without them can be measured on one
/// that has them. libjpeg-turbo and libcrypto choose for themselves (`JSIMD_FORCESSE2`,
/// `OPENSSL_ia32cap`); renderers are given those variables too.
public struct ProcessorFeatures: Sendable, Equatable {
    /// The environment variable that turns extensions off: a comma-separated list of names.
    public static let disableVariable = "GLANCE_SIMD_DISABLE"

    /// Every extension Glance's code chooses between, by its name in /proc/cpuinfo.
    static let all: [(name: String, bit: UInt32)] = [
        ("ssse3", GLANCE_FEATURE_SSSE3.rawValue), ("sse4_1", GLANCE_FEATURE_SSE4_1.rawValue),
        ("avx2", GLANCE_FEATURE_AVX2.rawValue), ("sha_ni", GLANCE_FEATURE_SHA.rawValue),
    ]

    /// The extensions in use, in the order of ``all``.
    public let inUse: [String]
    /// Those the processor has but ``inUse`` leaves out.
    public let turnedOff: [String]

    /// What this process (and the renderers it starts, which inherit the variable) uses.
    public static func current() -> ProcessorFeatures {
        let detected = glance_processor_detected_features()
        let used = glance_processor_features()
        return ProcessorFeatures(
            inUse: all.filter { used & $0.bit != 0 }.map(\.name),
            turnedOff: all.filter { detected & $0.bit != 0 && used & $0.bit == 0 }.map(\.name))
    }

    /// How `--version` says it: "ssse3 sse4_1 avx2 sha_ni", "none", with what is turned off.
    public var description: String {
        let used = inUse.isEmpty ? "none beyond SSE2" : inUse.joined(separator: " ")
        return turnedOff.isEmpty ? used : "\(used); off by \(Self.disableVariable): \(turnedOff.joined(separator: " "))"
    }

    /// Checks a `GLANCE_SIMD_DISABLE` value: nil, or a name that is not one of the extensions.
    public static func unknownName(inDisableList list: String) -> String? {
        var features: UInt32 = 0
        var unknown: UnsafePointer<CChar>?
        var length = 0
        guard glance_processor_parse_disabled(list, &features, &unknown, &length) != 0, let unknown else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: unknown, count: length), as: UTF8.self)
    }

    /// The whole sentence `glance` exits with when `GLANCE_SIMD_DISABLE` names something unknown,
    /// or nil when it is unset or good.
    public static func settingProblem() -> String? {
        guard let value = getenv(disableVariable).map({ String(cString: $0) }),
            let name = unknownName(inDisableList: value)
        else { return nil }
        let known = (all.map(\.name) + ["all"]).joined(separator: ", ")
        return "\(disableVariable) names \"\(name)\", which is not one of \(known)."
    }
}

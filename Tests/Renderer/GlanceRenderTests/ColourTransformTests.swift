import GlanceCore
import Testing

@testable import GlanceRender

/// The renderers' side of colour management: which profiles are converted, how transforms are
/// cached, and what an unusable profile costs.
@Suite("Colour transforms", .timeLimit(.minutes(10)))
struct ColourTransformTests {
    @Test("one profile, two documents: one transform built, then reused; another profile builds its own")
    func cacheHits() throws {
        let cache = ColourTransformCache()
        let thumbnailer = Thumbnailer(colourTransforms: cache)
        let first = try renderDocument(path: TestAssets.path("colour/adobe-rgb.jpg"), thumbnailer: thumbnailer)
        #expect(
            first.thumbnail.colour
                == ColourConversion(profile: "Compatible with Adobe RGB (1998)", transformReused: false))
        #expect(cache.counts == (hits: 0, builds: 1))
        let second = try renderDocument(path: TestAssets.path("colour/adobe-rgb-2.jpg"), thumbnailer: thumbnailer)
        #expect(second.thumbnail.colour?.transformReused == true)
        #expect(cache.counts == (hits: 1, builds: 1))
        _ = try renderDocument(path: TestAssets.path("colour/display-p3.png"), thumbnailer: thumbnailer)
        #expect(cache.counts == (hits: 1, builds: 2))
        _ = try renderDocument(path: TestAssets.path("colour/untagged.jpg"), thumbnailer: thumbnailer)
        #expect(cache.counts == (hits: 1, builds: 2), "an untagged photo needs no transform")
    }

    @Test("the cache keeps at most its capacity, dropping the least recently used")
    func cacheBound() throws {
        let cache = ColourTransformCache(capacity: 1)
        let thumbnailer = Thumbnailer(colourTransforms: cache)
        for path in ["colour/adobe-rgb.jpg", "colour/romm-rgb.jpg", "colour/adobe-rgb-2.jpg"] {
            _ = try renderDocument(path: TestAssets.path(path), thumbnailer: thumbnailer)
        }
        #expect(cache.counts == (hits: 0, builds: 3))
    }

    @Test("an embedded sRGB profile is recognised by its colorants and curves; gAMA 1/2.2 needs none")
    func sRGBRecognised() throws {
        let decoder = try JPEGFile(file: OpenFile.regularFile(atPath: TestAssets.path("colour/srgb-tagged.jpg")))
        let embedded = try #require(decoder.iccProfile())
        #expect(try ColourProfile(bytes: embedded, fallbackName: "x").isSRGB)
        let romm = try JPEGFile(file: OpenFile.regularFile(atPath: TestAssets.path("colour/romm-rgb.jpg")))
        #expect(try !ColourProfile(bytes: #require(romm.iccProfile()), fallbackName: "x").isSRGB)
        var warnings: [String] = []
        #expect(
            PNGDecoder.colourProfile(.gamma(0.45455, chromaticities: nil), gray: false, warnings: &warnings) == nil)
        let gamma = PNGDecoder.colourProfile(.gamma(1.0, chromaticities: nil), gray: true, warnings: &warnings)
        #expect(gamma?.space == .gray)
        #expect(gamma?.isSRGB == false)
        let wide = [0.3127, 0.3290, 0.708, 0.292, 0.170, 0.797, 0.131, 0.046]
        #expect(PNGDecoder.colourProfile(.chromaticities(wide), gray: false, warnings: &warnings)?.space == .rgb)
        #expect(warnings.isEmpty)
        let srgbLike = try ColourProfile.fromPNGChunks(
            gamma: 1 / 2.4, chromaticities: [0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06], gray: false)
        #expect(!srgbLike.isSRGB, "a pure 2.4 curve is not sRGB's")
    }

    @Test("an unusable profile warns and leaves the pixels: junk, and a profile of another colour space")
    func unusableProfiles() throws {
        var warnings: [String] = []
        #expect(throws: ColourProfileError.self) {
            _ = try ColourProfile(bytes: Array(repeating: 7, count: 300), fallbackName: "junk")
        }
        let gray = try ColourProfile.fromPNGChunks(gamma: 1.0, chromaticities: nil, gray: true)
        var image = syntheticImage(width: 16, height: 8)
        let before = image
        let conversion = SRGBConversion(transforms: ColourTransformCache())
            .convert(&image, from: gray, sourceIsGray: false, warnings: &warnings)
        #expect(conversion == nil)
        #expect(image == before)
        #expect(warnings == [ColourProfileError.wrongSpace(profile: "PNG gAMA 1.0", image: "RGB").warning])
    }

    @Test(
        "the direct path for matrix/curves profiles agrees with Little CMS's own transform",
        arguments: ["colour/adobe-rgb.jpg", "colour/romm-rgb.jpg", "gamma 1.0"])
    func directPathMatchesLittleCMS(source: String) throws {
        let profile: ColourProfile
        if source.hasSuffix(".jpg") {
            let decoder = try JPEGFile(file: OpenFile.regularFile(atPath: TestAssets.path(source)))
            profile = try ColourProfile(bytes: #require(decoder.iccProfile()), fallbackName: source)
        } else {
            profile = try ColourProfile.fromPNGChunks(gamma: 1.0, chromaticities: nil, gray: false)
        }
        for alpha in [false, true] {
            let original = syntheticImage(width: 256, height: 64, alpha: alpha)
            var direct = original
            var reference = original
            let pixels: ColourPixels = alpha ? .rgba : .rgb
            try ColourTransform(profile: profile, pixels: pixels).apply(to: &direct)
            try ColourTransform(profile: profile, pixels: pixels, lcmsOnly: true).apply(to: &reference)
            var largest = 0
            var total = 0
            for (index, (a, b)) in zip(direct.bytes, reference.bytes).enumerated() {
                if alpha && index % 4 == 3 {
                    #expect(a == original.bytes[index], "alpha is copied")
                    continue
                }
                largest = max(largest, abs(Int(a) - Int(b)))
                total += abs(Int(a) - Int(b))
            }
            #expect(largest <= 2, "\(source): largest difference \(largest)")
            #expect(Double(total) / Double(direct.bytes.count) < 0.5, "\(source): mean difference")
            #expect(direct != original, "the conversion changed something")
        }
    }
}

import Testing

@testable import GlanceRender

@Suite("Thumbnail geometry", .timeLimit(.minutes(10)))
struct ThumbnailGeometryTests {
    @Test("fit keeps the aspect ratio, makes the longest side 1024 and never enlarges")
    func fitSweep() {
        for width in stride(from: 1, through: 9000, by: 377) {
            for height in stride(from: 1, through: 9000, by: 419) {
                let fitted = ThumbnailGeometry.fit(width: width, height: height)
                let longest = max(width, height)
                #expect(max(fitted.width, fitted.height) == min(1024, longest))
                #expect(fitted.width >= 1 && fitted.height >= 1)
                if longest > 1024 {
                    let expected = Double(min(width, height)) * 1024 / Double(longest)
                    #expect(
                        abs(Double(min(fitted.width, fitted.height)) - expected) <= 0.5
                            || min(fitted.width, fitted.height) == 1)
                } else {
                    #expect(fitted.width == width && fitted.height == height)
                }
            }
        }
    }

    @Test("extreme aspect ratios keep at least one pixel")
    func extremeAspect() {
        #expect(ThumbnailGeometry.fit(width: 100_000, height: 1) == (1024, 1))
        #expect(ThumbnailGeometry.fit(width: 1, height: 100_000) == (1, 1024))
        #expect(ThumbnailGeometry.fit(width: 3.0, height: 3.0) == (1024, 1024))
        #expect(ThumbnailGeometry.fit(width: 612.0, height: 792.0) == (791, 1024))
    }

    @Test("the DCT scale is the largest reduction that still covers the target")
    func jpegScale() {
        // 6000x4000 -> 1024x683: 1/4 gives 1500x1000 (covers), 1/8 gives 750x500 (does not).
        #expect(
            ThumbnailGeometry.jpegScaleDenominator(width: 6000, height: 4000, targetWidth: 1024, targetHeight: 683) == 4
        )
        // 20000x14000 -> 1024x717: 1/8 gives 2500x1750.
        #expect(
            ThumbnailGeometry.jpegScaleDenominator(width: 20000, height: 14000, targetWidth: 1024, targetHeight: 717)
                == 8)
        // 1600x1200 -> 1024x768: no reduction keeps 1024 wide.
        #expect(
            ThumbnailGeometry.jpegScaleDenominator(width: 1600, height: 1200, targetWidth: 1024, targetHeight: 768) == 1
        )
        // 2048 -> 1024 exactly: 1/2 covers it.
        #expect(
            ThumbnailGeometry.jpegScaleDenominator(width: 2048, height: 2048, targetWidth: 1024, targetHeight: 1024)
                == 2)
        for width in stride(from: 100, through: 30000, by: 997) {
            let target = ThumbnailGeometry.fit(width: width, height: width / 2 + 1)
            let d = ThumbnailGeometry.jpegScaleDenominator(
                width: width, height: width / 2 + 1, targetWidth: target.width, targetHeight: target.height)
            #expect((width + d - 1) / d >= target.width)
            if d < 8 {
                #expect(
                    (width + 2 * d - 1) / (2 * d) < target.width
                        || (width / 2 + 1 + 2 * d - 1) / (2 * d) < target.height)
            }
        }
    }
}

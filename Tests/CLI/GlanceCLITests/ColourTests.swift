import Foundation
import GlanceTestSupport
import Testing

/// Thumbnails are sRGB: sources tagged with an ICC profile (or a PNG's gAMA) are converted,
/// sRGB and untagged sources are left as they are, and a broken profile costs a warning, never
/// the document. The reference is ImageMagick's conversion of the same source, with Glance's
/// rendering intent (perceptual, black-point compensation), through Debian's sRGB profile.
@Suite("Colour management", .timeLimit(.minutes(10)))
struct ColourTests {
    /// Debian's sRGB profile (icc-profiles-free), what ImageMagick converts to.
    static let sRGBProfile = "/usr/share/color/icc/sRGB.icc"

    @Test(
        "tagged sources come out within a mean ΔE of 2 of ImageMagick's conversion to sRGB",
        arguments: [
            "colour/romm-rgb.jpg", "colour/adobe-rgb.jpg", "colour/display-p3.png", "colour/cmyk-swop.jpg",
            "colour/display-p3.heic", "colour/display-p3.webp", "colour/display-p3.tiff",
        ])
    func taggedSources(asset: String) async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = folder + "/thumbnail.png"
        let result = try await GlanceProcess.run([
            "thumbnail", CLIAssets.path(asset), "-o", output, "--format", "png", "-v",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains(": colour: converted from \""), "\(result.standardError)")
        let (width, height) = (1024, 683)
        let mine = try await Magick.rgb([output], width: width, height: height)
        // ImageMagick 6 reads a HEIC's pixels but not its colour profile: libheif's own
        // heif-convert writes them, profile and all, as a PNG for it to convert.
        var source = CLIAssets.path(asset)
        if asset.hasSuffix(".heic") {
            source = folder + "/decoded.png"
            try await Magick.decodeHEIF(CLIAssets.path(asset), to: source)
        }
        let theirs = try await Magick.rgb(
            [
                source, "-intent", "perceptual", "-black-point-compensation", "-profile",
                Self.sRGBProfile, "-resize", "\(width)x\(height)!",
            ], width: width, height: height)
        let error = ColourDifference.meanDeltaE(mine, theirs)
        #expect(error <= 2, "mean ΔE \(error) against ImageMagick for \(asset)")
        // And the conversion matters: the source's own numbers, read as sRGB, are further off.
        let unconverted = try await Magick.rgb(
            [source, "-strip", "-colorspace", "sRGB", "-resize", "\(width)x\(height)!"], width: width,
            height: height)
        #expect(ColourDifference.meanDeltaE(unconverted, theirs) > 2 * max(error, 1))
    }

    @Test("sRGB-tagged, untagged and broken-profile sources give the same pixels; only the broken one warns")
    func untouchedSources() async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var pixels: [String: [UInt8]] = [:]
        for name in ["srgb-tagged", "untagged", "broken-profile"] {
            let output = folder + "/\(name).png"
            let result = try await GlanceProcess.run([
                "thumbnail", CLIAssets.path("colour/\(name).jpg"), "-o", output, "--format", "png", "-v",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(!result.standardError.contains("colour: converted"), "\(result.standardError)")
            let warned = result.standardError.contains(
                "warning: embedded colour profile ignored: it is malformed (")
            #expect(warned == (name == "broken-profile"), "\(result.standardError)")
            pixels[name] = try await Magick.rgb([output], width: 1024, height: 683)
        }
        #expect(pixels["srgb-tagged"] == pixels["untagged"])
        #expect(pixels["broken-profile"] == pixels["untagged"])
    }

    @Test("a PNG's gAMA is honoured (1.0 brightens the midtones), 1/2.2 is taken as sRGB; PNGs are tagged sRGB")
    func pngGamma() async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var means: [String: Double] = [:]
        for name in ["gamma-1.0", "gamma-srgb"] {
            let output = folder + "/\(name).png"
            let result = try await GlanceProcess.run([
                "thumbnail", CLIAssets.path("colour/\(name).png"), "-o", output, "--format", "png", "-v",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardError.contains("colour: converted from \"PNG gAMA 1.0\"") == (name == "gamma-1.0"))
            let bytes = try await Magick.rgb([output], width: 384, height: 256)
            means[name] = Double(bytes.reduce(0) { $0 + Int($1) }) / Double(bytes.count)
            let png = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect(png.range(of: Data("sRGB".utf8)) != nil, "the thumbnail carries an sRGB chunk")
        }
        #expect(means["gamma-1.0"]! > means["gamma-srgb"]! + 20, "\(means)")
    }

    @Test("a batch builds a profile's transform once: the second document reuses it (-v and --json)")
    func transformCache() async throws {
        let container = try SampleContainer([
            "first.jpg": "colour/adobe-rgb.jpg", "second.jpg": "colour/adobe-rgb-2.jpg",
            "plain.jpg": "colour/untagged.jpg",
        ])
        let result = try await GlanceProcess.run(["generate", container.path, "--jobs", "1", "-v", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.errorLines.filter {
            $0.contains("colour: converted from \"Compatible with Adobe RGB (1998)\"")
        }
        #expect(lines.count == 2, "\(result.standardError)")
        #expect(lines.filter { $0.hasSuffix("to sRGB (cached transform)") }.count == 1, "\(lines)")
        #expect(!result.standardError.contains("plain.jpg"))
        let summary = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        let notes = summary?["notes"] as? [[String: Any]] ?? []
        #expect(notes.compactMap { $0["path"] as? String } == ["first.jpg", "second.jpg"])
        #expect(notes.allSatisfy { $0["kind"] as? String == "colour" })
    }
}

/// ImageMagick, for reference conversions and for reading pixels.
enum Magick {
    /// libheif's heif-convert (libheif-examples): `heif` as a PNG at `png`, its ICC profile kept.
    static func decodeHEIF(_ heif: String, to png: String) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/heif-convert")
        process.arguments = [heif, png]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        #expect(await exited(process, within: .seconds(60)), "process ended")
        #expect(process.terminationStatus == 0, "heif-convert \(heif)")
    }

    /// The 8-bit RGB pixels ImageMagick makes of `arguments` (inputs and operations), which must
    /// come to `width` x `height`.
    static func rgb(_ arguments: [String], width: Int, height: Int) async throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/convert")
        process.arguments = arguments + ["-depth", "8", "rgb:-"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = await readToEnd(output.fileHandleForReading)
        #expect(await exited(process, within: .seconds(60)), "process ended")
        #expect(process.terminationStatus == 0, "convert \(arguments)")
        #expect(data.count == width * height * 3, "convert \(arguments) gave \(data.count) bytes")
        return [UInt8](data)
    }
}

/// CIE 1976 colour differences between sRGB images (D65).
enum ColourDifference {
    /// The mean ΔE*ab over the pixels of two equally sized RGB images.
    static func meanDeltaE(_ first: [UInt8], _ second: [UInt8]) -> Double {
        let count = min(first.count, second.count) / 3
        guard count > 0 else { return .infinity }
        var total = 0.0
        for pixel in 0..<count {
            let a = lab(first[3 * pixel], first[3 * pixel + 1], first[3 * pixel + 2])
            let b = lab(second[3 * pixel], second[3 * pixel + 1], second[3 * pixel + 2])
            total += ((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1) + (a.2 - b.2) * (a.2 - b.2)).squareRoot()
        }
        return total / Double(count)
    }

    /// CIELAB of an sRGB colour.
    static func lab(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> (Double, Double, Double) {
        func linear(_ value: UInt8) -> Double {
            let c = Double(value) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let (r, g, b) = (linear(red), linear(green), linear(blue))
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }
}

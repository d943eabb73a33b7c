import GlanceCore
import Testing

@testable import GlanceRender

/// SVG documents through librsvg: drawn to fill the box, nothing from outside the document.
@Suite("SVG", .timeLimit(.minutes(10)))
struct SVGTests {
    @Test("a drawing fills the box whatever its intrinsic size, sharp at its edges")
    func fillsTheBox() throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path("svg/shapes.svg"))
        #expect(type == .svg)
        let image = rendered.image
        #expect(image.width == 1024 && image.height == 768 && !image.hasAlpha)
        #expect(rendered.sourceWidth == 400 && rendered.sourceHeight == 300)
        // #dc1e1e on the left, #1e3cdc on the right, each exactly: drawn, not scaled.
        let left = image.pixel(x: 10, y: 10)
        let right = image.pixel(x: 1013, y: 757)
        #expect((left.r, left.g, left.b) == (0xDC, 0x1E, 0x1E) && (right.r, right.g, right.b) == (0x1E, 0x3C, 0xDC))
        // Compressed, the same drawing.
        let gzipped = try renderDocument(path: TestAssets.path("svg/gzipped.svgz")).thumbnail.image
        #expect(gzipped.bytes == image.bytes)
    }

    @Test("the size comes from width and height, else from the viewBox")
    func intrinsicSize() throws {
        let large = try renderDocument(path: TestAssets.path("svg/large.svg")).thumbnail
        #expect(large.sourceWidth == 4000 && large.image.width == 1024 && large.image.height == 768)
        let viewBox = try renderDocument(path: TestAssets.path("svg/viewbox-only.svg")).thumbnail
        #expect(viewBox.sourceWidth == 800 && viewBox.sourceHeight == 600 && viewBox.image.height == 768)
    }

    @Test("with no width, height or viewBox, a drawing fills a square, and says so")
    func noSize() throws {
        let scratch = ScratchFolder()
        let path = try scratch.write(
            Array(
                "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect width=\"50\" height=\"50\" fill=\"#dc1e1e\"/></svg>"
                    .utf8), to: "no-size.svg")
        let rendered = try renderDocument(path: path).thumbnail
        #expect(rendered.image.width == 1024 && rendered.image.height == 1024)
        #expect(rendered.warnings.contains { $0.contains("drawn in a square") }, "\(rendered.warnings)")
    }

    @Test("text is drawn with the system's fonts")
    func text() throws {
        let image = try renderDocument(path: TestAssets.path("svg/text.svg")).thumbnail.image
        var dark = 0
        for y in 0..<image.height {
            for x in 0..<image.width where image.pixel(x: x, y: y).r < 80 { dark += 1 }
        }
        // Two lines of glyphs: some thousands of dark pixels on white, not none and not most.
        #expect(dark > 2000 && dark < image.width * image.height / 4, "\(dark) dark pixels")
    }

    @Test("no file, URL or other document outside it is drawn")
    func nothingFromOutside() throws {
        let image = try renderDocument(path: TestAssets.path("hostile/svg-external-image.svg")).thumbnail.image
        // White where anything is drawn (the last row, 0.7 of a pixel of the drawing, is partly
        // transparent).
        var notWhite = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let pixel = image.pixel(x: x, y: y)
                if pixel.a > 0 && (pixel.r, pixel.g, pixel.b) != (255, 255, 255) { notWhite += 1 }
            }
        }
        #expect(image.width == 1024 && image.height == 683 && notWhite == 0, "\(notWhite) pixels are not white")
        #expect(image.pixel(x: 512, y: 300).a == 255)
    }

    @Test(
        "bombs end in a one-line error or a thumbnail, never a hang",
        arguments: ["svg-entity-bomb.svg", "svg-deep-nesting.svg", "svg-huge-filter.svg", "svg-use-bomb.svg"])
    func bombs(_ name: String) {
        let started = ContinuousClock.now
        do {
            let image = try renderDocument(path: TestAssets.path("hostile/\(name)")).thumbnail.image
            #expect(max(image.width, image.height) == 1024)
        } catch {
            #expect(!error.description.contains("\n") && error.description.contains("SVG"), "\(error)")
        }
        // The worker's CPU limit is the real bound; in process, each must end well before it.
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test("broken XML is a one-line error naming SVG")
    func broken() {
        do {
            _ = try renderDocument(path: TestAssets.path("corrupt/broken.svg"))
            Issue.record("broken.svg rendered")
        } catch {
            #expect(error.description.hasPrefix("corrupt SVG data") && !error.description.contains("\n"), "\(error)")
        }
    }

    @Test("sniffing: the root element decides, after a declaration, comments and a DOCTYPE")
    func sniffing() {
        func sniff(_ text: String, named name: String = "drawing") -> SniffResult {
            ContentSniffer.sniff(prefix: Array(text.utf8), isWholeFile: true, fileName: name)
        }
        #expect(sniff("<svg xmlns=\"http://www.w3.org/2000/svg\"/>") == .supported(.svg))
        #expect(
            sniff(
                "\u{FEFF}<?xml version=\"1.0\"?>\n<!-- a <svg> in a comment -->\n<!DOCTYPE svg [<!ENTITY a \"b\">]>\n<svg>"
            )
                == .supported(.svg))
        #expect(sniff("<svgx/>") == .supported(.text))
        #expect(sniff("<html><svg/></html>") == .supported(.text))
        #expect(sniff("notes about <svg> elements") == .supported(.text))
    }
}

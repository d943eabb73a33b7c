import Foundation
import Testing

@Suite("glance thumbnail", .timeLimit(.minutes(10)))
struct ThumbnailCommandTests {
    @Test("writes OUT and prints 'OUT WIDTHxHEIGHT'")
    func success() async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = folder + "/letter.png"
        let result = try await GlanceProcess.run(["thumbnail", CLIAssets.path("pdf/letter.pdf"), "-o", out])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "\(out) 791x1024\n")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test("--page N draws a PDF's page N; a page it does not have is one line naming the count, exit 1")
    func pages() async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pdf = CLIAssets.path("pdf/a4-two-pages.pdf")
        let second = try await GlanceProcess.run(["thumbnail", pdf, "--page", "2", "-o", folder + "/2.png", "-v"])
        #expect(second.status == 0, "\(second.standardError)")
        // Page 1 is upright A4 (724x1024), page 2 turned.
        #expect(second.standardOutput == "\(folder)/2.png 1024x724\n")
        #expect(second.standardError.contains("page 2 of 2"))
        let third = try await GlanceProcess.run(["thumbnail", pdf, "--page", "3", "-o", folder + "/3.png"])
        #expect(third.status == 1)
        #expect(third.standardError == "glance: \(pdf): no page 3: the document has 2 pages\n")
        #expect(!FileManager.default.fileExists(atPath: folder + "/3.png"))
        let zero = try await GlanceProcess.run(["thumbnail", pdf, "--page", "0", "-o", folder + "/0.png"])
        #expect(zero.status == 2 && zero.standardError.contains("--page counts from 1"))
    }

    @Test(
        "an office document: drawn by LibreOffice, its slides its pages; the office options limit it, turn it off, and are checked"
    )
    func officeDocument() async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let deck = CLIAssets.path("office/deck.pptx")
        let second = try await GlanceProcess.run(["thumbnail", deck, "--page", "2", "-o", folder + "/2.png", "-v"])
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput == "\(folder)/2.png 1024x576\n")
        #expect(
            second.standardError.contains("PowerPoint presentation") && second.standardError.contains("page 2 of 3"))
        let missing = try await GlanceProcess.run(["thumbnail", deck, "--page", "4", "-o", folder + "/4.png"])
        #expect(missing.status == 1)
        #expect(missing.standardError == "glance: \(deck): no page 4: the document has 3 pages\n")

        // A sheet LibreOffice takes seconds over, past --office-timeout: one line naming the option.
        let rows = CLIAssets.path("office/rows-100k.xlsx")
        let late = try await GlanceProcess.run(["thumbnail", rows, "--office-timeout", "0.1", "-o", folder + "/r.png"])
        #expect(late.status == 1)
        #expect(late.standardError == "glance: \(rows): timed out after 0.1 s (--office-timeout)\n")
        #expect(!FileManager.default.fileExists(atPath: folder + "/r.png"))

        // No office renderers: a letter that carries no thumbnail of its own is not drawn, and says why.
        let letter = CLIAssets.path("office/letter.docx")
        let off = try await GlanceProcess.run(["thumbnail", letter, "--office-renderers", "0", "-o", folder + "/l.png"])
        #expect(off.status == 1)
        #expect(off.standardError.hasPrefix("glance: \(letter): not a supported document type (Word document files"))
        #expect(off.standardError.split(separator: "\n").count == 1)

        for (option, value, words) in [
            ("--office-memory-limit", "100", "--office-memory-limit must be between 1024"),
            ("--office-renderers", "17", "--office-renderers must be between 0 and 16"),
            ("--office-timeout", "0", "--office-timeout must be a number of seconds above 0"),
        ] {
            let refused = try await GlanceProcess.run(["thumbnail", letter, option, value, "-o", folder + "/x.png"])
            #expect(refused.status == 2 && refused.standardError.contains(words), "\(option) \(value)")
        }
    }

    @Test("the default OUT is FILE's name + .thumbnail.jpg (auto: JPEG for photos) in the current folder")
    func defaultOutput() async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let photo = try await GlanceProcess.run(["thumbnail", CLIAssets.path("jpeg/photo-baseline.jpg")], in: folder)
        #expect(photo.standardOutput == "photo-baseline.jpg.thumbnail.jpg 1024x768\n")
        let written = try Data(contentsOf: URL(fileURLWithPath: folder + "/photo-baseline.jpg.thumbnail.jpg"))
        #expect(written.starts(with: [0xFF, 0xD8, 0xFF]))
        let page = try await GlanceProcess.run(["thumbnail", CLIAssets.path("text/latin-utf8.txt")], in: folder)
        #expect(page.standardOutput == "latin-utf8.txt.thumbnail.png 724x1024\n")
        let forced = try await GlanceProcess.run(
            ["thumbnail", CLIAssets.path("png/rgb8.png"), "--format", "jpeg"], in: folder)
        #expect(forced.standardOutput == "rgb8.png.thumbnail.jpg 200x150\n")
    }

    @Test(
        "a failure is one line naming the file and the cause, exit 1, no OUT left",
        arguments: [
            ("pdf/encrypted-user.pdf", "encrypted PDF, needs a password"),
            ("corrupt/truncated-header.jpg", "truncated JPEG data"),
            ("corrupt/huge-dimensions.png", "image of 20000x20000 exceeds the 100-megapixel limit (--max-pixels)"),
            ("corrupt/unknown.bin", "not a supported document type"),
            ("corrupt/empty.jpg", "empty file"),
            ("corrupt/bad-crc.png", "corrupt PNG data"),
            ("no/such/file.png", "cannot read the file: No such file or directory"),
        ])
    func failure(file: String, reason: String) async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = folder + "/out.png"
        let path = CLIAssets.path(file)
        let result = try await GlanceProcess.run(["thumbnail", path, "-o", out])
        #expect(result.status == 1)
        #expect(result.errorLines.count == 1)
        #expect(result.errorLines.first?.hasPrefix("glance: \(path): \(reason)") == true, "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "nothing half-made left")
    }

    @Test(
        "a decoder that crashes or hangs costs this file only: one line, exit 1, no OUT",
        arguments: [
            (["--debug-crash-on", "*.png"], "renderer crashed (signal 11)"),
            (["--debug-hang-on", "*.png", "--timeout", "1"], "timed out after 1 s (--timeout)"),
        ])
    func supervised(options: [String], reason: String) async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = CLIAssets.path("png/rgb8.png")
        let result = try await GlanceProcess.run(["thumbnail", path, "-o", folder + "/x.png"] + options)
        #expect(result.status == 1)
        #expect(result.standardError == "glance: \(path): \(reason)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("--max-pixels lowers the limit")
    func maxPixels() async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = CLIAssets.path("png/photo-like.png")
        let result = try await GlanceProcess.run([
            "thumbnail", path, "-o", folder + "/x.png", "--max-pixels", "1000000",
        ])
        #expect(result.status == 1)
        #expect(
            result.standardError == "glance: \(path): image of 2000x1500 exceeds the 1-megapixel limit (--max-pixels)\n"
        )
    }

    @Test(
        "bad usage exits 2 with a message",
        arguments: [
            ["thumbnail"],
            ["thumbnail", "a.png", "-o", "out.gif"],
            ["thumbnail", "a.png", "-o", "out.png", "--format", "jpeg"],
            ["thumbnail", "a.png", "--format", "webp"],
            ["thumbnail", "a.png", "--max-pixels", "0"],
            ["frobnicate"],
        ])
    func usage(arguments: [String]) async throws {
        let result = try await GlanceProcess.run(arguments)
        #expect(result.status == 2, "\(arguments): \(result.standardError)")
        #expect(!result.standardError.isEmpty)
    }

    @Test("--help explains the command and exits 0")
    func help() async throws {
        let result = try await GlanceProcess.run(["thumbnail", "--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("--max-pixels"))
        #expect(result.standardOutput.contains("fits 1024x1024"))
        // glance's own help names every family it draws, not only its first three.
        let top = try await GlanceProcess.run(["--help"])
        #expect(top.status == 0)
        let overview = (top.standardOutput.components(separatedBy: "USAGE:").first ?? "")
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for family in ["PDFs", "images", "text", "office files", "videos", "camera raw", "e-books", "comics"] {
            #expect(overview.contains(family), "\(family): \(overview)")
        }
    }

    @Test("--verbose reports decoder warnings for a truncated JPEG but still renders it")
    func verbose() async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await GlanceProcess.run([
            "thumbnail", CLIAssets.path("corrupt/truncated.jpg"), "-o", folder + "/t.png", "-v",
        ])
        #expect(result.status == 0)
        #expect(result.standardError.contains("warning: truncated JPEG data"))
    }
}

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `glance list --preview`: the grid of stored thumbnails, as a script or a pipe sees it (the
/// real terminals are Tests/EndToEnd/Terminal/test_terminal.py's).
@Suite("glance list --preview", .timeLimit(.minutes(10)))
struct PreviewListingCommandTests {
    static func generated(_ files: [String: String]) async throws -> SampleContainer {
        let container = try SampleContainer(files)
        let made = try await GlanceProcess.run(["generate", container.path, "--jobs", "2"])
        #expect(made.status == 0 || made.status == 1, "\(made.standardError)")
        return container
    }

    @Test("on a pipe a bare --preview prints the table unchanged and no escape sequence; -v says why")
    func pipeWithoutMode() async throws {
        let container = try await Self.generated(["a.png": "png/rgb8.png", "b.jpg": "jpeg/photo-baseline.jpg"])
        let table = try await GlanceProcess.run(["list", container.path])
        let preview = try await GlanceProcess.run(["list", container.path, "--preview", "-v"])
        #expect(preview.status == 0)
        #expect(preview.standardOutput == table.standardOutput)
        #expect(!preview.standardOutput.contains("\u{1B}"))
        #expect(preview.standardError.contains("standard output is not a terminal"), "\(preview.standardError)")
        // A bare --preview before the pattern leaves the pattern alone.
        let matched = try await GlanceProcess.run(["list", container.path, "--preview", "*.png"])
        #expect(matched.standardOutput.contains("a.png") && !matched.standardOutput.contains("b.jpg"))
    }

    @Test("a named mode draws on a pipe too: the grid follows COLUMNS, names are escaped on one line, --limit applies")
    func symbolsGrid() async throws {
        let container = try await Self.generated([
            "a.png": "png/rgb8.png", "b.jpg": "jpeg/photo-baseline.jpg", "c.pdf": "pdf/letter.pdf",
            "d.txt": "text/latin-utf8.txt", "broken.png": "corrupt/bad-crc.png", "two\nlines.png": "png/gray8.png",
        ])
        let wide = try await GlanceProcess.run(
            ["list", container.path, "--preview=symbols"], environment: ["COLUMNS": "80"])
        #expect(wide.status == 0, "\(wide.standardError)")
        let lines = wide.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        // Three tiles to a row at 80 columns: names in the rows' name lines.
        let nameLines = lines.filter { $0.hasPrefix("a.png") || $0.hasPrefix("c.pdf") || $0.hasPrefix("two") }
        #expect(nameLines.contains { $0.contains("a.png") && $0.contains("b.jpg") && $0.contains("broken.png") })
        #expect(nameLines.contains { $0.contains("c.pdf") && $0.contains("d.txt") && $0.contains("two\\nlines.png") })
        #expect(wide.standardOutput.contains("failed: "))
        // Only SGR sequences: no cursor movement in symbols.
        let sequences = wide.standardOutput.matches(of: /\x{1B}\[[0-9;]*([A-Za-z])/).map { String($0.output.1) }
        #expect(!sequences.isEmpty && Set(sequences) == ["m"], "\(Set(sequences))")
        let narrow = try await GlanceProcess.run(
            ["list", container.path, "--preview=symbols"], environment: ["COLUMNS": "45"])
        let narrowNames = narrow.standardOutput.split(separator: "\n").filter { $0.hasPrefix("a.png") }
        #expect(narrowNames.count == 1 && narrowNames[0].contains("b.jpg") && !narrowNames[0].contains("broken"))
        let limited = try await GlanceProcess.run(
            ["list", container.path, "--preview=symbols", "--limit", "2", "--offset", "1"],
            environment: ["COLUMNS": "200"])
        let limitedNames = limited.standardOutput.split(separator: "\n").filter { $0.hasPrefix("b.jpg") }
        #expect(limitedNames.count == 1 && limitedNames[0].contains("broken.png") && !limitedNames[0].contains("c.pdf"))
    }

    @Test("pictures come from the store, not the documents: a document overwritten in place still shows its thumbnail")
    func fromTheStore() async throws {
        let container = try await Self.generated(["a.png": "png/rgb8.png", "b.jpg": "jpeg/photo-baseline.jpg"])
        // Zeros in place of the PNG, same size and time: still fresh by stat, and undecodable.
        let path = container.path + "/a.png"
        var status = stat()
        #expect(stat(path, &status) == 0)
        try Data(count: Int(status.st_size)).write(to: URL(fileURLWithPath: path))
        var times = [status.st_atim, status.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        for mode in ["sixel", "kitty", "iterm"] {
            let drawn = try await GlanceProcess.run(["list", container.path, "--preview=\(mode)"])
            #expect(drawn.status == 0, "\(drawn.standardError)")
            let starts = ["sixel": "\u{1B}P", "kitty": "\u{1B}_Ga=T", "iterm": "\u{1B}]1337;File="][mode]!
            #expect(drawn.standardOutput.components(separatedBy: starts).count == 3, "\(mode)")
            #expect(drawn.standardOutput.contains("a.png") && drawn.standardOutput.contains("fresh"))
        }
    }

    @Test("show --preview draws the one thumbnail as large as the terminal allows, above the attributes")
    func show() async throws {
        let container = try await Self.generated(["a.png": "png/rgb8.png"])
        let plain = try await GlanceProcess.run(["show", container.path, "a.png"])
        let piped = try await GlanceProcess.run(["show", container.path, "a.png", "--preview"])
        #expect(piped.standardOutput == plain.standardOutput && !piped.standardOutput.contains("\u{1B}"))
        let drawn = try await GlanceProcess.run(
            ["show", container.path, "a.png", "--preview=symbols"], environment: ["COLUMNS": "60", "LINES": "40"])
        #expect(drawn.status == 0, "\(drawn.standardError)")
        #expect(drawn.standardOutput.hasSuffix(plain.standardOutput), "the attributes follow the picture")
        let picture = drawn.standardOutput.dropLast(plain.standardOutput.count)
            .split(separator: "\n").filter { $0.contains("\u{1B}[") }
        // A 4:3 picture at 60 columns of 10x20 cells: 60 wide, about 22 rows, within 40 less
        // the attributes' lines.
        let widths = picture.map {
            $0.replacing(/\x{1B}\[[0-9;]*m/, with: "").trimmingCharacters(in: .whitespaces).count
        }
        #expect(picture.count >= 15 && picture.count <= 27, "\(picture.count) rows")
        #expect(widths.max() == 60, "\(widths)")
    }

    @Test("a mode that is not one is refused with the modes")
    func badMode() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        let refused = try await GlanceProcess.run(["list", container.path, "--preview=png"])
        #expect(refused.status == 2 && refused.standardError.contains("--preview"), "\(refused.standardError)")
        let json = try await GlanceProcess.run(["list", container.path, "--preview=symbols", "--json"])
        #expect(json.status == 2 && json.standardError.contains("--json"), "\(json.standardError)")
    }
}

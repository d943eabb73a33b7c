import Foundation
import Testing

/// Every limit has a name and an option: each refusal says which limit it met and how to raise it.
@Suite("Limits", .timeLimit(.minutes(10)))
struct LimitTests {
    @Test("--max-file-size refuses a larger image or PDF, naming the option; text is exempt; the default renders it")
    func maxFileSize() async throws {
        let container = try SampleContainer([:])
        // A PNG with 1.5 MiB after its end (decoders stop at IEND), and 1.5 MiB of text.
        var png = try Data(contentsOf: URL(fileURLWithPath: CLIAssets.path("png/rgb8.png")))
        png.append(Data(repeating: 0x20, count: 3 << 19))
        try png.write(to: URL(fileURLWithPath: container.file("padded.png")))
        try Data(String(repeating: "A line of text.\n", count: 98_304).utf8).write(
            to: URL(fileURLWithPath: container.file("long.txt")))
        let refused = try await GlanceProcess.run([
            "thumbnail", container.file("padded.png"), "-o", container.output("p.png"), "--max-file-size", "1",
        ])
        #expect(refused.status == 1)
        #expect(
            refused.standardError
                == "glance: \(container.file("padded.png")): file of 1.5 MiB exceeds the 1 MiB limit on a "
                + "document's size (--max-file-size)\n")
        let text = try await GlanceProcess.run([
            "thumbnail", container.file("long.txt"), "-o", container.output("t.png"), "--max-file-size", "1",
        ])
        #expect(text.status == 0, "\(text.standardError)")
        let (summary, result) = try await container.generate(["--max-file-size", "1"])
        #expect(result.status == 1)
        #expect(summary["rendered"] as? Int == 1)
        let (again, fine) = try await container.generate(["--retry-failed"])
        #expect(fine.status == 0)
        #expect(again["rendered"] as? Int == 1)
    }

    @Test("hook, watch and serve take the same limits: a hook render refuses past --max-file-size")
    func serviceLimits() async throws {
        var png = try Data(contentsOf: URL(fileURLWithPath: CLIAssets.path("png/rgb8.png")))
        png.append(Data(repeating: 0, count: 3 << 19))
        let limited = try SampleContainer([:])
        try png.write(to: URL(fileURLWithPath: limited.file("padded.png")))
        let refused = try await GlanceProcess.run(["hook", limited.path, "padded.png", "--max-file-size", "1"])
        #expect(refused.status == 1)
        #expect(
            refused.standardOutput
                == "padded.png failed: file of 1.5 MiB exceeds the 1 MiB limit on a document's size (--max-file-size)\n"
        )
        let free = try SampleContainer([:])
        try png.write(to: URL(fileURLWithPath: free.file("padded.png")))
        let rendered = try await GlanceProcess.run(["hook", free.path, "padded.png"])
        #expect(rendered.status == 0, "\(rendered.standardOutput)\(rendered.standardError)")
        for command in ["watch", "serve"] {
            let help = try await GlanceProcess.run([command, "--help"])
            #expect(help.standardOutput.contains("--max-file-size <MiB>"), "\(command)")
            #expect(help.standardOutput.contains("--max-pixels"), "\(command)")
        }
    }

    @Test("the time, memory and pixel refusals each name their option")
    func namedRefusals() async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let hang = try await GlanceProcess.run([
            "thumbnail", CLIAssets.path("png/rgb8.png"), "-o", folder + "/x.png", "--debug-hang-on", "*", "--timeout",
            "0.5",
        ])
        #expect(hang.standardError.hasSuffix("timed out after 0.5 s (--timeout)\n"))
        let memory = try await GlanceProcess.run([
            "thumbnail", CLIAssets.path("png/interlaced-6000-rgba.png"), "-o", folder + "/x.png", "--memory-limit",
            "150",
        ])
        #expect(memory.status == 1)
        #expect(memory.standardError.hasSuffix("(--memory-limit)\n"), "\(memory.standardError)")
        let pixels = try await GlanceProcess.run([
            "thumbnail", CLIAssets.path("png/rgb8.png"), "-o", folder + "/x.png", "--max-pixels", "100",
        ])
        #expect(pixels.standardError.hasSuffix("(--max-pixels)\n"))
    }

    @Test("a PDF page of absurd size is refused as malformed (a fuzzer's find, TestAssets/hostile)")
    func hugeMediaBox() async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = CLIAssets.path("hostile/huge-mediabox.pdf")
        let result = try await GlanceProcess.run(["thumbnail", path, "-o", folder + "/x.png"])
        #expect(result.status == 1)
        #expect(
            result.standardError
                == "glance: \(path): malformed PDF: page 1 is larger than 1000000 points, beyond any real page\n")
    }
}

import Foundation
import GlancePipeline
import Testing

/// `GLANCE_SIMD_DISABLE`: the switch that makes this machine measure like one without AVX2 or the
/// SHA extensions. The portable paths it selects must give the same documents' digests and
/// thumbnails of the same size as the fast ones.
@Suite("SIMD switches", .timeLimit(.minutes(10)))
struct ProcessorFeatureTests {
    @Test("--version says which extensions renderers use, and which the variable turned off")
    func versionSaysFeatures() async throws {
        let detected = ProcessorFeatures.current()
        let all = try await GlanceProcess.run(["--version"], environment: ["GLANCE_SIMD_DISABLE": "all"])
        #expect(all.status == 0)
        #expect(all.standardOutput.contains("; SIMD: none beyond SSE2"), "\(all.standardOutput)")
        if !detected.inUse.isEmpty {
            let list = detected.inUse.joined(separator: " ")
            #expect(all.standardOutput.contains("off by GLANCE_SIMD_DISABLE: \(list))"), "\(all.standardOutput)")
        }
        let plain = try await GlanceProcess.run(["--version"], environment: ["GLANCE_SIMD_DISABLE": ""])
        #expect(!plain.standardOutput.contains("off by"), "\(plain.standardOutput)")
    }

    @Test("a misspelt name is refused before any work, naming it")
    func misspeltNameRefused() async throws {
        let container = try SampleContainer(["notes.txt": "text/latin-utf8.txt"])
        let result = try await GlanceProcess.run(
            ["generate", container.path], environment: ["GLANCE_SIMD_DISABLE": "avx2,avx512"])
        #expect(result.status == 2)
        let expected =
            "glance: GLANCE_SIMD_DISABLE names \"avx512\", which is not one of ssse3, sse4_1, avx2, sha_ni, all."
        #expect(result.standardError == expected + "\n")
        #expect(!FileManager.default.fileExists(atPath: container.file(".thumbnails")))
    }

    @Test("with every extension off, the digests are the same and the thumbnails as large")
    func portablePathsAgree() async throws {
        let fast = try SampleContainer.standard()
        let portable = try SampleContainer.standard()
        let (fastSummary, fastRun) = try await fast.generate()
        let result = try await GlanceProcess.run(
            ["generate", portable.path, "--json", "--jobs", "2"], environment: ["GLANCE_SIMD_DISABLE": "all"])
        #expect(fastRun.status == 0 && result.status == 0, "\(result.standardError)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        #expect(summary?["rendered"] as? Int == fastSummary["rendered"] as? Int)
        let fastRows = try await fast.list()
        let portableRows = try await portable.list()
        #expect(fastRows.count == 9 && portableRows.count == 9)
        for (path, row) in fastRows {
            let other = portableRows[path]
            let digest = row["digest"] as? String
            // Every document but the unsupported one was read, so has a digest.
            #expect((digest?.hasPrefix("sha256:") == true) == (path != "data.bin"), "\(path)")
            #expect(other?["digest"] as? String == digest, "\(path)")
            #expect(thumbnailSize(other) == thumbnailSize(row), "\(path)")
        }
    }
}

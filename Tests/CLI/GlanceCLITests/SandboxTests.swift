import Foundation
import Testing

/// The renderers' sandbox, seen from the command line: a worker that does what a compromised
/// decoder would is killed and its document fails with one line; the same hooks outside the
/// sandbox succeed, which shows that the sandbox is what stopped them.
@Suite("renderer sandbox", .timeLimit(.minutes(10)))
struct SandboxTests {
    @Test(
        "a renderer that opens a socket, creates a file or runs a program is killed: one line, exit 1",
        arguments: ["--debug-socket-on", "--debug-write-on", "--debug-exec-on"])
    func violationKills(trigger: String) async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = CLIAssets.path("png/rgb8.png")
        let result = try await GlanceProcess.run(["thumbnail", path, "-o", folder + "/x.png", trigger, "*.png"])
        #expect(result.status == 1)
        #expect(
            result.standardError
                == "glance: \(path): renderer violated its sandbox (a forbidden system call) and was killed\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("--no-sandbox: the same hooks succeed, and glance says that renderers run unconfined")
    func withoutSandbox() async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = CLIAssets.path("png/rgb8.png")
        let socket = try await GlanceProcess.run(
            ["thumbnail", path, "-o", folder + "/x.png", "--debug-socket-on", "*.png", "--no-sandbox"])
        #expect(
            socket.errorLines == [
                "glance: renderers run without a sandbox (--no-sandbox)",
                "glance: \(path): escape: opened a network socket",
            ])
        let write = try await GlanceProcess.run(
            ["thumbnail", path, "-o", folder + "/x.png", "--debug-write-on", "*.png", "--no-sandbox"])
        #expect(write.errorLines.last?.contains("escape: created and removed /tmp/glance-escape-") == true)
        let plain = try await GlanceProcess.run(["thumbnail", path, "-o", folder + "/x.png", "--no-sandbox"])
        #expect(plain.status == 0)
    }

    @Test("in a batch, the violating document fails with the reason and the others render; --json names the sandbox")
    func batch() async throws {
        let container = try SampleContainer.standard()
        try container.add("escape.png", from: "png/rgb8.png")
        let (summary, result) = try await container.generate(["--debug-socket-on", "escape.*"])
        #expect(result.status == 1)
        #expect(summary["rendered"] as? Int == 8)
        let failures = summary["failures"] as? [[String: Any]] ?? []
        #expect(failures.map { $0["path"] as? String } == ["escape.png"])
        #expect(
            failures.first?["error"] as? String
                == "renderer violated its sandbox (a forbidden system call) and was killed")
        // make test installs bubblewrap, and CI and this machine allow its namespaces.
        #expect(summary["sandbox"] as? String == "bubblewrap+seccomp")
        let rows = try await container.list()
        #expect(rows["escape.png"]?["state"] as? String == "failed")
    }

    @Test("GIF, TIFF, HEIC, AVIF and SVG render inside the sandbox; hostile SVGs end in one line each")
    func newFormatsInTheSandbox() async throws {
        // What libheif (libnuma through x265, libde265's threads), libtiff and librsvg (Rust's
        // runtime, fontconfig) call must fit the seccomp filter and bubblewrap's view.
        let container = try SampleContainer([
            "still.gif": "gif/still.gif", "animated.gif": "gif/animated.gif", "scan.tiff": "tiff/tiled-jpeg.tiff",
            "pages.tiff": "tiff/multipage.tiff", "photo.heic": "heif/photo.heic",
            "small.heic": "heif/photo-with-thumbnail.heic", "p3.heic": "colour/display-p3.heic",
            "photo.avif": "heif/photo.avif", "shapes.svg": "svg/shapes.svg", "text.svg": "svg/text.svg",
            "outside.svg": "hostile/svg-external-image.svg", "bomb.svg": "hostile/svg-use-bomb.svg",
            "laughs.svg": "hostile/svg-entity-bomb.svg",
        ])
        let (summary, result) = try await container.generate()
        #expect(summary["sandbox"] as? String == "bubblewrap+seccomp")
        let failures = summary["failures"] as? [[String: Any]] ?? []
        let failed = Set(failures.compactMap { $0["path"] as? String })
        #expect(failed.isSubset(of: ["bomb.svg", "laughs.svg"]), "\(failures)")
        #expect(summary["rendered"] as? Int == 13 - failed.count, "\(result.standardError)")
        for failure in failures {
            let error = failure["error"] as? String ?? ""
            #expect(error.hasPrefix("corrupt SVG data") && !error.contains("\n"), "\(error)")
        }
        let rows = try await container.list()
        #expect(thumbnailSize(rows["photo.heic"]) == "1024x768")
        #expect(thumbnailSize(rows["pages.tiff"]) == "300x200")
        #expect(rows["photo.avif"]?["mimeType"] as? String == "image/avif")
    }

    @Test("BMP, icons, cursors, Targa and Netpbm render inside the sandbox, gdk-pixbuf's loaders loaded there")
    func bitmapsInTheSandbox() async throws {
        // gdk-pixbuf loads its library and a format's loader module on the first such file, as
        // librsvg and libheif are loaded: what that reads must fit bubblewrap's view and seccomp.
        let container = try SampleContainer([
            "v3.bmp": "bitmaps/v3.bmp", "rle.bmp": "bitmaps/rle8.bmp", "icon.ico": "bitmaps/icon.ico",
            "small.ico": "bitmaps/small.ico", "pointer.cur": "bitmaps/pointer.cur", "rle.tga": "bitmaps/rle.tga",
            "plain.pbm": "bitmaps/plain.pbm", "deep.pgm": "bitmaps/deep.pgm", "cut.bmp": "bitmaps/truncated.bmp",
        ])
        let (summary, result) = try await container.generate()
        #expect(summary["sandbox"] as? String == "bubblewrap+seccomp")
        let failures = summary["failures"] as? [[String: Any]] ?? []
        #expect(failures.compactMap { $0["path"] as? String } == ["cut.bmp"], "\(failures)")
        #expect(failures.first?["error"] as? String == "truncated BMP data")
        #expect(summary["rendered"] as? Int == 8, "\(result.standardError)")
        let rows = try await container.list()
        #expect(thumbnailSize(rows["icon.ico"]) == "256x256")
        #expect(thumbnailSize(rows["small.ico"]) == "48x48")
        #expect(thumbnailSize(rows["rle.tga"]) == "40x30")
        #expect(rows["pointer.cur"]?["mimeType"] as? String == "image/x-win-bitmap")
        #expect(rows["plain.pbm"]?["mimeType"] as? String == "image/x-portable-anymap")
    }

    @Test("videos and sound files render inside the sandbox; their details are listed; a playlist is not opened")
    func mediaInTheSandbox() async throws {
        // What FFmpeg's libraries call (libssh's gcrypt mlock among them) must fit the seccomp
        // filter, and a cover goes to the image decoders through memfd_create.
        let container = try SampleContainer([
            "clip.mp4": "media/fade-in.mp4", "portrait.mov": "media/portrait.mov", "hdr.mp4": "media/hdr10.mp4",
            "hlg.mkv": "media/hlg.mkv", "clip.webm": "media/vp9.webm", "song.mp3": "media/cover.mp3",
            "song.opus": "media/cover.opus", "plain.flac": "media/no-cover.flac", "dv5.mp4": "media/dolby-vision-5.mp4",
            "playlist.mp4": "hostile/playlist.mp4",
        ])
        let (summary, result) = try await container.generate()
        #expect(summary["sandbox"] as? String == "bubblewrap+seccomp")
        #expect(summary["rendered"] as? Int == 8, "\(result.standardError)")
        #expect(summary["unsupported"] as? Int == 1)
        let failures = summary["failures"] as? [[String: Any]] ?? []
        #expect(failures.count == 1 && failures.first?["path"] as? String == "dv5.mp4", "\(failures)")
        let rows = try await container.list()
        #expect(thumbnailSize(rows["portrait.mov"]) == "180x320")
        #expect(thumbnailSize(rows["song.mp3"]) == "1024x768")
        #expect(rows["playlist.mp4"]?["kind"] as? String == "text")
        let clip = (rows["clip.mp4"]?["details"] as? [String: Any])?["media"] as? [String: Any]
        #expect(clip?["videoCodec"] as? String == "h264" && clip?["audioCodec"] as? String == "aac", "\(clip ?? [:])")
        #expect(clip?["picture"] as? String == "frame" && clip?["width"] as? Int == 320)
        let hdr = (rows["hdr.mp4"]?["details"] as? [String: Any])?["media"] as? [String: Any]
        #expect(hdr?["hdr"] as? String == "PQ")
        let plain = rows["plain.flac"]
        #expect(plain?["state"] as? String == "unsupported")
        #expect((plain?["error"] as? String)?.contains("no cover picture") == true, "\(plain ?? [:])")
        let length = ((plain?["details"] as? [String: Any])?["media"] as? [String: Any])?["durationSeconds"] as? Double
        #expect(abs((length ?? 0) - 2) < 0.1)
    }

    @Test("--cpu-limit: a renderer that spins is killed for CPU time, well before the wall-clock limit")
    func cpuLimit() async throws {
        let container = try SampleContainer(["spin.png": "png/rgb8.png", "fine.png": "png/gray8.png"])
        let started = Date()
        let (summary, result) = try await container.generate(
            ["--debug-spin-on", "spin.*", "--cpu-limit", "1", "--timeout", "120", "--jobs", "1"])
        #expect(result.status == 1)
        #expect(Date().timeIntervalSince(started) < 60, "killed by the CPU limit, not the 120 s timeout")
        let failures = summary["failures"] as? [[String: Any]] ?? []
        #expect(failures.first?["error"] as? String == "renderer used more than 1 s of CPU time (--cpu-limit)")
        #expect(summary["rendered"] as? Int == 1)
    }

    @Test("--version names the sandbox renderers get here")
    func version() async throws {
        let result = try await GlanceProcess.run(["--version"])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("glance 0."))
        #expect(result.standardOutput.contains("(renderer sandbox: bubblewrap+seccomp; SIMD: "))
    }

    @Test("--cpu-limit is checked: a negative value is bad usage")
    func cpuLimitChecked() async throws {
        let result = try await GlanceProcess.run(["thumbnail", CLIAssets.path("png/rgb8.png"), "--cpu-limit=-1"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--cpu-limit must be between 0 (no limit) and 86400 seconds."))
    }

    @Test("a negative number as its own argument reaches the option's check, not 'Missing value'")
    func negativeNumbers() async throws {
        for (arguments, message) in [
            (["--cpu-limit", "-1"], "--cpu-limit must be between 0 (no limit) and 86400 seconds."),
            (["--timeout", "-0.5"], "--timeout must be a number of seconds above 0"),
            (["--max-pixels", "-5"], "--max-pixels must be between 1 and"),
        ] {
            let result = try await GlanceProcess.run(["thumbnail", CLIAssets.path("png/rgb8.png")] + arguments)
            #expect(result.status == 2)
            #expect(result.standardError.hasPrefix("Error: \(message)"), "\(arguments): \(result.standardError)")
        }
        // `--` is not a value: the -1 after it is never taken for the timeout.
        let named = try await GlanceProcess.run(["thumbnail", "--timeout", "--", "-1"])
        #expect(named.status == 2)
        #expect(named.standardError.contains("The value '--' is invalid for '--timeout"), "\(named.standardError)")
        #expect(!named.standardError.contains("above 0"))
    }

    @Test("a PostScript loop meets the CPU limit: one line, well before the time limit")
    func postScriptLoop() async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loop = folder + "/loop.ps"
        FileManager.default.createFile(atPath: loop, contents: Data("%!PS\n{ 1 pop } loop\n".utf8))
        let started = Date()
        let result = try await GlanceProcess.run(
            ["thumbnail", loop, "-o", folder + "/x.png", "--cpu-limit", "1", "--timeout", "120"])
        #expect(Date().timeIntervalSince(started) < 60, "killed by the CPU limit, not the 120 s timeout")
        #expect(result.status == 1)
        #expect(result.errorLines == ["glance: \(loop): renderer used more than 1 s of CPU time (--cpu-limit)"])
    }

    @Test(
        "strace: a PostScript program that runs or reads another file, an indirect DjVu document and an XPS page's image outside its package open nothing outside the document",
        arguments: [
            ("postscript/runs-file.ps", "/etc/hostname", "/usr/share/ghostscript/", "asks for a file outside itself"),
            ("postscript/reads-file.ps", "/etc/passwd", "/usr/share/ghostscript/", "asks for a file outside itself"),
            // Its pages' files are beside it, under the names it gives them.
            ("djvu/indirect.djvu", "djvu/photo.djvu", "libdjvulibre", "indirect DjVu document"),
            // Drawn, without the image.
            ("xps/outside-image.xps", "/etc/hostname", "libgxps", nil),
        ])
    func opensNothingOutside(_ asset: String, target: String, library: String, reason: String?) async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let log = folder + "/trace"
        let result = try await GlanceProcess.run(
            [
                "-f", "-e", "trace=open,openat,openat2,connect", "-o", log, GlanceProcess.executable, "thumbnail",
                CLIAssets.path(asset), "-o", folder + "/x.png",
            ], executable: "/usr/bin/strace")
        if let reason {
            #expect(result.status == 1)
            #expect(result.standardError.contains(reason), "\(result.standardError)")
        } else {
            #expect(result.status == 0, "\(result.standardError)")
        }
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        // The renderer loaded the library (it opened it), and opened no file the document asked for.
        let renderers = Set(lines.filter { $0.contains(library) }.compactMap { $0.split(separator: " ").first })
        #expect(!renderers.isEmpty, "\(library) was not loaded")
        let opened = lines.filter { line in
            renderers.contains(line.split(separator: " ").first ?? "")
                && (line.contains(target) || line.contains("connect("))
        }
        #expect(opened.isEmpty, "\(opened)")
    }

}

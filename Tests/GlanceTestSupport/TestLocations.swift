import Foundation

/// Where tests find what they need: the repository's `TestAssets/` folder (from this file's
/// path) and the `glance` executable that SwiftPM built beside the test bundle.
public enum TestLocations {
    /// The absolute path of `TestAssets/`.
    public static let assets: String = {
        var components = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // Tests/GlanceTestSupport/TestLocations.swift
        return components.joined(separator: "/") + "/TestAssets"
    }()

    /// The absolute path of an asset given relative to `TestAssets/`.
    public static func asset(_ relative: String) -> String { assets + "/" + relative }

    /// The `glance` executable next to the running test bundle.
    public static let glance: String = {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        // The test bundle may be a directory (`X.xctest/...`) or a plain file.
        while !FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("glance").path),
            folder.path != "/"
        {
            folder = folder.deletingLastPathComponent()
        }
        return folder.appendingPathComponent("glance").path
    }()

    /// The `glance-renderer` executable beside `glance`.
    public static let worker: String = {
        (glance as NSString).deletingLastPathComponent + "/glance-renderer"
    }()
}

// swift-tools-version: 6.0
// Glance: thumbnails and previews for folders of documents.
//
// Layers, and the direction of dependencies (see docs/architecture.md):
//   C shims (CJPEG, CPNG, CGraphics, CUchardet, CScaler, CProcess, CFileAccess, CDigest)
//     -> GlanceCore (file names as bytes, display escaping, file identity, open files; no C)
//     -> GlanceRender (sniffing, decoders, renderers, resampler, encoders)
//     -> GlanceStore (the sidecar: SQLite through GRDB, behind the ThumbnailStore protocol)
//     -> GlancePipeline (container scan, freshness, supervised worker processes, batch generation)
//     -> GlanceListing (promised-item attributes, the preview listing)
//     -> glance (the command line)
import PackageDescription

let package = Package(
    name: "Glance",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "glance", targets: ["glance"]),
        .library(name: "GlanceRender", targets: ["GlanceRender"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    ],
    targets: [
        // MARK: C shims, one per concern.
        .target(
            name: "CJPEG",
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("jpeg")]
        ),
        .target(
            name: "CPNG",
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("png16")]
        ),
        .target(
            name: "CScaler",
            cSettings: [.unsafeFlags(["-O3", "-ffast-math", "-fno-math-errno"])]
        ),
        .target(name: "CProcess"),
        .target(name: "CFileAccess"),
        .target(name: "CRenderGuard", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CDigest", linkerSettings: [.linkedLibrary("crypto")]),
        .systemLibrary(
            name: "CGraphics",
            pkgConfig: "pangocairo",
            providers: [.apt(["libpoppler-glib-dev", "libpango1.0-dev", "libcairo2-dev"])]
        ),
        .systemLibrary(
            name: "CUchardet",
            pkgConfig: "uchardet",
            providers: [.apt(["libuchardet-dev"])]
        ),

        // MARK: Swift layers.
        .target(name: "GlanceCore"),
        .target(
            name: "GlanceRender",
            dependencies: [
                "GlanceCore", "CJPEG", "CPNG", "CScaler", "CGraphics", "CUchardet", "CDigest", "CRenderGuard",
            ]
        ),
        .target(
            name: "GlanceStore",
            dependencies: ["GlanceCore", "GlanceRender", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "GlancePipeline",
            dependencies: ["CProcess", "CFileAccess", "GlanceCore", "GlanceRender", "GlanceStore"]),
        .target(
            name: "GlanceListing", dependencies: ["GlanceCore", "GlanceRender", "GlanceStore", "GlancePipeline"]),
        .executableTarget(
            name: "glance",
            dependencies: [
                "GlanceCore",
                "GlanceRender",
                "GlanceStore",
                "GlancePipeline",
                "GlanceListing",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: Tests, one target per module, and one helper they share.
        .target(name: "GlanceTestSupport", path: "Tests/GlanceTestSupport"),
        .testTarget(name: "GlanceCoreTests", dependencies: ["GlanceCore"]),
        .testTarget(name: "GlanceRenderTests", dependencies: ["GlanceCore", "GlanceRender", "GlanceTestSupport"]),
        .testTarget(name: "GlanceStoreTests", dependencies: ["GlanceCore", "GlanceStore"]),
        .testTarget(
            name: "GlancePipelineTests",
            dependencies: ["glance", "GlanceCore", "GlancePipeline", "GlanceStore", "GlanceTestSupport"]),
        .testTarget(name: "GlanceListingTests", dependencies: ["GlanceCore", "GlanceListing", "GlanceStore"]),
        .testTarget(
            name: "GlanceCLITests",
            dependencies: ["glance", "GlanceCore", "GlanceRender", "GlanceStore", "GlanceTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

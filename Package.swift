// swift-tools-version: 6.0
// Glance: thumbnails and previews for folders of documents.
//
// Layers, and the direction of dependencies (see docs/architecture.md):
//   GlanceCore: shared types, no C (content types, records, the store protocol, the freshness
//     rule, the worker protocol, file names as bytes, open files)
//   GlanceRender -> Core + decoder shims: sniffing, decoders, renderers, resampler, encoders
//   GlanceStore -> Core + GRDB: the SQLite sidecar behind the ThumbnailStore protocol
//   GlancePostgresStore -> Core + postgres-nio: the same protocol in PostgreSQL, for many hosts
//   GlanceContainer -> Core: the container opened, walked and read beneath its root
//   GlancePipeline -> Core + Container: supervised workers, the pool, the indexer, batches
//   GlanceRendererProcess -> Core + Render: what runs in a worker process
//   GlanceListing -> Core + Container: promised-item attributes, the preview listing
//   GlanceDesktopCache -> Core: the freedesktop.org thumbnail cache (`--xdg`)
//   GlanceTerminal -> Listing + Pipeline + libchafa: the preview listing drawn in a terminal
//   GlanceOnSave -> Pipeline + Listing: inotify watcher, document library, the hook socket
//   GlanceQueue -> Glance + Pipeline + PostgresStore: one host's share of the PostgreSQL job queue
//   GlanceServer -> Pipeline + Listing + Hummingbird + Mustache: `glance serve`'s routes and pages
//   Glance -> Store + PostgresStore + Pipeline + Listing + OnSave: the library's front door, where
//     a container and its store are opened (ContainerLocation) and used (Container)
//   glance (the command line) and glance-renderer (the renderer process): executables
import PackageDescription

let package = Package(
    name: "Glance",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "glance", targets: ["glance"]),
        .executable(name: "glance-renderer", targets: ["glance-renderer"]),
        .library(name: "Glance", targets: ["Glance"]),
        .library(name: "GlanceRender", targets: ["GlanceRender"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.25.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.45.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.1.0"),
    ],
    targets: [
        // MARK: C shims, one per concern.
        .target(
            name: "CJPEG",
            dependencies: ["CFileAccess"],
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("jpeg")]
        ),
        .target(
            name: "CPNG",
            dependencies: ["CFileAccess", "CProcessorFeatures"],
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]
        ),
        .target(
            name: "CScaler",
            dependencies: ["CProcessorFeatures"],
            cSettings: [.unsafeFlags(["-O3", "-ffast-math", "-fno-math-errno"])]
        ),
        .target(name: "CTextPaint", cSettings: [.unsafeFlags(["-O3"])]),
        .target(name: "CProcess"),
        .target(
            name: "CCompression",
            linkerSettings: [
                .linkedLibrary("z"), .linkedLibrary("zstd"), .linkedLibrary("bz2"), .linkedLibrary("lzma"),
            ]),
        .target(name: "CFileAccess"),
        // SQLite's unix VFS with links left unresolved, for the sidecar opened through its folder's
        // descriptor (the same libsqlite3 GRDB links).
        .target(name: "CStoreFolder", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(name: "CRenderGuard", linkerSettings: [.linkedLibrary("dl")]),
        .target(
            name: "CPageImages",
            cSettings: [.unsafeFlags(["-O3"])],
            linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("m")]
        ),
        .target(name: "CWatch"),
        .target(name: "CLibraryLoader", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CPoppler", dependencies: ["CLibraryLoader"]),
        .target(name: "CDigest", dependencies: ["CLibraryLoader", "CProcessorFeatures"]),
        .target(name: "CProcessorFeatures"),
        .target(name: "CSandbox", linkerSettings: [.linkedLibrary("seccomp")]),
        .target(name: "CPassword", linkerSettings: [.linkedLibrary("crypt")]),
        .target(
            name: "CWebP", dependencies: ["CLibraryLoader"],
            linkerSettings: [.linkedLibrary("webp"), .linkedLibrary("webpdemux")]),
        .target(name: "CTIFF", dependencies: ["CLibraryLoader", "CColour"], cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "CHEIF", dependencies: ["CLibraryLoader"], cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "CRaw", dependencies: ["CLibraryLoader"], cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "CMedia", dependencies: ["CLibraryLoader", "CColour"], cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "CSVG", dependencies: ["CLibraryLoader"]),
        .target(name: "CPixbuf", dependencies: ["CLibraryLoader"]),
        .target(name: "CGhostscript", dependencies: ["CLibraryLoader"]),
        .target(name: "CDjVu", dependencies: ["CLibraryLoader"]),
        .target(name: "CXPS", dependencies: ["CLibraryLoader"]),
        .target(
            name: "CFontSheet", cSettings: [.unsafeFlags(["-I/usr/include/freetype2", "-I/usr/include/cairo"])],
            linkerSettings: [.linkedLibrary("freetype"), .linkedLibrary("cairo")]),
        .target(name: "CJPEG2000", dependencies: ["CLibraryLoader"], cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "CJXL", dependencies: ["CLibraryLoader", "CColour"], cSettings: [.unsafeFlags(["-O2"])]),
        .target(
            name: "CEXR", dependencies: ["CLibraryLoader", "CColour"],
            cSettings: [.unsafeFlags(["-O2", "-I/usr/include/OpenEXR"])]),
        .target(name: "CArchive", dependencies: ["CLibraryLoader"]),
        // LibreOfficeKit's header (libreofficekit-dev) and its loader, which opens the office
        // suite's own library from its program folder when an office renderer starts.
        .target(name: "COffice", linkerSettings: [.linkedLibrary("dl")]),
        .target(
            name: "CGIF", dependencies: ["CLibraryLoader"], cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("gif")]),
        .target(name: "CColour", cSettings: [.unsafeFlags(["-O2"])], linkerSettings: [.linkedLibrary("lcms2")]),
        .systemLibrary(
            name: "CGraphics",
            pkgConfig: "pangocairo",
            providers: [.apt(["libpoppler-glib-dev", "libpango1.0-dev", "libcairo2-dev"])]
        ),
        .systemLibrary(
            name: "CChafa",
            pkgConfig: "chafa",
            providers: [.apt(["libchafa-dev"])]
        ),
        .target(name: "CTerminalPicture", dependencies: ["CLibraryLoader"]),
        // Built with the tests only: CTerminalPicture's declarations of libchafa's ABI held
        // against libchafa's own headers (a mismatch does not compile).
        .target(
            name: "CChafaABICheck", dependencies: ["CChafa", "CTerminalPicture"], path: "Tests/FrontEnds/CChafaABICheck"
        ),
        // Built with the tests only: the functions CPoppler and CSVG declare for poppler-glib and
        // librsvg (their lists, GLib's types erased) held against the libraries' own headers.
        .systemLibrary(
            name: "CPopplerGlib",
            path: "Tests/Renderer/CPopplerGlib",
            pkgConfig: "poppler-glib",
            providers: [.apt(["libpoppler-glib-dev"])]
        ),
        .systemLibrary(
            name: "CRsvg",
            path: "Tests/Renderer/CRsvg",
            pkgConfig: "librsvg-2.0",
            providers: [.apt(["librsvg2-dev"])]
        ),
        .target(
            name: "CRenderABICheck", dependencies: ["CPopplerGlib", "CRsvg", "CPoppler", "CSVG"],
            path: "Tests/Renderer/CRenderABICheck"),
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
                "GlanceCore", "CJPEG", "CPNG", "CScaler", "CColour", "CGraphics", "CUchardet", "CWebP",
                "CGIF", "CTIFF", "CHEIF", "CRaw", "CMedia", "CSVG", "CArchive", "COffice", "CPixbuf",
                "CJXL", "CEXR", "CGhostscript", "CDjVu", "CXPS", "CFontSheet", "CJPEG2000", "CTextPaint", "CFileAccess",
                "CLibraryLoader",
                "CCompression",
                "CRenderGuard",
                // Not imported: linked for the cairo_set_source it defines, which poppler's calls
                // bind to (glance_page_images.h says why).
                "CPageImages",
                "CPoppler",
            ]
        ),
        .target(
            name: "GlanceStore",
            dependencies: ["GlanceCore", "CStoreFolder", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "GlancePostgresStore",
            dependencies: [
                "GlanceCore", "CDigest", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "Logging", package: "swift-log"),
            ]),
        .target(name: "GlanceContainer", dependencies: ["GlanceCore", "CFileAccess", "CDigest"]),
        .target(
            name: "GlancePipeline",
            dependencies: [
                "GlanceCore", "GlanceContainer", "CProcess", "CFileAccess", "CProcessorFeatures",
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]),
        .target(
            name: "GlanceRendererProcess",
            dependencies: ["GlanceCore", "GlanceContainer", "GlanceRender", "CProcess", "CFileAccess", "CSandbox"]),
        .target(name: "GlanceListing", dependencies: ["GlanceCore", "GlanceContainer"]),
        .target(name: "GlanceDesktopCache", dependencies: ["GlanceCore", "CDigest"]),
        // The preview listing drawn in a terminal: stored thumbnails' pixels (from a renderer)
        // through libchafa as sixel, kitty, iTerm2 or symbols.
        .target(
            name: "GlanceTerminal",
            dependencies: [
                "GlanceCore", "GlanceListing", "GlancePipeline", "CTerminalPicture", "CFileAccess",
            ]),
        .target(
            name: "GlanceOnSave",
            dependencies: [
                "GlanceCore", "GlanceContainer", "GlancePipeline", "GlanceListing", "CWatch",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "GlanceAccounts",
            dependencies: [
                "GlanceCore", "CPassword",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // What serve, watch and worker share: one lifecycle (a ServiceGroup: stop signals, systemd,
        // the renderer pool's stop), the process's metrics, and the operator's listener.
        .target(
            name: "GlanceOperations",
            dependencies: [
                "GlanceCore", "GlancePipeline",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "GlanceServer",
            dependencies: [
                "GlanceCore", "GlanceContainer", "GlancePipeline", "GlanceListing", "GlanceAccounts",
                "GlanceOperations",
                "CProcess", "CCompression",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "GlanceQueue",
            dependencies: ["Glance", "GlanceCore", "GlanceContainer", "GlancePostgresStore", "GlancePipeline"]),
        // The front door: one import for a program that keeps documents (see Glance.docc).
        .target(
            name: "Glance",
            dependencies: [
                "GlanceCore", "GlanceContainer", "GlanceStore", "GlancePostgresStore", "GlancePipeline",
                "GlanceListing",
                "GlanceOnSave",
            ]),
        .executableTarget(
            name: "glance",
            dependencies: [
                "Glance",
                "GlanceCore",
                "GlanceStore",
                "GlancePostgresStore",
                "GlanceContainer",
                "GlancePipeline",
                "GlanceListing",
                "GlanceOnSave",
                "GlanceQueue",
                "GlanceAccounts",
                "GlanceServer",
                "GlanceOperations",
                "GlanceDesktopCache",
                "GlanceTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // The renderer process: the only executable that links the decoders (libjpeg, libpng,
        // cairo, pango; poppler is loaded by the first PDF), so that `glance` itself starts
        // quickly. No ArgumentParser: its command line is parsed by hand (RendererArguments).
        .executableTarget(
            name: "glance-renderer",
            dependencies: ["GlanceCore", "GlanceRendererProcess"],
            path: "Sources/Renderer/glance-renderer",
            // COffice's GStreamer initialisation, found before the library's by LibreOffice's media
            // backend: no clip in an office document is played or opened (glance_office_media.c).
            linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic-symbol=gst_init_check"])]
        ),

        // MARK: Examples: programs built on the library, built and run by the tests.
        .executableTarget(name: "tiny-document-store", dependencies: ["Glance"], path: "Examples/TinyDocumentStore"),
        // The bench's floor for serving: a bare Hummingbird application of the version glance serve
        // uses, answering the same bytes from memory (bench/check.py builds and runs it).
        .executableTarget(
            name: "bench-floor",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "bench/floor"),

        // MARK: Tests, one target per module, and one helper they share.
        .target(name: "GlanceTestSupport", dependencies: ["GlanceCore"], path: "Tests/GlanceTestSupport"),
        .testTarget(name: "GlanceCoreTests", dependencies: ["GlanceCore"]),
        .testTarget(
            name: "GlanceTests",
            dependencies: ["Glance", "glance-renderer", "tiny-document-store", "GlanceTestSupport"]),
        .testTarget(name: "GlanceQueueTests", dependencies: ["GlanceCore", "GlanceQueue"]),
        .testTarget(
            name: "GlanceRendererProcessTests",
            dependencies: ["GlanceCore", "GlanceRender", "GlanceRendererProcess", "GlanceTestSupport"]),
        .testTarget(
            name: "GlanceRenderTests",
            dependencies: [
                "GlanceCore", "GlanceRender", "GlanceListing", "GlanceTestSupport", "CPageImages", "CScaler",
                "CRenderABICheck",
                "CLibraryLoader",
            ]),
        .testTarget(
            name: "GlanceStoreTests",
            dependencies: [
                "GlanceCore", "GlanceStore", "GlancePostgresStore", "GlanceTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "GlanceContainerTests",
            dependencies: ["GlanceCore", "GlanceContainer", "CDigest", "GlanceTestSupport"]),
        .testTarget(
            name: "GlancePipelineTests",
            dependencies: [
                "glance", "glance-renderer", "GlanceCore", "GlanceContainer", "GlancePipeline", "GlanceStore",
                "GlanceTestSupport", "GlanceRender",
            ]),
        .testTarget(
            name: "GlanceOnSaveTests",
            dependencies: [
                "glance", "glance-renderer", "GlanceCore", "GlanceContainer", "GlancePipeline", "GlanceOnSave",
                "GlanceStore", "GlanceTestSupport",
            ]),
        .testTarget(
            name: "GlanceServerTests",
            dependencies: [
                "GlanceAccounts",
                "glance-renderer", "GlanceCore", "GlanceContainer", "GlancePipeline", "GlanceServer",
                "GlanceOperations", "GlanceStore",
                "GlanceTestSupport", .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]),
        .testTarget(
            name: "GlanceDesktopCacheTests",
            dependencies: ["GlanceCore", "GlanceDesktopCache", "GlanceTestSupport"]),
        .testTarget(
            name: "GlanceTerminalTests",
            dependencies: ["GlanceCore", "GlanceTerminal", "CChafaABICheck", "GlanceTestSupport"]),
        .testTarget(
            name: "GlanceListingTests", dependencies: ["GlanceCore", "GlanceContainer", "GlanceListing", "GlanceStore"]),
        .testTarget(
            name: "GlanceCLITests",
            dependencies: [
                "glance", "glance-renderer", "GlanceCore", "GlanceStore", "GlanceTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// MARK: Where each target lives: Sources/ and Tests/ are grouped by layer (docs/architecture.md
// draws them), each target in a folder of its own name under its layer's, so that target names
// stay what they were. A target that gives a path of its own keeps it.
let layers: [String: [String]] = [
    "Core": ["GlanceCore", "GlanceCoreTests"],
    "Renderer": [
        "GlanceRender", "GlanceRendererProcess", "CJPEG", "CPNG", "CWebP", "CGIF", "CTIFF", "CHEIF", "CRaw", "CMedia",
        "CSVG", "CPixbuf", "CJXL", "CEXR", "CGhostscript", "CDjVu", "CXPS", "CFontSheet", "CJPEG2000",
        "COffice", "CPoppler",
        "CPageImages", "CGraphics", "CTextPaint", "CUchardet", "CColour", "CScaler", "CRenderGuard", "CSandbox",
        "GlanceRenderTests", "GlanceRendererProcessTests",
    ],
    "Storage": ["GlanceStore", "GlancePostgresStore", "CStoreFolder", "GlanceStoreTests"],
    "Engine": [
        "GlanceContainer", "GlancePipeline", "GlanceListing", "GlanceDesktopCache", "GlanceContainerTests",
        "GlancePipelineTests", "GlanceListingTests", "GlanceDesktopCacheTests",
    ],
    "FrontEnds": [
        "GlanceOnSave", "GlanceServer", "GlanceOperations", "GlanceAccounts", "GlanceTerminal", "GlanceQueue", "CChafa",
        "CTerminalPicture", "GlanceOnSaveTests", "GlanceServerTests", "GlanceTerminalTests", "GlanceQueueTests",
    ],
    "Library": ["Glance", "GlanceTests"],
    "CLI": ["glance", "GlanceCLITests"],
    "System": [
        "CFileAccess", "CProcess", "CProcessorFeatures", "CWatch", "CLibraryLoader", "CPassword", "CDigest",
        "CCompression", "CArchive",
    ],
]
for target in package.targets where target.path == nil {
    guard let layer = layers.first(where: { $0.value.contains(target.name) })?.key else {
        fatalError("Package.swift: \(target.name) belongs to no layer of the table")
    }
    target.path = (target.type == .test ? "Tests/" : "Sources/") + layer + "/" + target.name
}

// MARK: Fuzzers (`make fuzz`), only when GLANCE_FUZZ is set: each is a libFuzzer entry point
// with no main of its own, built with `--sanitize=fuzzer --sanitize=address`, which an ordinary
// build could not link.
if Context.environment["GLANCE_FUZZ"] != nil {
    package.targets.append(
        .target(name: "FuzzSupport", dependencies: ["GlanceCore", "GlanceRender", "CFileAccess"], path: "Fuzz/Support"))
    let fuzzers: [(name: String, folder: String, dependencies: [Target.Dependency])] = [
        ("fuzz-jpeg", "JPEG", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-png", "PNG", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-pdf", "PDF", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-text", "Text", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-webp", "WebP", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-gif", "GIF", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-tiff", "TIFF", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-heif", "HEIF", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-jxl", "JPEGXL", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-psd", "Photoshop", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-djvu", "DjVu", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-postscript", "PostScript", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-xps", "XPS", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-font", "Font", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-carried", "Carried", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-jpeg2000", "JPEG2000", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-svg", "SVG", ["FuzzSupport", "GlanceRender"]),
        ("fuzz-media", "Media", ["FuzzSupport", "GlanceRender", "GlanceCore"]),
        ("fuzz-raw", "Raw", ["FuzzSupport", "GlanceRender", "GlanceCore"]),
        ("fuzz-archive", "Archive", ["FuzzSupport", "GlanceRender", "GlanceCore"]),
        ("fuzz-bitmap", "Bitmap", ["FuzzSupport", "GlanceRender", "GlanceCore"]),
        ("fuzz-blend", "Blend", ["FuzzSupport", "GlanceRender", "GlanceCore"]),
        ("fuzz-mobi", "Mobi", ["FuzzSupport", "GlanceRender", "GlanceCore"]),
        ("fuzz-icc", "ICC", ["GlanceCore", "GlanceRender"]),
        ("fuzz-renderer-reply", "RendererReply", ["GlanceCore", "GlancePipeline"]),
    ]
    for fuzzer in fuzzers {
        package.targets.append(
            .executableTarget(
                name: fuzzer.name, dependencies: fuzzer.dependencies, path: "Fuzz/\(fuzzer.folder)",
                swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
    }
}

internal import CDigest
import GlanceCore

/// What the cache needs to know of a document: its URI, and the modification time and size that
/// an entry must repeat to be valid.
public struct CacheDocument: Sendable, Equatable {
    /// The document's `file://` URI (``FileURI``).
    public var uri: String
    /// Modification time in whole seconds since 1970 (`Thumb::MTime`).
    public var modifiedSeconds: Int64
    /// Size in bytes (`Thumb::Size`).
    public var size: Int64
    /// `Thumb::Mimetype`.
    public var mimeType: String?
    /// `Thumb::Image::Width` and `Height`: the source image's size, for images.
    public var imageSize: PixelSize?

    public init(uri: String, modifiedSeconds: Int64, size: Int64, mimeType: String? = nil, imageSize: PixelSize? = nil)
    {
        self.uri = uri
        self.modifiedSeconds = modifiedSeconds
        self.size = size
        self.mimeType = mimeType
        self.imageSize = imageSize
    }

    /// The document at the absolute path `path` with the identity `identity`.
    public init(absolutePath path: String, identity: FileIdentity, mimeType: String? = nil, imageSize: PixelSize? = nil)
    {
        let nanoseconds = identity.modifiedNanoseconds
        // Whole seconds, rounded down also before 1970, as stat's tv_sec has them.
        let seconds = nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : (nanoseconds - 999_999_999) / 1_000_000_000
        self.init(
            uri: FileURI.of(absolutePath: path), modifiedSeconds: seconds, size: identity.size, mimeType: mimeType,
            imageSize: imageSize)
    }
}

/// What the cache holds for one document.
public struct CacheEntryStatus: Sendable, Equatable {
    /// Sizes with a valid entry (the same URI, modification time and size), largest first.
    public var valid: [CacheSize] = []
    /// Sizes with an entry for an older version of the document.
    public var stale: [CacheSize] = []
    /// A valid failure entry: a thumbnailer failed on this version of the document.
    public var failed = false
    /// The entry GIO would show: the largest valid size's file.
    public var path: String?

    /// `valid`, `stale`, `failed` or `missing`, in that order of precedence.
    public var summary: String {
        if !valid.isEmpty { return "valid" }
        if failed { return "failed" }
        return stale.isEmpty ? "missing" : "stale"
    }
}

/// The freedesktop.org thumbnail cache (`$XDG_CACHE_HOME/thumbnails`, Thumbnail Managing
/// Standard 0.9), where Linux file managers look for thumbnails before making their own.
///
/// Each document's entry is `SIZE/MD5.png`, MD5 being the hex MD5 of the document's URI: an RGBA
/// PNG whose `tEXt` chunks repeat the URI, the modification time and the size. A thumbnailer that
/// failed leaves a failure entry (an empty PNG with the URI and time) in `fail/NAME-VERSION/`;
/// GIO reports `thumbnail::failed` only from GNOME's own `fail/gnome-thumbnail-factory/`, so
/// Glance writes its failure entries to both.
public final class FreedesktopCache: Sendable {
    /// The cache's folder (`.../thumbnails`).
    public let root: String
    /// `Software` of every entry: `Glance VERSION`.
    public let software: String
    private let sizeFolders: [CacheSize: CacheFolder]
    private let ownFailureFolder: CacheFolder?
    private let desktopFailureFolder: CacheFolder?

    /// The failure folder GIO reads.
    static let desktopFailureFolderName = "gnome-thumbnail-factory"

    /// The cache at `root`, for writing entries of `sizes`: missing folders are made (mode 0700).
    public init(root: String, sizes: [CacheSize], version: String) throws(DesktopCacheError) {
        self.root = root
        software = "Glance \(version)"
        var folders: [CacheSize: CacheFolder] = [:]
        // The folder above `thumbnails`: the user's cache folder, which may be a link.
        let parent = root.lastIndex(of: "/").map { String(root[..<$0]) } ?? ""
        let base = parent.isEmpty ? "/" : parent
        for size in sizes { folders[size] = try CacheFolder(creating: "\(root)/\(size.folderName)", below: base) }
        sizeFolders = folders
        ownFailureFolder = try CacheFolder(creating: "\(root)/fail/glance-\(version)", below: base)
        desktopFailureFolder = try CacheFolder(
            creating: "\(root)/fail/\(Self.desktopFailureFolderName)", below: base)
    }

    /// The cache at `root` as it is, for reading: nothing is made.
    public init(reading root: String, version: String) {
        self.root = root
        software = "Glance \(version)"
        var folders: [CacheSize: CacheFolder] = [:]
        for size in CacheSize.allCases {
            if let folder = CacheFolder(existing: "\(root)/\(size.folderName)") { folders[size] = folder }
        }
        sizeFolders = folders
        ownFailureFolder = CacheFolder(existing: "\(root)/fail/glance-\(version)")
        desktopFailureFolder = CacheFolder(existing: "\(root)/fail/\(Self.desktopFailureFolderName)")
    }

    /// `$XDG_CACHE_HOME/thumbnails`, or `$HOME/.cache/thumbnails` when `XDG_CACHE_HOME` is unset,
    /// empty or relative (the XDG Base Directory rule).
    public static func defaultRoot(environment: [String: String]) throws(DesktopCacheError) -> String {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return FileURI.canonicalPath(cache, relativeTo: "/") + "/thumbnails"
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { throw .noCacheHome }
        return FileURI.canonicalPath(home, relativeTo: "/") + "/.cache/thumbnails"
    }

    /// The sizes this cache writes, largest first.
    public var sizes: [CacheSize] { sizeFolders.keys.sorted(by: >) }

    /// The entry's file name for a URI: the MD5 of the URI in lower-case hex, then `.png`.
    public static func entryName(for uri: String) -> String {
        var digest = [UInt8](repeating: 0, count: 16)
        let bytes = Array(uri.utf8)
        let status = bytes.withUnsafeBytes { glance_md5($0.baseAddress, $0.count, &digest) }
        // Only a system without OpenSSL's libcrypto.so.3 gets here, and no name could be right.
        precondition(status == 0, "the desktop cache's file names need libcrypto.so.3 (OpenSSL 3), which failed")
        let hex = Array("0123456789abcdef")
        return String(digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0xF)]] }) + ".png"
    }

    /// The path of `document`'s entry of `size`.
    public func path(of document: CacheDocument, size: CacheSize) -> String {
        "\(root)/\(size.folderName)/\(Self.entryName(for: document.uri))"
    }

    // MARK: - Reading

    /// What the cache holds for `document`, judged as GIO judges it: by the `tEXt` chunks alone.
    public func status(of document: CacheDocument) -> CacheEntryStatus {
        let name = Self.entryName(for: document.uri)
        var status = CacheEntryStatus()
        for size in CacheSize.largestFirst {
            guard let folder = sizeFolders[size], let texts = folder.read(name).flatMap(PNGTextChunks.read) else {
                continue
            }
            if Self.isValid(texts, for: document) {
                status.valid.append(size)
                if status.path == nil { status.path = "\(folder.path)/\(name)" }
            } else {
                status.stale.append(size)
            }
        }
        status.failed = [ownFailureFolder, desktopFailureFolder].contains { folder in
            folder?.read(name).flatMap(PNGTextChunks.read).map { Self.isValid($0, for: document) } ?? false
        }
        return status
    }

    /// GIO's rule: `Thumb::URI` equal to the URI, `Thumb::MTime` to the modification time, and
    /// `Thumb::Size`, when there is one, to the size.
    static func isValid(_ texts: [String: String], for document: CacheDocument) -> Bool {
        guard texts["Thumb::URI"] == document.uri, texts["Thumb::MTime"] == String(document.modifiedSeconds) else {
            return false
        }
        return texts["Thumb::Size"].map { $0 == String(document.size) } ?? true
    }

    // MARK: - Writing

    /// Writes `document`'s entries, one for each size of this cache, from the renditions of its
    /// render (each an RGBA PNG fitting its size's box). A failure entry left by an earlier run
    /// of Glance is removed. Returns each entry's path with its rendition.
    @discardableResult
    public func write(_ renditions: [Rendition], for document: CacheDocument) throws(DesktopCacheError)
        -> [(path: String, rendition: Rendition)]
    {
        let name = Self.entryName(for: document.uri)
        var written: [(path: String, rendition: Rendition)] = []
        for size in sizes {
            let folder = sizeFolders[size]!
            guard let rendition = renditions.first(where: { $0.side == size.side }) else {
                throw .write(path: "\(folder.path)/\(name)", reason: "the renderer made no \(size.folderName) image")
            }
            guard let tagged = PNGTextChunks.inserting(texts(for: document, full: true), into: rendition.data) else {
                throw .write(path: "\(folder.path)/\(name)", reason: "the renderer's PNG has no header")
            }
            try folder.write(tagged, as: name)
            written.append(("\(folder.path)/\(name)", rendition))
        }
        ownFailureFolder?.remove(name)
        if let folder = desktopFailureFolder, let texts = folder.read(name).flatMap(PNGTextChunks.read),
            texts["Software"]?.hasPrefix("Glance ") == true
        {
            folder.remove(name)
        }
        return written
    }

    /// Writes `document`'s failure entries (Glance's own, and GNOME's that GIO reads).
    public func writeFailure(for document: CacheDocument) throws(DesktopCacheError) {
        let name = Self.entryName(for: document.uri)
        let png = PNGTextChunks.emptyImage(with: texts(for: document, full: false))
        for folder in [ownFailureFolder, desktopFailureFolder].compactMap({ $0 }) { try folder.write(png, as: name) }
    }

    /// The `tEXt` pairs of an entry (`full`) or of a failure entry (URI, time, size, software).
    private func texts(for document: CacheDocument, full: Bool) -> [(keyword: String, text: String)] {
        var texts: [(keyword: String, text: String)] = [
            ("Thumb::URI", document.uri), ("Thumb::MTime", String(document.modifiedSeconds)),
            ("Thumb::Size", String(document.size)),
        ]
        if full {
            if let mimeType = document.mimeType { texts.append(("Thumb::Mimetype", mimeType)) }
            if let size = document.imageSize {
                texts.append(("Thumb::Image::Width", String(size.width)))
                texts.append(("Thumb::Image::Height", String(size.height)))
            }
        }
        texts.append(("Software", software))
        return texts
    }
}

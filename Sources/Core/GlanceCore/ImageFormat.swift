/// The encodings a thumbnail is stored or written in.
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case png
    case jpeg
    /// The store's smaller thumbnails (``ThumbnailSizes``); never the standard one, which stays
    /// PNG or JPEG for every client, the desktop cache and `export`.
    case webp

    /// The file extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        case .webp: "webp"
        }
    }

    /// The MIME type.
    public var mimeType: String { "image/" + rawValue }

    /// The format named by a file extension (`png`, `jpg`, `jpeg`), if any.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "webp": self = .webp
        default: return nil
        }
    }
}

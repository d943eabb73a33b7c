/// The encodings a thumbnail is stored or written in.
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case png
    case jpeg

    /// The file extension, without the dot.
    public var fileExtension: String { self == .png ? "png" : "jpg" }

    /// The MIME type.
    public var mimeType: String { self == .png ? "image/png" : "image/jpeg" }

    /// The format named by a file extension (`png`, `jpg`, `jpeg`), if any.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg", "jpe": self = .jpeg
        default: return nil
        }
    }
}

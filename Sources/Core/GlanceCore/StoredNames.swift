/// Reading back the names a store keeps as text (states, content types, image formats), shared by
/// every store so that each refuses a value this version does not know in the same words.
public enum StoredNames {
    /// The state named `name` in the record of `path`.
    public static func state(_ name: String, path: String, location: String) throws(StoreError) -> DocumentState {
        guard let state = DocumentState(rawValue: name) else {
            throw StoreError(.invalid, message: "record of \(path) has an unknown state '\(name)'", location: location)
        }
        return state
    }

    /// The content type named `name` (nil stays nil) in the record of `path`.
    public static func contentType(_ name: String?, path: String, location: String) throws(StoreError)
        -> ContentType?
    {
        guard let name else { return nil }
        guard let type = ContentType(rawValue: name) else {
            throw StoreError(
                .invalid, message: "record of \(path) has an unknown content type '\(name)'", location: location)
        }
        return type
    }

    /// The image format named `name`.
    public static func imageFormat(_ name: String, location: String) throws(StoreError) -> ImageFormat {
        guard let format = ImageFormat(rawValue: name) else {
            throw StoreError(.invalid, message: "a thumbnail has an unknown image format '\(name)'", location: location)
        }
        return format
    }
}

import Foundation
import GlanceCore

/// Document paths in URLs: taken from one, checked before anything is opened, and put into one.
///
/// Every path the server is asked for (and every document a share link names) goes through here: percent-decoded component by component,
/// and refused (404) when a component holds a `/` (an encoded `%2f`) or the path fails
/// ``DocumentPath``'s rule as spelled (empty, `.` or `..` components, NUL, hidden names): one
/// document, one URL. What passes is then opened beneath the container only, so a symlink that
/// leads out answers 404 as well.
public enum DocumentURL {
    /// The relative path for URL path components, or nil when they cannot name a document.
    public static func from(components: [Substring]) -> String? {
        var parts: [String] = []
        for component in components {
            guard let decoded = PercentDecoding.decoded(component),
                !decoded.utf8.contains(UInt8(ascii: "/"))
            else { return nil }
            parts.append(decoded)
        }
        return DocumentPath(exactly: parts.joined(separator: "/"))?.relative
    }

    /// The URL path for a document path: each component percent-encoded.
    public static func encoded(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%;")
        return path.split(separator: "/").map { String($0).addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }
            .joined(separator: "/")
    }
}

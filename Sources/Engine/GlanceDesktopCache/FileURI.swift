import GlanceCore

/// `file://` URIs as GLib writes them (`g_filename_to_uri`), since the freedesktop.org cache
/// names each entry by the MD5 of its document's URI and GIO compares the URI byte for byte.
///
/// The path's bytes are kept as they are (no Unicode normalisation); every byte outside
/// `A-Z a-z 0-9 - . _ ~ ! $ & ' ( ) * + , = : @ /` is written `%XX` with upper-case hex. That
/// set was read off GIO itself (`gio info` of a file named with every printable ASCII
/// character): unlike RFC 3986's path rule, GLib escapes `;`.
public enum FileURI {
    /// The URI of the absolute path `path` (already canonical, see ``canonicalPath(_:relativeTo:)``).
    public static func of(absolutePath path: String) -> String {
        var uri = "file://"
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in FileName.encode(path) {
            if isKept(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        uri += String(decoding: bytes, as: UTF8.self)
        return uri
    }

    private static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("-._~!$&'()*+,=:@/".utf8).contains(byte)
        }
    }

    /// `path` made absolute against `folder` and cleaned the way GLib does it for a file it is
    /// given by name (`g_canonicalize_filename`): `.` components and repeated slashes dropped,
    /// `..` taken back a component; symbolic links are not resolved, so the URI is the one a
    /// file manager showing that path computes.
    public static func canonicalPath(_ path: String, relativeTo folder: String) -> String {
        let joined = path.hasPrefix("/") ? path : folder + "/" + path
        var components: [Substring] = []
        for component in joined.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": _ = components.popLast()
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }
}

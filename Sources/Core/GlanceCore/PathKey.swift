/// A path or name used as an identity (a dictionary's key, a set's member, an access check),
/// compared and hashed by its UTF-8 bytes.
///
/// Swift's `String` is equal to another under Unicode canonical equivalence: `café` with `é` as
/// one code point equals `café` written `e` + U+0301, though they are two files side by side on
/// Linux (a folder merged from a Mac holds such pairs). Keyed by `String`, one file's record, its
/// cached thumbnail or its share link stands for the other's. The file system, SQLite and
/// PostgreSQL compare names as bytes; so does this.
public struct PathKey: Hashable, Sendable, CustomStringConvertible {
    /// The path as given.
    public let path: String

    public init(_ path: String) { self.path = path }

    public static func == (left: PathKey, right: PathKey) -> Bool { left.path.isSameName(as: right.path) }

    public func hash(into hasher: inout Hasher) {
        var path = path
        path.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    public var description: String { path }

    /// `paths` without repeats, in their first order, a name being repeated only by the same
    /// bytes (two canonically equal spellings are two paths): the one rule for every list of
    /// paths a store or a queue is given.
    public static func unique(_ paths: [String]) -> [String] {
        var seen: Set<PathKey> = []
        return paths.filter { seen.insert(PathKey($0)).inserted }
    }
}

extension PathKey: ExpressibleByStringLiteral {
    public init(stringLiteral path: String) { self.init(path) }
}

extension String {
    /// Whether this name and `other` are the same bytes: the one comparison of two names that
    /// identify files (``PathKey``), never `==`, which equates canonically equivalent spellings.
    public func isSameName(as other: String) -> Bool { utf8.elementsEqual(other.utf8) }
}

import Foundation

/// A container's URL name, the `NAME` of `/c/NAME/`: what accounts, share links and the server
/// call a container by. Letters, digits, `.`, `_` and `-`, not only dots: made from a folder's
/// name by ``make(from:)``, and checked by ``isValid(_:)`` wherever one is taken (the users file,
/// `glance user --container`, `glance share`).
public enum ContainerName {
    /// `title` with every character outside `[A-Za-z0-9._-]` replaced by `-` (`container` for a
    /// title with nothing left but dots).
    public static func make(from title: String) -> String {
        let name = String(
            title.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "-"
            })
        return name.isEmpty || name.allSatisfy({ $0 == "." }) ? "container" : name
    }

    /// Whether `name` can be a container's URL name as ``make(from:)`` makes them.
    public static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 255 && make(from: name) == name
    }
}

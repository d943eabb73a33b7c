/// The `CACHEDIR.TAG` that marks a folder as a Glance store: written by the store when it makes
/// its folder, read by the walk, which takes any folder holding it for a store, not for documents,
/// wherever it lies and whatever its name. The tag's format is the Cache Directory Tagging
/// specification's (a signature line that backup tools look for), then Glance's comment.
public enum StoreTag {
    /// The tag's file name, fixed by the specification.
    public static let fileName = "CACHEDIR.TAG"

    /// The line the specification requires at the very start of the tag.
    public static let signature = "Signature: 8a477f597d28d172789f06886806bc55"

    /// The comment that says Glance made it.
    public static let comment =
        "# This file marks a cache directory created by Glance (thumbnails). See https://bford.info/cachedir/"

    /// The tag's whole content.
    public static let content = signature + "\n" + comment + "\n"

    /// What a Glance store's tag starts with: the signature and Glance's comment, through the
    /// word `Glance` (a tag written by an earlier Glance has the same start).
    public static let start: [UInt8] = Array(
        (signature + "\n" + comment.prefix(while: { $0 != "(" })).utf8)
}

/// What the file system says about a document, enough to tell whether it changed: the device and
/// inode (which survive a rename), the size and the modification time in nanoseconds.
public struct FileIdentity: Sendable, Codable, Equatable, Hashable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var modifiedNanoseconds: Int64

    public init(device: UInt64, inode: UInt64, size: Int64, modifiedNanoseconds: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    /// Whether this names the same file object (device and inode), whatever its content.
    public func isSameFile(as other: FileIdentity) -> Bool {
        device == other.device && inode == other.inode
    }
}

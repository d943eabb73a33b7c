/// What the file system says about a document, enough to tell whether it changed: the device and
/// inode (which survive a rename), the size and the modification time in nanoseconds.
public struct FileIdentity: Sendable, Codable, Equatable, Hashable {
    /// The device (file system) the file is on, `st_dev`.
    public var device: UInt64
    /// The file's inode number on that device, `st_ino`.
    public var inode: UInt64
    /// The file's length in bytes.
    public var size: Int64
    /// The modification time, in nanoseconds since 1970.
    public var modifiedNanoseconds: Int64

    /// Creates an identity from the fields of `stat`.
    public init(device: UInt64, inode: UInt64, size: Int64, modifiedNanoseconds: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
    }
}

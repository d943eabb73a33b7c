/// The version of Glance; part of every thumbnail's record, so that a new renderer can redo old
/// failures.
enum GlanceVersion {
    static let current = "0.1.0"
}

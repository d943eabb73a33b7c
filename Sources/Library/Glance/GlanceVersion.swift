/// The version of Glance; part of every thumbnail's record, so that a new renderer can redo old
/// failures (see ``ContainerLocation/freshness``).
public enum GlanceVersion {
    /// This version, as records and `glance --version` carry it.
    public static let current = "0.1.0"
}

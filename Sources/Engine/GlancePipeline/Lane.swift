import GlanceCore

/// The lane a render job waits in for a renderer (``RendererPool``): the order the pool takes
/// them in is ``JobLanes``' rule.
public enum Lane: Sendable {
    /// A thumbnail someone is waiting for (a page shown, a save): first.
    case interactive
    /// A page drawn larger for a preview: before batch work, but while batch work waits never on
    /// more than half the renderers (and on one renderer, every other job), so that a storm of
    /// page requests cannot stop a batch.
    case preview
    /// A batch's documents, in the order they came.
    case batch

    /// The lane's name in a metric's label and in `glance status`.
    public var label: String {
        switch self {
        case .interactive: "interactive"
        case .preview: "preview"
        case .batch: "batch"
        }
    }

    /// The earlier name of ``batch``, kept for one release.
    @available(*, deprecated, renamed: "batch")
    public static var normal: Lane { .batch }
}

extension RendererPool {
    /// The earlier spelling of ``submit(_:file:lane:counted:completion:)``, kept for one release.
    @available(*, deprecated, renamed: "submit(_:file:lane:counted:completion:)")
    public func submit(
        _ job: RenderJob, file: OpenFile, priority: Lane, counted: Bool = true,
        completion: @escaping @Sendable (JobResult) -> Void
    ) {
        submit(job, file: file, lane: priority, counted: counted, completion: completion)
    }

    /// The earlier spelling of ``run(_:file:lane:counted:)``, kept for one release.
    @available(*, deprecated, renamed: "run(_:file:lane:counted:)")
    public func run(_ job: RenderJob, file: OpenFile, priority: Lane, counted: Bool = true) async -> JobResult {
        await run(job, file: file, lane: priority, counted: counted)
    }
}

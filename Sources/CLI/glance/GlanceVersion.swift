import Glance
import GlancePipeline

extension GlanceVersion {
    /// What `glance --version` prints: the version, the sandbox renderers get on this machine and
    /// the SIMD extensions their own code uses.
    static func description(rendererExecutable: String) -> String {
        let sandbox = RendererLaunch.strongestSandbox(executable: rendererExecutable)?.rawValue ?? "unavailable"
        return "glance \(current) (renderer sandbox: \(sandbox); SIMD: \(ProcessorFeatures.current().description))"
    }
}

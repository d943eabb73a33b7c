import Glance
import GlancePipeline

extension GlanceVersion {
    /// What `glance --version` prints: the version, the sandbox renderers get on this machine and
    /// the SIMD extensions their own code uses.
    static func description(workerExecutable: String) -> String {
        let sandbox = WorkerLaunch.strongestSandbox(executable: workerExecutable)?.rawValue ?? "unavailable"
        return "glance \(current) (renderer sandbox: \(sandbox); SIMD: \(ProcessorFeatures.current().description))"
    }
}

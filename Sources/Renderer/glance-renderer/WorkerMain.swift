import GlanceCore
import GlanceWorker

#if canImport(Glibc)
    import Glibc
#endif

/// `glance-renderer`: the renderer process that `glance`'s worker pool starts. Not for people: it
/// reads jobs (a JSON line with the document's open descriptor attached) on its standard input,
/// a Unix socket, and answers on the same socket until it closes. Its options are in
/// ``WorkerArguments``.
@main
enum WorkerMain {
    static func main() {
        let arguments: WorkerArguments
        do throws(WorkerArgumentError) {
            guard let parsed = try WorkerArguments.parse(Array(CommandLine.arguments.dropFirst())) else {
                print(WorkerArguments.usage)
                exit(0)
            }
            arguments = parsed
        } catch {
            _ = DescriptorWriter.writeAll(Array("glance-renderer: \(error)\n".utf8), to: 2)
            exit(64)  // EX_USAGE
        }
        let confinement = WorkerConfinement(
            sandboxed: arguments.sandboxed, memoryLimitBytes: arguments.memoryLimitMiB << 20,
            cpuSeconds: arguments.cpuSeconds)
        let service = WorkerService(confinement: confinement, triggers: arguments.triggers)
        // run() returns false only when the sandbox could not be entered (nothing was read).
        exit(service.run() ? 0 : WorkerSandbox.unavailableExitStatus)
    }
}

import GlanceCore
import GlanceRendererProcess

#if canImport(Glibc)
    import Glibc
#endif

/// `glance-renderer`: the renderer process that `glance`'s worker pool starts. Not for people: it
/// reads jobs (a JSON line with the document's open descriptor attached) on its standard input,
/// a Unix socket, and answers on the same socket until it closes. Its options are in
/// ``RendererArguments``.
@main
enum RendererMain {
    static func main() {
        let arguments: RendererArguments
        do throws(RendererArgumentError) {
            guard let parsed = try RendererArguments.parse(Array(CommandLine.arguments.dropFirst())) else {
                print(RendererArguments.usage)
                exit(0)
            }
            arguments = parsed
        } catch {
            _ = DescriptorWriter.writeAll(Array("glance-renderer: \(error)\n".utf8), to: 2)
            exit(64)  // EX_USAGE
        }
        let confinement = RendererConfinement(
            sandboxed: arguments.sandboxed, memoryLimitBytes: arguments.memoryLimitMiB << 20,
            cpuSeconds: arguments.cpuSeconds, office: arguments.officeProgramFolder != nil)
        var service = RendererService(confinement: confinement, triggers: arguments.triggers)
        service.office = arguments.officeProgramFolder.map {
            RendererService.OfficeSetup(
                programFolder: $0, workspace: arguments.workspace,
                filesConfinementRequired: arguments.filesConfinementRequired)
        }
        // run() returns false only when the sandbox could not be entered (nothing was read).
        exit(service.run() ? 0 : RendererSandbox.unavailableExitStatus)
    }
}

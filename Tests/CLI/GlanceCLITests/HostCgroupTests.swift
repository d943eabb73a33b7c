import Foundation
import GlanceTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A CPU cgroup made for a test under the machine's hierarchy (cgroup v1's `cpu` controller, or
/// v2 with `cpu` enabled), with a quota; removed by ``remove()``.
struct TestCPUGroup {
    /// The group's folder.
    let folder: String

    /// The folder new groups are made in, when this process may make them: v2's root when it
    /// offers the `cpu` controller, else v1's `cpu` hierarchy.
    static var parent: String? {
        let unified = "/sys/fs/cgroup"
        if let controllers = try? String(contentsOfFile: unified + "/cgroup.controllers", encoding: .utf8),
            controllers.split(separator: " ").contains(where: {
                $0.trimmingCharacters(in: .whitespacesAndNewlines) == "cpu"
            })
        {
            return access(unified, W_OK) == 0 ? unified : nil
        }
        let v1 = unified + "/cpu"
        return access(v1 + "/cgroup.procs", W_OK) == 0 ? v1 : nil
    }

    /// Makes group `name` with `cores` of CPU time (its quota over a 100 ms period).
    init(_ name: String, cores: Double) throws {
        guard let parent = Self.parent else { throw CocoaError(.fileWriteNoPermission) }
        folder = parent + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let quota = String(Int(cores * 100_000))
        if FileManager.default.fileExists(atPath: folder + "/cpu.max") {
            try "\(quota) 100000".write(toFile: folder + "/cpu.max", atomically: false, encoding: .utf8)
        } else {
            try quota.write(toFile: folder + "/cpu.cfs_quota_us", atomically: false, encoding: .utf8)
        }
    }

    /// The processes in the group now.
    var members: [Int32] {
        let text = (try? String(contentsOfFile: folder + "/cgroup.procs", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { Int32($0) }
    }

    /// The group's path as `/proc/PID/cgroup` names it (relative to its hierarchy's root).
    var name: String { "/" + (folder as NSString).lastPathComponent }

    /// Removes the group (once its processes have ended: retried for a few seconds).
    func remove() {
        _ = holdsSoon(within: .seconds(5)) { rmdir(folder) == 0 || errno == ENOENT }
    }
}

/// A worker host as an operator runs one in a CPU cgroup (a container, a systemd slice): its
/// renderer processes, which do its work, must count against the host's CPU quota, not escape it.
@Suite("Worker hosts in CPU cgroups", .timeLimit(.minutes(10)))
struct HostCgroupTests {
    /// What `/proc/PID/comm` says of `pid`.
    static func command(of pid: Int32) -> String {
        ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "a worker started in a CPU cgroup renders in it: its renderer processes are in the host's group",
        .enabled(if: TestCPUGroup.parent != nil, "making a CPU cgroup needs root (as CI runs) or a delegated hierarchy")
    )
    func renderersInHostGroup() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let store = server.address(container: "cgroup", database: database)
        let container = try QueueCommandTests.container(documents: 1, slow: 1)
        #expect(try await GlanceProcess.run(["generate", container.path, "--store", store, "--enqueue"]).status == 0)
        let group = try TestCPUGroup("glance-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))", cores: 0.5)
        defer { group.remove() }
        // The host joins its group before it starts, as a service manager puts it there; the
        // renderer hangs on the slow document, so that it is alive to be looked at.
        let procs = group.folder + "/cgroup.procs"
        let (worker, errors) = try QueueCommandTests.launch(
            "/bin/sh",
            [
                "-c", "echo $$ > \"$0\" && exec \"$@\"", procs, GlanceProcess.executable, "worker", "--store", store,
                "--jobs", "1", "--debug-hang-on", "slow-*", "--root", QueueCommandTests.scratchRoot,
            ])
        let holding = try await QueueCommandTests.waitUntilLeased("slow-00.png", server: server, database: database)
        #expect(holding, "the worker leased the slow document")
        // The pool starts its renderers as the worker starts; the one hung on the document is
        // alive now. Every glance-renderer descended from this worker must be in the group.
        var renderers: [Int32] = []
        try await eventually("a glance-renderer in the host's group", within: .seconds(30)) {
            renderers = group.members.filter { Self.command(of: $0) == "glance-renderer" }
            return !renderers.isEmpty
        }
        let members = Set(group.members)
        kill(worker.processIdentifier, SIGTERM)
        #expect(await QueueCommandTests.finish(worker, within: 20))
        let said = await QueueCommandTests.said(errors)
        #expect(!renderers.isEmpty, "no glance-renderer in the host's group; its members: \(members), worker: \(said)")
        #expect(members.contains(worker.processIdentifier), "the worker itself is in its group")
        for pid in renderers {
            let cgroups = (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? ""
            #expect(
                cgroups.isEmpty || cgroups.contains(group.name),
                "renderer \(pid) names its groups: \(cgroups)")
        }
        // The host's processes, the renderers included, ended with it: the group empties.
        try await eventually("the host's group empty: \(group.members) left", within: .seconds(20)) {
            group.members.isEmpty
        }
    }
}

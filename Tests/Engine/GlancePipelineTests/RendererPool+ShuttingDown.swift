import GlancePipeline

extension RendererPool {
    /// Runs `body`, then shuts the pool down, however `body` ends, and waits for that without
    /// holding a thread (``shutdown()``, not ``shutdownBlocking()``, which would block one of the
    /// cooperative pool's threads inside an async test).
    func shuttingDown<Value>(after body: () async throws -> Value) async throws -> Value {
        do {
            let value = try await body()
            await shutdown()
            return value
        } catch {
            await shutdown()
            throw error
        }
    }
}

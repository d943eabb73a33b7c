import Foundation
import GlancePipeline
import Hummingbird
import ServiceLifecycle

/// `GET /events`: what happens to the container's documents, as Server-Sent Events.
extension PreviewServer {
    /// One `change` event per document rendered, failed, moved or removed (from the watcher, a
    /// hook, or an on-demand render), as JSON: `{"kind":"refreshed","path":"a.pdf"}`, and
    /// `"from"` for a move. A comment every 15 seconds keeps proxies from closing the stream and
    /// finds clients that left. The stream ends when the server shuts down, and, with
    /// `stillSignedIn`, within a quarter of a second of the moment its credential no longer
    /// holds (a session signed out, an account removed or given a new password, a token or a share
    /// link revoked): as soon as a new request with it would be refused.
    func events(_ request: Request, stillSignedIn: (@Sendable () async -> Bool)? = nil) -> Response {
        let indexer = indexer
        let signedOut = Flag()
        let body = ResponseBody { writer in
            let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1000))
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await event in indexer.events() { continuation.yield(Self.serverSentEvent(event)) }
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            try await Task.sleep(for: .seconds(15))
                            continuation.yield(": still here\n\n")
                        }
                    }
                    if let stillSignedIn {
                        group.addTask {
                            while !Task.isCancelled {
                                try await Task.sleep(for: Self.credentialRecheck)
                                if await !stillSignedIn() {
                                    signedOut.raise()
                                    continuation.finish()
                                    return
                                }
                            }
                        }
                    }
                    continuation.yield("retry: 2000\n: connected\n\n")
                    // Not even an event queued before the credential ended is sent after it.
                    for await chunk in stream where !signedOut.isRaised {
                        try await writer.write(ByteBuffer(string: chunk))
                    }
                    group.cancelAll()
                }
            } onGracefulShutdown: {
                continuation.finish()
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache"],
            body: body)
    }

    /// How often an event stream asks whether its credential still holds.
    static let credentialRecheck = Duration.milliseconds(250)

    /// The event's SSE text: `event: change` and one line of JSON.
    static func serverSentEvent(_ event: IndexerEvent) -> String {
        let change: ChangeEvent
        switch event {
        case .refreshed(let stored): change = ChangeEvent(kind: "refreshed", path: stored.record.path)
        case .failed(let stored): change = ChangeEvent(kind: "failed", path: stored.record.path)
        case .moved(let from, let to): change = ChangeEvent(kind: "moved", path: to, from: from)
        case .removed(let path): change = ChangeEvent(kind: "removed", path: path)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(change)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: change\ndata: \(json)\n\n"
    }

    /// The JSON of one change event.
    struct ChangeEvent: Encodable {
        let kind: String
        let path: String
        var from: String?
    }
}

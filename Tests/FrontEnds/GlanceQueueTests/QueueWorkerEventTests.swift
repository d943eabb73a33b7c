import GlanceCore
import Testing

@testable import GlanceQueue

/// The lines a queue worker's events become: one line each, whatever the names and reasons hold.
@Suite("Queue worker events", .timeLimit(.minutes(10)))
struct QueueWorkerEventTests {
    @Test("names and reasons are escaped: an event is one line")
    func escaped() {
        let root = "/srv/share\nglance: forged"
        let path = FileName.decode([0x78, 0xFF, 0x2E, 0x74, 0x78, 0x74])  // x\xFF.txt
        let events: [QueueWorker.Event] = [
            .finished(root: root, path: path, state: .fresh),
            .removed(root: root, path: path),
            .givenBack(root: root, path: path, reason: "the container folder \(root) is empty"),
            .notCompleted(jobID: 7, reason: "connection reset\r\n"),
            .storeUnavailable(reason: "server closed\nthe connection"),
            .storeBack,
        ]
        for event in events {
            #expect(!event.description.contains { $0.isNewline }, "\(event.description)")
        }
        #expect(events[0].description == "/srv/share\\nglance: forged/x\\xFF.txt fresh")
        #expect(
            events[2].description
                == "/srv/share\\nglance: forged/x\\xFF.txt: the container folder /srv/share\\nglance: forged is empty; "
                + "given back")
    }

    @Test("only a job's outcome is progress (shown with -v); give-backs and store trouble always show")
    func progress() {
        #expect(QueueWorker.Event.finished(root: "/r", path: "a", state: .fresh).isProgress)
        #expect(QueueWorker.Event.removed(root: "/r", path: "a").isProgress)
        #expect(!QueueWorker.Event.givenBack(root: "/r", path: "a", reason: "x").isProgress)
        #expect(!QueueWorker.Event.storeBack.isProgress)
    }
}

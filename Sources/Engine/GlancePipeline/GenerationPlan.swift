import Foundation
import GlanceContainer
import GlanceCore

/// What a batch will do with each document of a container, worked out from one scan and one
/// read of the store before anything is rendered.
public struct GenerationPlan: Sendable {
    /// A document whose record moved with it (renamed or moved inside the container).
    public struct Move: Sendable, Equatable {
        public var from: String
        public var to: String
        public var identity: FileIdentity
    }

    /// Documents to render.
    public var toRender: [ScannedDocument] = []
    /// Documents kept as recorded, by state.
    public var kept: [DocumentState: [String]] = [:]
    /// Renamed documents: their records move, nothing is rendered.
    public var moves: [Move] = []
    /// Every record, by its path's bytes (``PathKey``), as read before the batch.
    public var records: [PathKey: StoredDocument] = [:]
    /// When the records were read.
    public var madeAt = Date()
    /// The rule the plan was made with (with the batch's `force` and `retryFailed`).
    public var policy = FreshnessPolicy(generatorVersion: "")
    /// What the scan passed over on purpose.
    public var skipped = ContainerScan.Skipped()
    /// Folders the scan could not read.
    public var unreadableFolders: [ContainerScan.UnreadableFolder] = []

    /// Plans a batch over `documents` against `store`'s records.
    ///
    /// A document with no record of its own may be a renamed one: a record whose document is
    /// gone and which has the same device and inode (a rename or a move inside the container),
    /// or the same content digest and size (a copy and delete), follows it instead of a render.
    public static func make(
        documents: [ScannedDocument], store: any ThumbnailStore, policy: FreshnessPolicy,
        digestOf: (String) -> String?
    ) async throws(StoreError) -> GenerationPlan {
        var plan = GenerationPlan()
        for stored in try await store.allDocuments() { plan.records[PathKey(stored.record.path)] = stored }
        let present = Set(documents.map { PathKey($0.path) })
        var orphansByFile: [FileKey: StoredDocument] = [:]
        var orphansBySize: [Int64: [StoredDocument]] = [:]
        for stored in plan.records.values where !present.contains(PathKey(stored.record.path)) {
            orphansByFile[FileKey(stored.record.identity)] = stored
            orphansBySize[stored.record.identity.size, default: []].append(stored)
        }
        var claimedOrphans = Set<PathKey>()
        for document in documents {
            if let stored = plan.records[PathKey(document.path)] {
                switch policy.decide(stored, identity: document.identity) {
                case .keep(let state): plan.kept[state, default: []].append(document.path)
                case .render: plan.toRender.append(document)
                }
                continue
            }
            if let orphan = orphansByFile[FileKey(document.identity)],
                !claimedOrphans.contains(PathKey(orphan.record.path)),
                orphan.record.identity.size == document.identity.size,
                orphan.record.identity.modifiedNanoseconds == document.identity.modifiedNanoseconds
            {
                claimedOrphans.insert(PathKey(orphan.record.path))
                plan.moves.append(Move(from: orphan.record.path, to: document.path, identity: document.identity))
                continue
            }
            let sameSize = (orphansBySize[document.identity.size] ?? []).filter {
                !claimedOrphans.contains(PathKey($0.record.path)) && $0.record.digest != nil
            }
            if !sameSize.isEmpty, let digest = digestOf(document.path),
                let orphan = sameSize.first(where: { $0.record.digest == digest })
            {
                claimedOrphans.insert(PathKey(orphan.record.path))
                plan.moves.append(Move(from: orphan.record.path, to: document.path, identity: document.identity))
                continue
            }
            plan.toRender.append(document)
        }
        return plan
    }

    /// Device and inode, the part of an identity that survives a rename.
    private struct FileKey: Hashable {
        let device: UInt64
        let inode: UInt64
        init(_ identity: FileIdentity) {
            device = identity.device
            inode = identity.inode
        }
    }
}

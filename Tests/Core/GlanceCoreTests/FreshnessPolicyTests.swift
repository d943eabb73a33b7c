import Foundation
import GlanceCore
import Testing

@Suite("The freshness rule", .timeLimit(.minutes(10)))
struct FreshnessPolicyTests {
    static let identity = FileIdentity(device: 1, inode: 2, size: 3_000, modifiedNanoseconds: 1_700_000_000_000_000_001)

    static func stored(_ state: DocumentState, version: String = "2.0", thumbnail: Bool = true) -> StoredDocument {
        let record = DocumentRecord(
            path: "a.jpg", identity: identity, contentType: .jpeg, state: state,
            error: state == .failed ? "corrupt" : nil, generatorVersion: version)
        let images = thumbnail && state == .fresh ? [ThumbnailImage(format: .jpeg, width: 9, height: 9, data: [1])] : []
        return StoredDocument(record: record, thumbnails: images)
    }

    let policy = FreshnessPolicy(generatorVersion: "2.0", sizes: .none)

    @Test("size and modification time decide; device and inode do not (NFS clients, restores)")
    func identityRule() {
        var moved = Self.identity
        moved.device = 77
        moved.inode = 88
        #expect(policy.state(of: Self.stored(.fresh), identity: moved) == .fresh)
        var grown = Self.identity
        grown.size += 1
        #expect(policy.state(of: Self.stored(.fresh), identity: grown) == .stale)
        var touched = Self.identity
        touched.modifiedNanoseconds += 1
        #expect(policy.state(of: Self.stored(.fresh), identity: touched) == .stale)
        #expect(policy.state(of: nil, identity: Self.identity) == .missing)
    }

    @Test("after a version change, failures and unsupported files are stale; thumbnails stay fresh")
    func versionChange() {
        #expect(policy.state(of: Self.stored(.fresh, version: "1.0"), identity: Self.identity) == .fresh)
        #expect(policy.state(of: Self.stored(.failed, version: "1.0"), identity: Self.identity) == .stale)
        #expect(policy.state(of: Self.stored(.unsupported, version: "1.0"), identity: Self.identity) == .stale)
        #expect(policy.state(of: Self.stored(.failed), identity: Self.identity) == .failed)
        #expect(policy.state(of: Self.stored(.fresh, thumbnail: false), identity: Self.identity) == .stale)
    }

    @Test("a PDF without its page count or a text without its encoding (recorded before Glance kept them) is stale")
    func details() {
        func stored(_ type: ContentType, _ details: DocumentDetails?) -> StoredDocument {
            var document = Self.stored(.fresh)
            document.record.contentType = type
            document.record.details = details
            return document
        }
        #expect(policy.state(of: stored(.pdf, nil), identity: Self.identity) == .stale)
        #expect(policy.state(of: stored(.pdf, DocumentDetails(pageCount: 2)), identity: Self.identity) == .fresh)
        #expect(policy.state(of: stored(.text, DocumentDetails(pageCount: 2)), identity: Self.identity) == .stale)
        #expect(
            policy.state(of: stored(.text, DocumentDetails(textEncoding: "UTF-8")), identity: Self.identity) == .fresh)
        #expect(policy.state(of: stored(.png, nil), identity: Self.identity) == .fresh)
    }

    @Test("details from a renderer are kept only where they hold together")
    func checkedDetails() {
        let pages = DocumentDetails(
            pageCount: 3,
            pageSizes: [.init(width: 595, height: 842, count: 2), .init(width: 842, height: 595, count: 1)],
            textEncoding: "SHIFT_JIS")
        #expect(pages.checked == pages)
        #expect(pages.pageSize(3)! == (842, 595) && pages.pageSize(4) == nil)
        // Runs that do not add up to the count, or a size no page has, are dropped; the count stays.
        var wrong = pages
        wrong.pageCount = 4
        #expect(wrong.checked?.pageSizes == nil && wrong.checked?.pageCount == 4)
        wrong.pageCount = 3
        wrong.pageSizes![0].width = .nan
        #expect(wrong.checked?.pageSizes == nil)
        // An encoding name that is not one (markup, a path) is dropped.
        #expect(DocumentDetails(textEncoding: "<b>x</b>").checked == nil)
        #expect(DocumentDetails(pageCount: 0).checked == nil)
        // A store's JSON text reads back the same.
        #expect(DocumentDetails(json: pages.json) == pages)
    }

    @Test("a batch renders exactly what the listing calls stale or missing (and more only when asked)")
    func decisionsFollowStates() {
        let cases: [StoredDocument?] = [
            nil, Self.stored(.fresh), Self.stored(.fresh, version: "1.0"), Self.stored(.failed),
            Self.stored(.failed, version: "1.0"), Self.stored(.unsupported), Self.stored(.unsupported, version: "1.0"),
            Self.stored(.fresh, thumbnail: false),
        ]
        for stored in cases {
            let state = policy.state(of: stored, identity: Self.identity)
            let renders = policy.decide(stored, identity: Self.identity) == .render
            #expect(renders == (state == .stale || state == .missing), "\(state)")
            let retry = FreshnessPolicy(generatorVersion: "2.0", retryFailed: true, sizes: .none)
            #expect((retry.decide(stored, identity: Self.identity) == .render) == (renders || state == .failed))
            let force = FreshnessPolicy(generatorVersion: "2.0", force: true)
            #expect(force.decide(stored, identity: Self.identity) == .render)
        }
    }
}

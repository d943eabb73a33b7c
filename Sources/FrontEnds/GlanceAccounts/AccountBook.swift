import Foundation
import GlanceCore
import Logging
import Synchronization

/// The accounts a server checks requests against, kept as current as its users file: the file is
/// looked at (one `stat`) at most once a check interval (a second, unless the caller says
/// otherwise) and read again when it changed, so that `glance user remove` or a new password ends
/// that account's sessions and tokens within that interval, without a restart. A file that became unreadable or unsafe keeps the accounts last read
/// (logged once): nobody gains an account through a broken file.
public final class AccountBook: Sendable {
    /// What tells one version of the file from another.
    private struct Stamp: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
    }

    private struct State {
        var accounts: Accounts
        var stamp: Stamp?
        var checked: ContinuousClock.Instant
        var reportedFailure = false
    }

    /// The users file, or nil for a fixed set of accounts.
    public let path: String?
    private let state: Mutex<State>
    private let logger: Logger
    /// Where the book reads the time (a test moves its own).
    private let time: TimeSource
    /// The longest a change of the users file goes unseen.
    public let checkInterval: Duration
    /// The check interval a server uses: one `stat` a second costs nothing, and a removed account
    /// loses its access within that second.
    public static let defaultCheckInterval = Duration.seconds(1)

    /// A book of fixed accounts (no file to follow).
    public init(_ accounts: Accounts) {
        path = nil
        checkInterval = Self.defaultCheckInterval
        logger = Logger(label: "glance.accounts")
        time = .continuous
        state = Mutex(State(accounts: accounts, stamp: nil, checked: .now))
    }

    /// The accounts of the users file at `path`, followed from now on: a change is seen at the
    /// first request `checkInterval` or more after the last look, as `time` tells time.
    public init(
        path: String, checkInterval: Duration = defaultCheckInterval,
        logger: Logger = Logger(label: "glance.accounts"), time: TimeSource = .continuous
    ) throws(AccountsError) {
        self.path = path
        self.checkInterval = checkInterval
        self.logger = logger
        self.time = time
        let stamp = Self.stamp(of: path)
        state = Mutex(State(accounts: try Accounts.read(from: path), stamp: stamp, checked: time.now()))
    }

    /// The accounts as the file holds them now (at most a check interval ago).
    public var current: Accounts {
        guard let path else { return state.withLock { $0.accounts } }
        let now = time.now()
        return state.withLock { state in
            guard now - state.checked >= checkInterval else { return state.accounts }
            state.checked = now
            let stamp = Self.stamp(of: path)
            guard stamp != state.stamp else { return state.accounts }
            do {
                state.accounts = try Accounts.read(from: path)
                state.stamp = stamp
                state.reportedFailure = false
                logger.notice("read the users file again", metadata: ["accounts": "\(state.accounts.byName.count)"])
            } catch {
                if !state.reportedFailure {
                    logger.error("kept the accounts last read: \(error)")
                    state.reportedFailure = true
                }
            }
            return state.accounts
        }
    }

    private static func stamp(of path: String) -> Stamp? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Stamp(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            seconds: status.st_mtim.tv_sec, nanoseconds: status.st_mtim.tv_nsec)
    }
}

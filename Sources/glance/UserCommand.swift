import ArgumentParser
import Foundation
import GlanceCore
import GlanceServer

#if canImport(Glibc)
    import Glibc
#endif

/// `glance user add|remove|list --users FILE`: the accounts `glance serve --users FILE` asks for.
struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage the accounts of a users file for 'glance serve --users FILE'.",
        discussion: """
            Each account has a name, a password (stored as a salted yescrypt hash by libxcrypt, \
            never as it is) and the containers it may see (their URL names, /c/NAME; all when none \
            are named). The file is written owner-only; glance serve reads it at start.
            """,
        subcommands: [Add.self, Remove.self, List.self])

    /// `--users FILE`, shared by the subcommands.
    struct File: ParsableArguments {
        @Option(help: ArgumentHelp("The users file.", valueName: "FILE"))
        var users: String
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an account, or set a new password and containers for one.",
            discussion: """
                The password is asked for without echo on a terminal (twice), or read as the first \
                line of standard input otherwise (printf '%s\\n' \"$PASSWORD\" | glance user add ...).
                """)

        @Argument(help: "The account's name: 1 to 64 letters, digits, '.', '_', '-' or '@'.")
        var name: String

        @OptionGroup var file: File

        @Option(
            help: ArgumentHelp(
                "A container this account may see, by its URL name (repeat for several; default: all).",
                valueName: "NAME"))
        var container: [String] = []

        func run() throws {
            guard Accounts.isName(name) else {
                throw CommandFailure.unusable(AccountsError.invalidName(name).description)
            }
            var accounts = try UserCommand.read(file.users)
            let password = try UserCommand.readPassword()
            do {
                accounts.set(
                    try Account(name: name, password: password, containers: container.isEmpty ? nil : Set(container)))
            } catch {
                throw CommandFailure.unusable(error.description)
            }
            try UserCommand.write(accounts, to: file.users)
            print("\(DisplayText.escaped(name)): saved in \(DisplayText.escaped(file.users))")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an account.")

        @Argument(help: "The account's name.")
        var name: String

        @OptionGroup var file: File

        func run() throws {
            var accounts = try UserCommand.read(file.users)
            guard accounts.remove(name) else {
                throw CommandFailure.unusable("\(name): no such account in \(file.users)")
            }
            try UserCommand.write(accounts, to: file.users)
            print("\(DisplayText.escaped(name)): removed")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the accounts and the containers each may see.")

        @OptionGroup var file: File

        func run() throws {
            let accounts = try UserCommand.read(file.users)
            for account in accounts.byName.values.sorted(by: { $0.name < $1.name }) {
                let containers = account.containers.map { $0.sorted().joined(separator: ", ") } ?? "all containers"
                print("\(DisplayText.escaped(account.name))  \(DisplayText.escaped(containers))")
            }
        }
    }

    /// The accounts of `path` (none yet when there is no such file).
    static func read(_ path: String) throws -> Accounts {
        do {
            return try Accounts.read(from: path, missingIsEmpty: true)
        } catch {
            throw CommandFailure.unusable(error.description)
        }
    }

    /// Writes `accounts` to `path` (owner-only, atomically), or says why not (exit 2).
    static func write(_ accounts: Accounts, to path: String) throws {
        do {
            try accounts.write(to: path)
        } catch {
            throw CommandFailure.unusable(error.description)
        }
    }

    /// A password: asked twice without echo on a terminal, else the first line of standard input.
    static func readPassword() throws -> String {
        if isatty(0) == 1 {
            let first = try prompt("Password: ")
            guard try prompt("Again: ") == first else { throw CommandFailure.unusable("the two passwords differ") }
            guard !first.isEmpty else { throw CommandFailure.unusable("an empty password is not a password") }
            return first
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw CommandFailure.unusable("no password on standard input (its first line is the password)")
        }
        return line
    }

    /// One line read from the terminal with echo off.
    private static func prompt(_ text: String) throws -> String {
        StandardError.writeRaw(text)
        var original = termios()
        tcgetattr(0, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(0, TCSAFLUSH, &silent)
        defer {
            tcsetattr(0, TCSAFLUSH, &original)
            StandardError.writeRaw("\n")
        }
        return readLine(strippingNewline: true) ?? ""
    }
}

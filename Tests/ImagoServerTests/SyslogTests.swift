#if os(Linux)
import AsyncHTTPClient
import Foundation
import Glibc
import Imago
import ImagoTestSupport
import Logging
import Testing

@testable import ImagoServer

/// imgproxy's `IMGPROXY_SYSLOG_*`: the variables as imgproxy reads them, and lines received by
/// real sockets (UDP and TCP on loopback, Unix datagram sockets in a temporary folder) in Go's
/// `log/syslog` format, filtered by level.
@Suite struct SyslogTests {
    /// A fresh folder for Unix sockets, short enough for a socket's path.
    static func folder() throws -> URL {
        let folder = URL(fileURLWithPath: "/tmp/imago-syslog-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A logger whose lines go to `writer` only (standard error takes none but critical ones).
    static func logger(_ writer: SyslogWriter, format: ServeLogHandler.Format = .json) -> Logger {
        Logger(label: "imago.serve") { ServeLogHandler(label: $0, format: format, logLevel: .critical, syslog: writer) }
    }

    /// The network form: `<PRI>RFC3339 HOST TAG[PID]: MESSAGE\n`.
    static func networkLine(_ priority: Int, tag: String = "imgproxy") throws -> Regex<AnyRegexOutput> {
        try Regex("<\(priority)>\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(Z|[+-]\\d\\d:\\d\\d) \\S+ \(tag)\\[\(getpid())\\]: .*\n")
    }

    @Test func readsImgproxysVariables() throws {
        let set = try ServeEnvironment([
            "IMGPROXY_SYSLOG_ENABLE": "true", "IMGPROXY_SYSLOG_NETWORK": "udp", "IMGPROXY_SYSLOG_ADDRESS": "10.0.0.5:514",
            "IMGPROXY_SYSLOG_TAG": "pics", "IMGPROXY_SYSLOG_LEVEL": "crit", "IMGPROXY_LOG_MEM_STATS": "1",
        ]).observability
        #expect(set.syslogEnabled == true && set.syslogTag == "pics" && set.syslogLevel == .critical && set.logsMemoryStatistics == true)
        #expect(set.syslogDestination == SyslogDestination(network: .udp, address: "10.0.0.5:514"))
        // No network: the local daemon, the address unread, as in imgproxy.
        let local = try ServeEnvironment(["IMGPROXY_SYSLOG_ENABLE": "true", "IMGPROXY_SYSLOG_ADDRESS": "x"]).observability
        #expect(local.syslogDestination == .local() && local.syslogDestination?.localSockets == ["/dev/log", "/var/run/syslog", "/var/run/log"])
        // Syslog off: its network and address are not read (imgproxy checks them only when on).
        let off = try ServeEnvironment(["IMGPROXY_SYSLOG_NETWORK": "sctp"]).observability
        #expect(off.syslogDestination == nil && off.syslogEnabled == nil)
    }

    @Test(arguments: [
        (["IMGPROXY_SYSLOG_ENABLE": "yes"], "IMGPROXY_SYSLOG_ENABLE"),
        (["IMGPROXY_SYSLOG_LEVEL": "loud"], "IMGPROXY_SYSLOG_LEVEL"),
        (["IMGPROXY_LOG_MEM_STATS": "maybe"], "IMGPROXY_LOG_MEM_STATS"),
        (["IMGPROXY_SYSLOG_ENABLE": "true", "IMGPROXY_SYSLOG_NETWORK": "sctp", "IMGPROXY_SYSLOG_ADDRESS": "a:1"], "IMGPROXY_SYSLOG_NETWORK"),
        (["IMGPROXY_SYSLOG_ENABLE": "true", "IMGPROXY_SYSLOG_NETWORK": "udp"], "IMGPROXY_SYSLOG_ADDRESS"),
        (["IMGPROXY_SYSLOG_ENABLE": "true", "IMGPROXY_SYSLOG_NETWORK": "tcp", "IMGPROXY_SYSLOG_ADDRESS": "loghost"], "IMGPROXY_SYSLOG_ADDRESS"),
    ])
    func aBadValueIsRefusedByName(environment: [String: String], variable: String) {
        #expect {
            _ = try ServeEnvironment(environment)
        } throws: { error in
            (error as? ServeEnvironmentError)?.variable == variable && "\(error)".contains(variable)
        }
    }

    /// Go's layout to the byte: the network form with an RFC 3339 time (`Z` in UTC, else the
    /// offset), the local daemon's without the host and with `Jan _2 15:04:05`.
    @Test func linesAreLaidOutAsGosLogSyslog() throws {
        let date = Date(timeIntervalSince1970: 1_794_736_800)  // 2026-11-15T10:00:00Z
        let utc = try #require(TimeZone(identifier: "UTC"))
        let india = try #require(TimeZone(secondsFromGMT: 5 * 3600 + 1800))
        #expect(
            SyslogWriter.line("boom", severity: 3, tag: "imgproxy", hostname: "box", pid: 42, local: false, date: date, timeZone: utc)
                == "<3>2026-11-15T10:00:00Z box imgproxy[42]: boom\n")
        #expect(
            SyslogWriter.line("boom\n", severity: 6, tag: "t", hostname: "box", pid: 7, local: false, date: date, timeZone: india)
                == "<6>2026-11-15T15:30:00+05:30 box t[7]: boom\n")
        let ninth = date - 6 * 86_400
        #expect(
            SyslogWriter.line("boom", severity: 7, tag: "imgproxy", hostname: "box", pid: 42, local: true, date: ninth, timeZone: utc)
                == "<7>Nov  9 10:00:00 imgproxy[42]: boom\n")
        #expect(SyslogWriter.severity(.notice) == 5 && SyslogWriter.severity(.critical) == 2 && SyslogWriter.severity(.trace) == 7)
    }

    /// A UDP server gets the line in the log format, with the warning's PRI (facility 0, as
    /// imgproxy's) and the tag.
    @Test func aUDPServerReceivesTheLine() throws {
        let listener = try SyslogListener.loopback()
        let writer = try SyslogWriter(
            destination: SyslogDestination(network: .udp, address: "127.0.0.1:\(listener.port)"), tag: "pics", level: .debug)
        let logger = Self.logger(writer)
        #expect(logger.logLevel == .debug)  // the lower of the two levels
        logger.warning("disk full", metadata: ["path": "/a"])
        #expect(writer.flush())
        let line = try #require(listener.datagram())
        #expect(line.wholeMatch(of: try Self.networkLine(4, tag: "pics")) != nil, "\(line)")
        let json = try #require(line.range(of: "]: ").map { String(line[$0.upperBound...].dropLast()) })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
        #expect(object["msg"] == "disk full" && object["level"] == "warning" && object["path"] == "/a")
    }

    /// A line longer than a UDP datagram takes is cut (at a character, with its newline), and
    /// the lines after it still go out.
    @Test func aLongLineIsCutToOneDatagram() throws {
        let listener = try SyslogListener.loopback()
        let writer = try SyslogWriter(destination: SyslogDestination(network: .udp, address: "127.0.0.1:\(listener.port)"))
        let logger = Self.logger(writer, format: .structured)
        logger.info("\(String(repeating: "é", count: 50_000))")
        logger.info("after")
        #expect(writer.flush())
        let long = try #require(listener.datagram())
        #expect(long.utf8.count <= SyslogWriter.maximumDatagramBytes && long.utf8.count > 60_000 && long.hasSuffix("é\n"))
        #expect(try #require(listener.datagram()).contains("msg=after"))
        #expect(writer.droppedCount == 0)
    }

    /// Lines below the syslog level are not sent; each one sent has its level's severity.
    @Test func linesBelowTheLevelAreNotSent() throws {
        let listener = try SyslogListener.loopback()
        let writer = try SyslogWriter(
            destination: SyslogDestination(network: .udp4, address: "localhost:\(listener.port)"), level: .warning)
        let logger = Self.logger(writer, format: .pretty)
        logger.debug("one")
        logger.info("two")
        logger.warning("three")
        logger.notice("four")
        logger.error("five")
        #expect(writer.flush())
        let first = try #require(listener.datagram())
        let second = try #require(listener.datagram())
        #expect(first.hasPrefix("<4>") && first.contains("msg=three"), "\(first)")  // `structured` for `pretty`
        #expect(second.hasPrefix("<3>") && second.contains("msg=five"), "\(second)")
        #expect(writer.droppedCount == 0)
    }

    /// A Unix datagram socket named by path gets the network form; the local daemon's socket (the
    /// first of its paths that exists) gets the local form, without the host name.
    @Test func unixDatagramSocketsReceiveTheirForms() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("log").path
        let listener = try SyslogListener.unixDatagram(at: path)
        let named = try SyslogWriter(destination: SyslogDestination(network: .unixgram, address: path))
        Self.logger(named).info("hello")
        #expect(named.flush())
        let line = try #require(listener.datagram())
        #expect(line.wholeMatch(of: try Self.networkLine(6)) != nil, "\(line)")
        let local = try SyslogWriter(destination: .local(sockets: [folder.appendingPathComponent("none").path, path]), tag: "pics")
        Self.logger(local).error("hello")
        #expect(local.flush())
        let daemon = try #require(listener.datagram())
        let form = try Regex("<3>[A-Z][a-z]{2} [ 123]\\d \\d\\d:\\d\\d:\\d\\d pics\\[\(getpid())\\]: \\{.*\"msg\":\"hello\".*\\}\n")
        #expect(daemon.wholeMatch(of: form) != nil, "\(daemon)")
    }

    /// Over TCP each line ends with a newline (Go's framing); when the server drops the
    /// connection, the writer connects again and lines arrive on the new one.
    @Test func aTCPServerGetsNewlineFramedLinesAndAReconnect() throws {
        let listener = try SyslogListener.loopback(stream: true)
        let writer = try SyslogWriter(destination: SyslogDestination(network: .tcp, address: "127.0.0.1:\(listener.port)"))
        let logger = Self.logger(writer, format: .structured)
        #expect(listener.accept())
        logger.info("first")
        logger.info("second")
        #expect(writer.flush())
        let first = try #require(listener.line())
        #expect(first.wholeMatch(of: try Self.networkLine(6)) != nil && first.contains("msg=first"), "\(first)")
        #expect(try #require(listener.line()).contains("msg=second"))
        listener.dropConnection()
        // The first send after the drop may still be taken by the dead connection; the next fails
        // and is sent again on a new one.
        var reconnected = false
        for attempt in 0..<50 where !reconnected {
            logger.info("again \(attempt)")
            #expect(writer.flush())
            reconnected = listener.accept(within: 100)
        }
        #expect(reconnected)
        let again = try #require(listener.line())
        #expect(again.hasPrefix("<6>") && again.contains("msg=\"again"), "\(again)")
    }

    /// A server that goes away: the lines are dropped and counted, the failure reported once,
    /// however many lines follow.
    @Test func aFailureIsReportedOnce() throws {
        let reports = Locked<[String]>([])
        var listener: SyslogListener? = try SyslogListener.loopback(stream: true)
        let port = try #require(listener?.port)
        let writer = try SyslogWriter(
            destination: SyslogDestination(network: .tcp, address: "127.0.0.1:\(port)"),
            report: { level, text in reports.withLock { $0.append("\(level) \(text)") } })
        #expect(listener?.accept() == true)
        listener = nil  // the connection and the listening socket closed
        let logger = Self.logger(writer)
        for index in 0..<6 { logger.info("line \(index)") }
        #expect(writer.flush())
        let told = reports.withLock { $0 }
        #expect(told.count == 1 && told.first?.hasPrefix("error syslog (tcp 127.0.0.1:\(port)): ") == true, "\(told)")
        #expect(writer.droppedCount >= 5, "\(writer.droppedCount)")
    }

    /// A destination that refuses the connection fails the writer at once, as imgproxy's start.
    @Test func aRefusedDestinationFailsTheWriter() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("none").path
        #expect(throws: SyslogSocket.Failure.self) {
            _ = try SyslogWriter(destination: SyslogDestination(network: .unixgram, address: missing))
        }
        #expect(throws: SyslogSocket.Failure.self) {
            _ = try SyslogWriter(destination: .local(sockets: [missing]))
        }
    }

    /// `imago serve` does not start when syslog cannot be reached, and names the variables.
    @Test(.disabled(if: ExternalPrograms.sanitized, "the sanitizer builds have no imago executable"))
    func aRefusedDestinationStopsTheStart() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("none").path
        let executable = try #require(BuiltExecutable.url(named: "imago"), "no built imago beside the test bundle")
        do {
            let serve = try await ServeProcess.start(
                executable, in: folder.appendingPathComponent("serve"), arguments: ["--allow-unsigned"],
                environment: ["IMGPROXY_SYSLOG_ENABLE": "true", "IMGPROXY_SYSLOG_NETWORK": "unix", "IMGPROXY_SYSLOG_ADDRESS": missing])
            await serve.stop()
            Issue.record("imago serve started with a syslog socket that does not exist")
        } catch let failure as ServeProcess.Failure {
            #expect(failure.description.contains("IMGPROXY_SYSLOG"), "\(failure.description)")
        }
    }

    /// `imago serve` with imgproxy's variables: its lines at the syslog level reach a UDP server
    /// with the default tag and the server's PID, and `IMGPROXY_LOG_MEM_STATS` logs the memory
    /// line after a processed request.
    @Test(.disabled(if: ExternalPrograms.sanitized, "the sanitizer builds have no imago executable"))
    func imagoServeSendsItsLinesToSyslog() async throws {
        let listener = try SyslogListener.loopback()
        try await withServeProcess(
            arguments: ["--allow-unsigned"],
            environment: [
                "IMGPROXY_SYSLOG_ENABLE": "true", "IMGPROXY_SYSLOG_NETWORK": "udp", "IMGPROXY_SYSLOG_ADDRESS": "127.0.0.1:\(listener.port)",
                "IMGPROXY_LOG_LEVEL": "debug", "IMGPROXY_SYSLOG_LEVEL": "info", "IMGPROXY_LOG_FORMAT": "json", "IMGPROXY_LOG_MEM_STATS": "true",
            ]
        ) { serve, client in
            // Warnings come first (unsigned paths); the line that says where it listens is info.
            var lines: [String] = []
            while lines.count < 20, !(lines.last?.contains("listening") ?? false), let line = listener.datagram() { lines.append(line) }
            let started = try #require(lines.last)
            #expect(started.hasPrefix("<6>") && started.contains(" imgproxy[\(serve.pid)]: {") && started.contains("listening"), "\(lines)")
            #expect(lines.allSatisfy { !$0.hasPrefix("<7>") })  // the syslog level, not the log level
            let response = try await client.execute(
                .init(url: "http://127.0.0.1:\(serve.port)/insecure/w:nope/plain/http://example.com/a.jpg"), timeout: .seconds(30))
            #expect(response.status.code == 400)
            let memory = await eventually(within: .seconds(30)) {
                let errors = (try? String(contentsOf: serve.folder.appendingPathComponent("stderr.txt"), encoding: .utf8)) ?? ""
                return errors.split(separator: "\n").contains { $0.contains("\"msg\":\"memory usage\"") && $0.contains("\"resident_bytes\"") }
            }
            #expect(memory)
        }
    }
}
#endif

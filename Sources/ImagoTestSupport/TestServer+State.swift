#if os(Linux) || os(macOS)  // the loopback server: where test suites run (see Package.swift)
import Foundation
import Imago
import NIOCore

extension TestServer {
    /// Everything the server's connections share, kept behind one lock (`Locked`): the registered
    /// resources and behaviors, the request log, and the counters tests read.
    struct State: Sendable {
        var resources: [String: Resource] = [:]
        var behaviors: [String: Behavior] = [:]
        /// How many entries of each path's ``Behavior/sequence(_:)`` have been served.
        var sequencePositions: [String: Int] = [:]
        var requests: [String: [RecordedRequest]] = [:]
        var totalRequests = 0
        var openConnections = 0
        var peakConnections = 0
        var requestsInFlight = 0
        var peakRequests = 0
        /// Open connections, so that shutdown can close them (and end endless bodies).
        var channels: [ObjectIdentifier: any Channel] = [:]
        var isShutDown = false
        /// Requests of ``Behavior/held`` paths, waiting for ``TestServer/release(_:)``.
        var heldRequests: [String: [CheckedContinuation<Void, Never>]] = [:]
        /// Paths released since their ``Behavior/held`` was set: their requests pass at once.
        var releasedPaths: Set<String> = []
        /// Parts of ``Behavior/slices(boundaries:)`` responses let go, by path.
        var slicesReleased: [String: Int] = [:]
        /// Responses waiting to send a part: the part's number and who waits.
        var sliceWaiters: [String: [(slice: Int, continuation: CheckedContinuation<Void, Never>)]] = [:]
        /// Body bytes sent, by path.
        var bodyBytesSent: [String: Int] = [:]

        /// Registers a new connection; false once the server is shutting down.
        mutating func open(_ channel: any Channel) -> Bool {
            guard !isShutDown else { return false }
            channels[ObjectIdentifier(channel)] = channel
            openConnections += 1
            peakConnections = max(peakConnections, openConnections)
            return true
        }

        mutating func close(_ channel: any Channel) {
            guard channels.removeValue(forKey: ObjectIdentifier(channel)) != nil else { return }
            openConnections -= 1
        }

        /// Logs `request` and decides how to answer it: the behavior for its path (advancing a
        /// sequence) and the resource, if any.
        mutating func begin(_ request: RecordedRequest) -> (Behavior, Resource?) {
            requests[request.path, default: []].append(request)
            totalRequests += 1
            requestsInFlight += 1
            peakRequests = max(peakRequests, requestsInFlight)

            var behavior = behaviors[request.path] ?? .normal
            if case .sequence(let steps) = behavior {
                let position = sequencePositions[request.path, default: 0]
                sequencePositions[request.path] = position + 1
                behavior = position < steps.count ? steps[position] : .normal
                if case .sequence = behavior { behavior = .normal }
            }
            return (behavior, resources[request.path])
        }

        mutating func end() {
            requestsInFlight -= 1
        }

        /// Clears the request log and counts, and restarts the peaks from what is open now.
        mutating func resetCounts() {
            requests = [:]
            bodyBytesSent = [:]
            totalRequests = 0
            peakConnections = openConnections
            peakRequests = requestsInFlight
        }
    }
}
#endif

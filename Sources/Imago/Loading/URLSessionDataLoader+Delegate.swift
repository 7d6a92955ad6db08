import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionDataLoader {
    /// The session's delegate: hands each task's events to its ``Transfer`` and reports when the
    /// session has become invalid.
    final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
        private struct State {
            var transfers: [Int: Transfer] = [:]
            var isShuttingDown = false
            var isInvalid = false
            var invalidationWaiters: [CheckedContinuation<Void, Never>] = []
        }

        private let state = Locked(State())

        /// Creates a task for `request` whose events go to `transfer`; nil once shutting down.
        func makeTask(for request: URLRequest, in session: URLSession, handledBy transfer: Transfer) -> URLSessionDataTask? {
            state.withLock { state in
                guard !state.isShuttingDown else { return nil }
                let task = session.dataTask(with: request)
                state.transfers[task.taskIdentifier] = transfer
                return task
            }
        }

        /// Marks the session as shutting down; false when that had already begun.
        func beginShutdown() -> Bool {
            state.withLock { state in
                defer { state.isShuttingDown = true }
                return !state.isShuttingDown
            }
        }

        func waitUntilInvalid() async {
            await withCheckedContinuation { continuation in
                let isInvalid = state.withLock { state in
                    if !state.isInvalid { state.invalidationWaiters.append(continuation) }
                    return state.isInvalid
                }
                if isInvalid { continuation.resume() }
            }
        }

        /// Tasks whose end has not been reported.
        var activeCount: Int { state.withLock { $0.transfers.count } }

        /// Drops a task that will never be resumed.
        func forget(_ task: URLSessionTask) {
            _ = state.withLock { $0.transfers.removeValue(forKey: task.taskIdentifier) }
        }

        private func transfer(for task: URLSessionTask) -> Transfer? {
            state.withLock { $0.transfers[task.taskIdentifier] }
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            if transfer(for: dataTask)?.receive(response) == true {
                completionHandler(.allow)
            } else {
                completionHandler(.cancel)
                // swift-corelibs-foundation ignores the disposition; cancel explicitly.
                dataTask.cancel()
            }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            if transfer(for: dataTask)?.receive(data) != true {
                dataTask.cancel()
            }
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            guard let transfer = transfer(for: task) else {
                completionHandler(nil)
                task.cancel()
                return
            }
            if let next = transfer.redirect(response, proposed: request) {
                completionHandler(next)
            } else {
                // Without a redirect, the session delivers the redirect response itself; a
                // refused one has recorded its failure, which the cancellation reports.
                completionHandler(nil)
                if transfer.hasFailed { task.cancel() }
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let transfer = state.withLock { $0.transfers.removeValue(forKey: task.taskIdentifier) }
            transfer?.complete(error)
        }

        func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
            let waiters = state.withLock { state in
                state.isShuttingDown = true
                state.isInvalid = true
                defer { state.invalidationWaiters = [] }
                return state.invalidationWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}

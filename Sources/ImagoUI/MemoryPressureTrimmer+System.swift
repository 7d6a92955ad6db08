#if canImport(UIKit) && !os(watchOS)
import Foundation
import UIKit
#elseif os(macOS)
import Dispatch
#endif

extension MemoryPressureTrimmer {
    /// The system's memory warnings, delivered as ``MemoryPressure`` levels: wiring only, the
    /// trimmer decides what to do. UIKit's `didReceiveMemoryWarningNotification` on iOS, tvOS
    /// and visionOS; a `DispatchSource` memory-pressure source on macOS; nothing on watchOS and
    /// Linux, which offer no such signal to an app or a server.
    final class SystemSubscription: @unchecked Sendable {
        // @unchecked: the observer token and the source are only kept, never used, after `start`.
        private let cancellation: @Sendable () -> Void

        private init(cancellation: @escaping @Sendable () -> Void) { self.cancellation = cancellation }

        deinit { cancellation() }

        /// Starts listening; `nil` where the platform has nothing to listen to.
        static func start(_ handler: @escaping @Sendable (MemoryPressure) -> Void) -> SystemSubscription? {
            #if canImport(UIKit) && !os(watchOS)
            let center = NotificationCenter.default
            let token = center.addObserver(
                forName: UIApplication.didReceiveMemoryWarningNotification, object: nil, queue: nil
            ) { _ in handler(.critical) }
            let box = UncheckedBox(token)
            return SystemSubscription { center.removeObserver(box.value) }
            #elseif os(macOS)
            let source = UncheckedBox(
                DispatchSource.makeMemoryPressureSource(eventMask: [.warning, .critical], queue: .global(qos: .utility)))
            source.value.setEventHandler {
                let event = source.value.data
                if event.contains(.critical) {
                    handler(.critical)
                } else if event.contains(.warning) {
                    handler(.warning)
                }
            }
            source.value.resume()
            return SystemSubscription { source.value.cancel() }
            #else
            return nil
            #endif
        }
    }

    /// A value carried into a `@Sendable` closure that only hands it back to the API it came from.
    private struct UncheckedBox<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
}

import Foundation
import Testing

@testable import Imago

/// The stall limit measures the server's silence, not time the process spent without a thread for
/// the download: a watchdog that wakes far later than it asked starts the limit again.
@Suite struct DownloadWatchdogTests {
    let start = ContinuousClock.now

    @Test func wakingOnTimeChangesNothing() {
        let last = start
        let wake = start + .seconds(15)
        for slack in [Duration.zero, .milliseconds(5), .milliseconds(999), DownloadWatchdog.starvationTolerance] {
            #expect(DownloadWatchdog.creditingStarvation(lastActivity: last, wake: wake, woke: wake + slack) == last)
        }
    }

    @Test func wakingLateRestartsTheStallLimitFromTheWakeUp() {
        let last = start + .seconds(2)
        let wake = last + .seconds(15)
        let woke = wake + .seconds(9)
        let credited = DownloadWatchdog.creditingStarvation(lastActivity: last, wake: wake, woke: woke)
        #expect(credited == woke)
    }

    /// Activity noted between the late wake-up and the credit is later still, and is kept.
    @Test func wakingLateNeverMovesActivityBackwards() {
        let wake = start + .seconds(15)
        let woke = wake + .seconds(9)
        let byteAfterWaking = woke + .milliseconds(3)
        #expect(DownloadWatchdog.creditingStarvation(lastActivity: byteAfterWaking, wake: wake, woke: woke) == byteAfterWaking)
    }
}

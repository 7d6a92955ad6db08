/// How long browsers show an animation frame for the delay its file declares.
///
/// Delays of 10 ms or less play as 100 ms: many files (ads above all) declare 0 to flash as fast
/// as possible, and every major browser slows them down. Chromium does it where Blink reports a
/// frame's duration (`ImageDecoder`/`DeferredImageDecoder`: "We follow Firefox's behavior and use a
/// duration of 100 ms for any frames that specify a duration of <= 10 ms", WebKit bug 36082), and
/// WebKit and Firefox agree. For GIF, whose delays count hundredths of a second, 0 and 1 become
/// 100 ms, so the shortest delay that plays as written is 20 ms: the browsers' 20 ms floor.
/// Longer delays play as declared.
enum FrameTiming {
    /// Declared delays at or below this play as ``replacementDuration``. 10 ms.
    public static let minimumHonouredDuration: Duration = .milliseconds(10)
    /// What a too-short delay plays as. 100 ms.
    public static let replacementDuration: Duration = .milliseconds(100)

    /// The display time of a frame that declares `declared`.
    public static func displayDuration(_ declared: Duration) -> Duration {
        declared <= minimumHonouredDuration ? replacementDuration : declared
    }
}

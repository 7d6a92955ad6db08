import Imago

extension PipelineEvent {
    /// A short name for comparing sequences of events: `started`, `progress`,
    /// `preview:SCANS`, `completed:SOURCE`, `failed:CODE`, `cancelled`.
    var name: String {
        switch self {
        case .started: "started"
        case .progress: "progress"
        case .preview(_, let preview): "preview:\(preview.scanCount)"
        case .completed(_, let source, _): "completed:\(source.rawValue)"
        case .failed(_, let error): "failed:\(error.code)"
        case .cancelled: "cancelled"
        }
    }
}

extension Array where Element == String {
    /// Appends `event`'s name, folding a run of progress events into one.
    mutating func append(_ event: PipelineEvent) {
        if event.name == "progress", last == "progress" { return }
        append(event.name)
    }
}

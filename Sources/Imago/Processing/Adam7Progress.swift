/// Which rows of an Adam7-interlaced image's seven passes have arrived, and where their pixels lie
/// in the image: the bookkeeping ``InterlacedBoxReducer`` and ``DeepInterlacedBoxReducer`` share.
struct Adam7Progress {
    /// Adam7: first column, column step, first row, row step of each pass.
    static let passes: [(column: Int, columnStep: Int, row: Int, rowStep: Int)] = [
        (0, 8, 0, 8), (4, 8, 0, 8), (0, 4, 4, 8), (2, 4, 0, 4), (0, 2, 2, 4), (1, 2, 0, 2), (0, 1, 1, 2),
    ]

    /// Where a pass's row lands in the image.
    struct Row {
        /// The image row.
        var y: Int
        /// The image column of the row's first pixel, and the columns between its pixels.
        var column: Int
        var columnStep: Int
        /// How many of the row's pixels to take: those given that lie in the image.
        var count: Int
    }

    let shape: BoxReduction
    /// Rows of each pass added so far (they arrive in order).
    private var passRowsAdded = [Int](repeating: 0, count: 7)
    private var pixelsAdded = 0

    init(_ shape: BoxReduction) { self.shape = shape }

    /// Row `passRow` of `pass` (0–6), `columns` pixels long, counted as added; nil, and nothing
    /// counted, for a pass out of range, a row out of order or one past the image.
    mutating func add(pass: Int, passRow: Int, columns: Int) -> Row? {
        guard (0..<7).contains(pass) else { return nil }
        let layout = Self.passes[pass]
        let y = layout.row + passRow * layout.rowStep
        guard y < shape.sourceHeight, passRow == passRowsAdded[pass] else { return nil }
        let count = min(columns, (shape.sourceWidth - layout.column + layout.columnStep - 1) / layout.columnStep)
        passRowsAdded[pass] = passRow + 1
        pixelsAdded += count
        return Row(y: y, column: layout.column, columnStep: layout.columnStep, count: count)
    }

    /// Whether every pixel of the image was added.
    var isComplete: Bool { pixelsAdded == shape.sourceWidth * shape.sourceHeight }

    /// Per pass: how many of its columns fall in each output column, and how many of its rows
    /// (those added) in each output row; a block's pixel count is the sum over the passes of their
    /// products.
    func blockCounts() -> (columns: [[UInt32]], rows: [[UInt32]]) {
        var columnCounts = [[UInt32]](repeating: [UInt32](repeating: 0, count: shape.width), count: 7)
        var rowCounts = [[UInt32]](repeating: [UInt32](repeating: 0, count: shape.height), count: 7)
        for (pass, layout) in Self.passes.enumerated() {
            var x = layout.column
            while x < shape.sourceWidth {
                columnCounts[pass][x / shape.factor] += 1
                x += layout.columnStep
            }
            for passRow in 0..<passRowsAdded[pass] {
                rowCounts[pass][(layout.row + passRow * layout.rowStep) / shape.factor] += 1
            }
        }
        return (columnCounts, rowCounts)
    }
}

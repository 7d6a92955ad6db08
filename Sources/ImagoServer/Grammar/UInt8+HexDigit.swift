#if os(Linux)
extension UInt8 {
    /// The value of this ASCII byte as a hexadecimal digit (`0`–`9`, `a`–`f`, `A`–`F`), or nil:
    /// for colours in processing paths and for signing keys.
    var hexDigitValue: UInt8? {
        switch self {
        case 48...57: self - 48
        case 97...102: self - 87
        case 65...70: self - 55
        default: nil
        }
    }
}
#endif

/// Lower-case hexadecimal, two digits a byte: digests in ETags and logs, token hashes, APNs
/// device tokens. One spelling for every module (a `String(format:)` per byte was written in
/// several, and is slow).
extension Sequence where Element == UInt8 {
    package var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

import Foundation

/// CRC-32 (IEEE 802.3, the one zlib and PNG use), which tells a whole journal record from a torn or
/// damaged one.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// The checksum of some bytes (`checksum("123456789") == 0xCBF43926`).
    static func checksum(_ data: some DataProtocol) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for region in data.regions {
                region.withUnsafeBytes { bytes in
                    for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
                }
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}

import Foundation

/// CRC-32 (IEEE 802.3, the one zlib and PNG use), which tells a whole journal record from a torn or
/// damaged one.
///
/// Computed eight bytes at a time ("slicing-by-8", eight tables of 256 entries): a start checks
/// every record of the history journal (≈ 5 MB for 10,000 events), and the byte-at-a-time loop
/// was half of that start's time.
enum CRC32 {
    /// `tables[k * 256 + byte]`: table 0 is the classic byte table; table k advances k more bytes
    /// of zeros.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            tables[index] = value
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The checksum of some bytes (`checksum("123456789") == 0xCBF43926`).
    static func checksum(_ data: some DataProtocol) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        tables.withUnsafeBufferPointer { table in
            for region in data.regions {
                region.withUnsafeBytes { bytes in
                    var offset = 0
                    while bytes.count - offset >= 8 {
                        let low = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) ^ crc
                        let high = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                        crc = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                            ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                            ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                            ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                        offset += 8
                    }
                    while offset < bytes.count {
                        crc = table[Int((crc ^ UInt32(bytes[offset])) & 0xFF)] ^ (crc >> 8)
                        offset += 1
                    }
                }
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}

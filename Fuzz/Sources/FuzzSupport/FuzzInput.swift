/// The fuzzer's bytes read as a sequence of small structured values, in the spirit of LLVM's
/// `FuzzedDataProvider`: a byte for a choice, a string up to a NUL byte. Reading past the end gives
/// zeros and empty strings, so every input, however short, describes some value.
///
/// Strings end at a NUL (`0x00`) so that seed files can be written with `printf`; bytes that are not
/// UTF-8 are repaired (U+FFFD), as every Parley input reaches the code as a Swift `String`.
public struct FuzzInput {
    public let bytes: [UInt8]
    public private(set) var index = 0

    /// The input as libFuzzer hands it over.
    public init(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        bytes = count > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: count)) : []
    }

    /// An input from bytes (regression files read by hand).
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// True when every byte has been read.
    public var isAtEnd: Bool { index >= bytes.count }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A choice among `count` (at least 1) cases.
    public mutating func choice(_ count: Int) -> Int { Int(byte()) % max(1, count) }

    /// One of `elements` (not empty).
    public mutating func pick<T>(_ elements: [T]) -> T { elements[choice(elements.count)] }

    /// A signed integer of `byteCount` bytes (1 to 8), little-endian, sign-extended.
    public mutating func integer(bytes byteCount: Int) -> Int {
        var value: UInt64 = 0
        for shift in 0..<byteCount { value |= UInt64(byte()) << (8 * UInt64(shift)) }
        let unused = UInt64(64 - 8 * byteCount)
        return Int(Int64(bitPattern: value << unused) >> Int64(unused))
    }

    /// The bytes up to the next NUL (which is consumed) or the end, at most `limit` of them.
    public mutating func stringBytes(limit: Int = .max) -> ArraySlice<UInt8> {
        let start = index
        while index < bytes.count, bytes[index] != 0, index - start < limit { index += 1 }
        let slice = bytes[start..<index]
        if index < bytes.count, bytes[index] == 0 { index += 1 }
        return slice
    }

    /// The text up to the next NUL or the end, repaired to valid Unicode.
    public mutating func string(limit: Int = .max) -> String { String(decoding: stringBytes(limit: limit), as: UTF8.self) }

    /// Every byte not read yet.
    public mutating func rest() -> ArraySlice<UInt8> {
        defer { index = bytes.count }
        return bytes[min(index, bytes.count)...]
    }

    /// Every byte not read yet, as text repaired to valid Unicode.
    public mutating func restString() -> String { String(decoding: rest(), as: UTF8.self) }
}

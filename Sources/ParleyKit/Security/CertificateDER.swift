/// Just enough DER to find a certificate's SubjectPublicKeyInfo, which is what a key pin hashes.
///
/// ParleyKit pins on Apple platforms too, where the system hands over certificates as DER and no
/// X.509 library is linked; reading seven fields of a structure fixed by RFC 5280 §4.1 is small
/// enough to own:
///
///     Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }
///     TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer,
///                                   validity, subject, subjectPublicKeyInfo, … }
enum CertificateDER {
    /// The DER bytes (tag and length included) of the certificate's SubjectPublicKeyInfo.
    /// - Throws: ``ParleyError`` (invalid input) for anything that is not a well-formed certificate.
    static func subjectPublicKeyInfo(of certificate: [UInt8]) throws -> ArraySlice<UInt8> {
        var outer = DERReader(certificate[...])
        var certificateBody = try outer.read(tag: sequence).contents
        var tbs = try certificateBody.read(tag: sequence).contents
        if tbs.peekTag == explicitVersion { _ = try tbs.read(tag: explicitVersion) }
        for _ in 0..<5 { _ = try tbs.readAny() }  // serialNumber, signature, issuer, validity, subject
        let keyInfo = try tbs.read(tag: sequence)
        return keyInfo.whole
    }

    private static let sequence: UInt8 = 0x30
    private static let explicitVersion: UInt8 = 0xA0
}

/// Reads DER elements (tag, length, contents) off the front of a byte slice.
struct DERReader {
    /// One element: its bytes with tag and length, and its contents alone.
    struct Element {
        let whole: ArraySlice<UInt8>
        let contents: DERReader
    }

    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    /// The next element's tag, or nil at the end.
    var peekTag: UInt8? { bytes.first }

    /// Reads the next element, which must carry `tag`.
    mutating func read(tag: UInt8) throws -> Element {
        guard bytes.first == tag else { throw Self.malformed }
        return try readAny()
    }

    /// Reads the next element, whatever its tag (single-byte tags only, which is all X.509 uses).
    mutating func readAny() throws -> Element {
        let start = bytes.startIndex
        guard bytes.count >= 2, bytes[start] & 0x1F != 0x1F else { throw Self.malformed }
        var index = start + 1
        let first = Int(bytes[index])
        index += 1
        let length: Int
        if first < 0x80 {
            length = first
        } else {
            // Long form: the low bits count the length's bytes; DER forbids 0x80 (indefinite) and
            // we refuse lengths past 4 bytes (no certificate is 4 GiB).
            let count = first & 0x7F
            guard (1...4).contains(count), bytes.endIndex - index >= count else { throw Self.malformed }
            length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        guard length >= 0, bytes.endIndex - index >= length else { throw Self.malformed }
        let end = index + length
        let element = Element(whole: bytes[start..<end], contents: DERReader(bytes[index..<end]))
        bytes = bytes[end...]
        return element
    }

    private static var malformed: ParleyError { ParleyError.invalidInput("not a DER-encoded X.509 certificate") }
}

@testable import ParleyServer
import Testing

/// The mask check alone: client frame bytes in, a verdict out, no sockets.
struct ClientFrameCheckTests {
    /// Feeds the bytes in reads of the given sizes (the last takes the rest); the verdicts.
    func scan(_ bytes: [UInt8], reads sizes: [Int] = [], check: inout ClientFrameCheck) -> [ClientFrameCheck.Verdict] {
        var verdicts: [ClientFrameCheck.Verdict] = []
        var rest = bytes[...]
        for size in sizes + [rest.count] where !rest.isEmpty {
            let read = rest.prefix(size)
            rest = rest.dropFirst(size)
            verdicts.append(Array(read).withUnsafeBytes { check.scan($0) })
        }
        return verdicts
    }

    @Test(arguments: [0, 1, 125, 126, 65_535, 65_536, 200_000])
    func maskedFramesOfEverySize_pass_inOneReadOrByteByByte(_ size: Int) {
        let frames = RawFrames.frame([UInt8](repeating: 0x61, count: size), masked: true) + RawFrames.frame(opcode: RawFrames.ping, [], masked: true)
        var whole = ClientFrameCheck()
        #expect(scan(frames, check: &whole) == [.masked])
        #expect(whole.state == .frameStart, "ends on a frame boundary")
        if size <= 65_536 {
            var pieces = ClientFrameCheck()
            #expect(scan(frames, reads: Array(repeating: 1, count: frames.count - 1), check: &pieces).allSatisfy { $0 == .masked })
            #expect(pieces.state == .frameStart)
        }
    }

    @Test func anUnmaskedFrame_isFound_withTheMaskedFramesBeforeItInTheSameRead() {
        let masked = RawFrames.frame("first", masked: true)
        let bytes = masked + RawFrames.frame("second", masked: false) + RawFrames.frame("third", masked: true)
        var check = ClientFrameCheck()
        #expect(scan(bytes, check: &check) == [.unmasked(validPrefix: masked.count)])
        #expect(check.state == .unmasked)
        #expect(scan(RawFrames.frame("more", masked: true), check: &check) == [.unmasked(validPrefix: 0)], "nothing more passes")
    }

    @Test func anUnmaskedFrameWhoseFirstByteCameEarlier_hasNoValidPrefix() {
        let masked = RawFrames.frame("first", masked: true)
        let bytes = masked + RawFrames.frame("second", masked: false)
        var check = ClientFrameCheck()
        #expect(scan(bytes, reads: [masked.count + 1], check: &check) == [.masked, .unmasked(validPrefix: 0)])
    }

    @Test func anUnmaskedEmptyFrame_andAnUnmaskedControlFrame_areFound() {
        for frame in [RawFrames.frame("", masked: false), RawFrames.frame(opcode: RawFrames.ping, "x", masked: false),
                      RawFrames.frame(opcode: RawFrames.close, [0x03, 0xE8], masked: false)] {
            var check = ClientFrameCheck()
            #expect(scan(frame, check: &check) == [.unmasked(validPrefix: 0)])
        }
    }

    @Test func aLengthSplitAcrossReads_isReadWhole() {
        // 16-bit length 300: header 0x81 0xFE 0x01 0x2C, then the key and the payload.
        let frame = RawFrames.frame([UInt8](repeating: 0x62, count: 300), masked: true)
        var check = ClientFrameCheck()
        #expect(scan(frame + RawFrames.frame("next", masked: false), reads: [3, 2, 3, 300], check: &check)
            == [.masked, .masked, .masked, .masked, .unmasked(validPrefix: 0)])
    }
}

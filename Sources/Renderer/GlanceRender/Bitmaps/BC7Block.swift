/// One BC7 block (16 bytes: a 4x4 tile of RGBA, the format of most of today's game textures) decoded
/// as Direct3D 11 defines it: one of eight modes, named by its first set bit; one to three subsets
/// of the tile, by one of 64 partitions, each with two endpoints of 4 to 8 bits a channel (and
/// P-bits); 2, 3 or 4-bit indices between them, one fewer at each subset's anchor pixel; a
/// second index set and a channel rotation in modes 4 and 5. A block of no mode (its first byte
/// 0) is transparent black.
///
/// Glance's own reader, as no library here decodes BC7 but Pillow, which its tests compare with
/// (every mode and partition, on blocks of random bits). The partition and anchor tables are the
/// format's, read back from Pillow's decoding of blocks made to show them
/// (TestAssets/generate.py tests them the same way).
enum BC7Block {
    /// The layout of one mode.
    private struct Mode {
        let subsets: Int
        let partitionBits: Int
        let rotationBits: Int
        let selectorBits: Int
        let colourBits: Int
        let alphaBits: Int
        /// A P-bit for each endpoint, or one for each subset's two (`shared`), or none.
        let endpointPBits: Bool
        let sharedPBits: Bool
        let indexBits: Int
        let secondIndexBits: Int
    }

    private static let modes: [Mode] = [
        Mode(
            subsets: 3, partitionBits: 4, rotationBits: 0, selectorBits: 0, colourBits: 4, alphaBits: 0,
            endpointPBits: true, sharedPBits: false, indexBits: 3, secondIndexBits: 0),
        Mode(
            subsets: 2, partitionBits: 6, rotationBits: 0, selectorBits: 0, colourBits: 6, alphaBits: 0,
            endpointPBits: false, sharedPBits: true, indexBits: 3, secondIndexBits: 0),
        Mode(
            subsets: 3, partitionBits: 6, rotationBits: 0, selectorBits: 0, colourBits: 5, alphaBits: 0,
            endpointPBits: false, sharedPBits: false, indexBits: 2, secondIndexBits: 0),
        Mode(
            subsets: 2, partitionBits: 6, rotationBits: 0, selectorBits: 0, colourBits: 7, alphaBits: 0,
            endpointPBits: true, sharedPBits: false, indexBits: 2, secondIndexBits: 0),
        Mode(
            subsets: 1, partitionBits: 0, rotationBits: 2, selectorBits: 1, colourBits: 5, alphaBits: 6,
            endpointPBits: false, sharedPBits: false, indexBits: 2, secondIndexBits: 3),
        Mode(
            subsets: 1, partitionBits: 0, rotationBits: 2, selectorBits: 0, colourBits: 7, alphaBits: 8,
            endpointPBits: false, sharedPBits: false, indexBits: 2, secondIndexBits: 2),
        Mode(
            subsets: 1, partitionBits: 0, rotationBits: 0, selectorBits: 0, colourBits: 7, alphaBits: 7,
            endpointPBits: true, sharedPBits: false, indexBits: 4, secondIndexBits: 0),
        Mode(
            subsets: 2, partitionBits: 6, rotationBits: 0, selectorBits: 0, colourBits: 5, alphaBits: 5,
            endpointPBits: true, sharedPBits: false, indexBits: 2, secondIndexBits: 0),
    ]

    /// The block at `offset` of `data` as 16 RGBA pixels, rows first, into `pixels` from `start`
    /// with `stride` bytes between the tile's rows.
    static func decode(_ data: [UInt8], at offset: Int, into pixels: inout [UInt8], at start: Int, stride: Int) {
        var bits = BlockBits(data, at: offset)
        var modeNumber = 0
        while modeNumber < 8, bits.take(1) == 0 { modeNumber += 1 }
        guard modeNumber < 8 else {
            for pixel in 0..<16 {
                let target = start + (pixel / 4) * stride + (pixel % 4) * 4
                for channel in 0..<4 { pixels[target + channel] = 0 }
            }
            return
        }
        let mode = modes[modeNumber]
        let partition = bits.take(mode.partitionBits)
        let rotation = bits.take(mode.rotationBits)
        let selector = bits.take(mode.selectorBits)
        let endpointCount = 2 * mode.subsets
        // Endpoints' channels: every endpoint's red, then green, blue and alpha.
        var endpoints = [Int](repeating: 0, count: endpointCount * 4)
        for channel in 0..<(mode.alphaBits > 0 ? 4 : 3) {
            let width = channel == 3 ? mode.alphaBits : mode.colourBits
            for endpoint in 0..<endpointCount { endpoints[endpoint * 4 + channel] = bits.take(width) }
        }
        var (colourBits, alphaBits) = (mode.colourBits, mode.alphaBits)
        if mode.endpointPBits || mode.sharedPBits {
            let pBits =
                mode.endpointPBits
                ? (0..<endpointCount).map { _ in bits.take(1) }
                : (0..<mode.subsets).flatMap { _ in [Int](repeating: bits.take(1), count: 2) }
            for endpoint in 0..<endpointCount {
                for channel in 0..<(mode.alphaBits > 0 ? 4 : 3) {
                    endpoints[endpoint * 4 + channel] = endpoints[endpoint * 4 + channel] << 1 | pBits[endpoint]
                }
            }
            colourBits += 1
            alphaBits += mode.alphaBits > 0 ? 1 : 0
        }
        for endpoint in 0..<endpointCount {
            for channel in 0..<3 {
                endpoints[endpoint * 4 + channel] = expand(endpoints[endpoint * 4 + channel], colourBits)
            }
            endpoints[endpoint * 4 + 3] = alphaBits > 0 ? expand(endpoints[endpoint * 4 + 3], alphaBits) : 255
        }
        let subsetOf = mode.subsets == 1 ? 0 : mode.subsets == 2 ? twoSubsets[partition] : threeSubsets[partition]
        let anchors: [Int] =
            switch mode.subsets {
            case 2: [0, twoSubsetAnchors[partition]]
            case 3: [0, threeSubsetAnchors.second[partition], threeSubsetAnchors.third[partition]]
            default: [0]
            }
        let primary = (0..<16).map { bits.take(anchors.contains($0) ? mode.indexBits - 1 : mode.indexBits) }
        let secondary =
            mode.secondIndexBits > 0
            ? (0..<16).map { bits.take($0 == 0 ? mode.secondIndexBits - 1 : mode.secondIndexBits) } : primary
        // Mode 4's selector gives the colours the 3-bit indices, the alpha the 2-bit ones.
        let (colourIndices, colourWeights, alphaIndices, alphaWeights) =
            selector == 1
            ? (secondary, weights(mode.secondIndexBits), primary, weights(mode.indexBits))
            : (
                primary, weights(mode.indexBits), secondary,
                weights(mode.secondIndexBits > 0 ? mode.secondIndexBits : mode.indexBits)
            )
        for pixel in 0..<16 {
            let subset = Int(subsetOf >> (2 * pixel) & 3)
            let (low, high) = (subset * 8, subset * 8 + 4)
            var value = [0, 0, 0, 0]
            for channel in 0..<4 {
                let weight = channel == 3 ? alphaWeights[alphaIndices[pixel]] : colourWeights[colourIndices[pixel]]
                value[channel] =
                    ((64 - weight) * endpoints[low + channel] + weight * endpoints[high + channel] + 32) >> 6
            }
            if rotation > 0 { value.swapAt(3, rotation - 1) }
            let target = start + (pixel / 4) * stride + (pixel % 4) * 4
            for channel in 0..<4 { pixels[target + channel] = UInt8(value[channel]) }
        }
    }

    /// A `bits`-bit endpoint channel widened to 8 bits, its top bits repeated below.
    private static func expand(_ value: Int, _ bits: Int) -> Int {
        let shifted = value << (8 - bits)
        return shifted | shifted >> bits
    }

    /// The weights (of 64) of the second endpoint for each index of `bits` bits.
    private static func weights(_ bits: Int) -> [Int] {
        switch bits {
        case 2: [0, 21, 43, 64]
        case 3: [0, 9, 18, 27, 37, 46, 55, 64]
        default: [0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64]
        }
    }

    /// The 128 bits of a block, read from the lowest.
    private struct BlockBits {
        private let low: UInt64
        private let high: UInt64
        private var position = 0

        init(_ data: [UInt8], at offset: Int) {
            low = (0..<8).reduce(0) { $0 | UInt64(data[offset + $1]) << (8 * $1) }
            high = (0..<8).reduce(0) { $0 | UInt64(data[offset + 8 + $1]) << (8 * $1) }
        }

        /// The next `count` bits (0 to 8) as a number; past the end, zeros.
        mutating func take(_ count: Int) -> Int {
            guard count > 0 else { return 0 }
            let from = position
            position += count
            let window = from < 64 ? low >> from | (from > 0 ? high << (64 - from) : 0) : high >> (from - 64)
            return Int(window & (1 << UInt64(count) - 1))
        }
    }

    /// The 2-subset partitions: 2 bits a pixel (pixel i at bits 2i), each 0 or 1.
    private static let twoSubsets: [UInt32] = [
        0x50505050, 0x40404040, 0x54545454, 0x54505040, 0x50404000, 0x55545450, 0x55545040, 0x54504000,
        0x50400000, 0x55555450, 0x55544000, 0x54400000, 0x55555440, 0x55550000, 0x55555500, 0x55000000,
        0x55150100, 0x00004054, 0x15010000, 0x00405054, 0x00004050, 0x15050100, 0x05010000, 0x40505054,
        0x00404050, 0x05010100, 0x14141414, 0x05141450, 0x01155440, 0x00555500, 0x15014054, 0x05414150,
        0x44444444, 0x55005500, 0x11441144, 0x05055050, 0x05500550, 0x11114444, 0x41144114, 0x44111144,
        0x15055054, 0x01055040, 0x05041050, 0x05455150, 0x14414114, 0x50050550, 0x41411414, 0x00141400,
        0x00041504, 0x00105410, 0x10541000, 0x04150400, 0x50410514, 0x41051450, 0x05415014, 0x14054150,
        0x41050514, 0x41505014, 0x40011554, 0x54150140, 0x50505500, 0x00555050, 0x15151010, 0x54540404,
    ]

    /// The 3-subset partitions (mode 0 uses the first 16): 2 bits a pixel, each 0, 1 or 2.
    private static let threeSubsets: [UInt32] = [
        0xAA685050, 0x6A5A5040, 0x5A5A4200, 0x5450A0A8, 0xA5A50000, 0xA0A05050, 0x5555A0A0, 0x5A5A5050,
        0xAA550000, 0xAA555500, 0xAAAA5500, 0x90909090, 0x94949494, 0xA4A4A4A4, 0xA9A59450, 0x2A0A4250,
        0xA5945040, 0x0A425054, 0xA5A5A500, 0x55A0A0A0, 0xA8A85454, 0x6A6A4040, 0xA4A45000, 0x1A1A0500,
        0x0050A4A4, 0xAAA59090, 0x14696914, 0x69691400, 0xA08585A0, 0xAA821414, 0x50A4A450, 0x6A5A0200,
        0xA9A58000, 0x5090A0A8, 0xA8A09050, 0x24242424, 0x00AA5500, 0x24924924, 0x24499224, 0x50A50A50,
        0x500AA550, 0xAAAA4444, 0x66660000, 0xA5A0A5A0, 0x50A050A0, 0x69286928, 0x44AAAA44, 0x66666600,
        0xAA444444, 0x54A854A8, 0x95809580, 0x96969600, 0xA85454A8, 0x80959580, 0xAA141414, 0x96960000,
        0xAAAA1414, 0xA05050A0, 0xA0A5A5A0, 0x96000000, 0x40804080, 0xA9A8A9A8, 0xAAAAAA44, 0x2A4A5254,
    ]

    /// The anchor pixel of each 2-subset partition's second subset.
    private static let twoSubsetAnchors: [Int] = [
        15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 2, 8, 2, 2, 8, 8, 15, 2, 8, 2, 2, 8, 8, 2, 2,
        15, 15, 6, 8, 2, 8, 15, 15, 2, 8, 2, 2, 2, 15, 15, 6,
        6, 2, 6, 8, 15, 15, 2, 2, 15, 15, 15, 15, 15, 2, 2, 15,
    ]

    /// The anchor pixels of each 3-subset partition's second and third subsets.
    private static let threeSubsetAnchors: (second: [Int], third: [Int]) = (
        [
            3, 3, 15, 15, 8, 3, 15, 15, 8, 8, 6, 6, 6, 5, 3, 3,
            3, 3, 8, 15, 3, 3, 6, 10, 5, 8, 8, 6, 8, 5, 15, 15,
            8, 15, 3, 5, 6, 10, 8, 15, 15, 3, 15, 5, 15, 15, 15, 15,
            3, 15, 5, 5, 5, 8, 5, 10, 5, 10, 8, 13, 15, 12, 3, 3,
        ],
        [
            15, 8, 8, 3, 15, 15, 3, 8, 15, 15, 15, 15, 15, 15, 15, 8,
            15, 8, 15, 3, 15, 8, 15, 8, 3, 15, 6, 10, 15, 15, 10, 8,
            15, 3, 15, 10, 10, 8, 9, 10, 6, 15, 8, 15, 3, 6, 6, 8,
            15, 3, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 3, 15, 15, 8,
        ]
    )
}

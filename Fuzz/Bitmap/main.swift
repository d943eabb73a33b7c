import FuzzSupport
import GlanceCore
import GlanceRender

/// libFuzzer's entry point: one input rendered as the bitmap kind its first bytes suggest (`make
/// fuzz`): BMP (`BM`), an icon or a cursor (its directory, the entry chosen and checked, the PNG or
/// bitmap inside), Netpbm (`P`: the header and the length checks), a macOS icon (`ic`: its
/// entries, the largest PNG, the older packed pictures), QOI (`qo`), PCX (`0A`), DCX (`B1 68`: its page table, the first page as PCX), SGI (`01 DA`), Sun
/// raster (`59 A6`), an X window dump (`00 00`, version 7), a wireless bitmap (`00 00`, not an icon's), a DDS texture (`DD`), FITS (`SI`), Radiance HDR (`#?`), OpenEXR (`v/`: OpenEXRCore), an X pixmap (`/*`) or an X
/// bitmap (`#d`: Glance's own parsers), a GIMP image (`gi`: its layers, tiles and runs; gzip, `BZ` or xz: compressed whole, decompressed first), else Targa, through gdk-pixbuf's loader and the raster
/// pipeline.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let first = size >= 2 ? (data[0], data[1]) : (0, 0)
    let type: ContentType =
        switch first {
        case (0x42, 0x4D): .bmp
        case (0, 0) where size >= 8 && data[3] != 0 && data[7] == 7: .xWindowDump
        case (0, 0) where size >= 3 && data[2] != 1 && data[2] != 2: .wirelessBitmap
        case (0, 0): size >= 3 && data[2] == 2 ? .windowsCursor : .windowsIcon
        case (0x50, 0x37): .portableArbitraryMap
        case (0x50, _): .portableAnymap
        case (0x69, 0x63): .appleIcon
        case (0x71, 0x6F): .quiteOKImage
        case (0x0A, _): .pcx
        case (0xB1, 0x68): .dcx
        case (0x01, 0xDA): .sgiImage
        case (0x59, 0xA6): .sunRaster
        case (0x44, 0x44): .directDrawSurface
        case (0x53, 0x49): .fits
        case (0x23, 0x3F): .radianceHDR
        case (0x76, 0x2F): .openEXR
        case (0x2F, 0x2A): .xPixmap
        case (0x23, 0x64): .xBitmap
        case (0x67, 0x69), (0x1F, 0x8B), (0x42, 0x5A), (0xFD, 0x37): .gimpImage
        default: .targa
        }
    FuzzDocument.render(data, size, as: type, name: "fuzz." + type.conventionalExtensions[0])
    return 0
}

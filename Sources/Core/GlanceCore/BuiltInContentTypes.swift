/// The content types Glance draws today, each described once: its identifier in the sidecar,
/// its names, its extensions and how a preview shows it. A format family in the render layer
/// declares which of these it sniffs and draws (`FormatFamily`).
extension ContentType {
    /// PDF.
    public static let pdf = ContentType(
        "pdf", uniformTypeIdentifier: "com.adobe.pdf", mimeType: "application/pdf", displayName: "PDF",
        extensions: ["pdf"], preview: .pages)
    /// PNG.
    public static let png = ContentType(
        "png", uniformTypeIdentifier: "public.png", mimeType: "image/png", displayName: "PNG", extensions: ["png"],
        browsersDraw: true)
    /// JPEG.
    public static let jpeg = ContentType(
        "jpeg", uniformTypeIdentifier: "public.jpeg", mimeType: "image/jpeg", displayName: "JPEG",
        extensions: ["jpg", "jpeg", "jpe", "jfif"], browsersDraw: true)
    /// text.
    public static let text = ContentType(
        "text", uniformTypeIdentifier: "public.plain-text", mimeType: "text/plain", displayName: "text",
        extensions: ["txt", "text", "md", "markdown", "csv", "tsv", "log", "srt", "rst", "ini", "conf"], preview: .text)
    /// WebP.
    public static let webp = ContentType(
        "webp", uniformTypeIdentifier: "org.webmproject.webp", mimeType: "image/webp", displayName: "WebP",
        extensions: ["webp"], browsersDraw: true)
    /// GIF.
    public static let gif = ContentType(
        "gif", uniformTypeIdentifier: "com.compuserve.gif", mimeType: "image/gif", displayName: "GIF",
        extensions: ["gif"], browsersDraw: true)
    /// TIFF.
    public static let tiff = ContentType(
        "tiff", uniformTypeIdentifier: "public.tiff", mimeType: "image/tiff", displayName: "TIFF",
        extensions: ["tif", "tiff"], preview: .pagesWhenSeveral)
    /// HEIF with HEVC-coded images (`.heic`, what phones save), or another HEIF brand.
    public static let heic = ContentType(
        "heic", uniformTypeIdentifier: "public.heic", mimeType: "image/heic", displayName: "HEIC",
        extensions: ["heic", "heif", "hif"])
    /// HEIF with AV1-coded images.
    public static let avif = ContentType(
        "avif", uniformTypeIdentifier: "public.avif", mimeType: "image/avif", displayName: "AVIF", extensions: ["avif"],
        browsersDraw: true)
    /// SVG.
    public static let svg = ContentType(
        "svg", uniformTypeIdentifier: "public.svg-image", mimeType: "image/svg+xml", displayName: "SVG",
        extensions: ["svg", "svgz"], browsersDraw: true)
    /// An MPEG-4 movie (ISO base media file: `.mp4`, `.m4v`, `.3gp`).
    public static let mpeg4Video = ContentType(
        "mp4", uniformTypeIdentifier: "public.mpeg-4", mimeType: "video/mp4", displayName: "MP4 video",
        extensions: ["mp4", "m4v", "3gp", "3g2"])
    /// A QuickTime movie (`.mov`, what iPhones record).
    public static let quickTimeMovie = ContentType(
        "mov", uniformTypeIdentifier: "com.apple.quicktime-movie", mimeType: "video/quicktime",
        displayName: "QuickTime movie", extensions: ["mov", "qt"])
    /// Matroska (`.mkv`, `.mka`).
    public static let matroska = ContentType(
        "mkv", uniformTypeIdentifier: "org.matroska.mkv", mimeType: "video/x-matroska", displayName: "Matroska video",
        extensions: ["mkv", "mka", "mk3d"])
    /// WebM, the Matroska profile of the web (`.webm`).
    public static let webm = ContentType(
        "webm", uniformTypeIdentifier: "org.webmproject.webm", mimeType: "video/webm", displayName: "WebM video",
        extensions: ["webm"])
    /// AVI (RIFF).
    public static let avi = ContentType(
        "avi", uniformTypeIdentifier: "public.avi", mimeType: "video/x-msvideo", displayName: "AVI video",
        extensions: ["avi"])
    /// An MPEG transport stream (`.ts`, `.m2ts`, `.mts`).
    public static let mpegTransportStream = ContentType(
        "mpegts", uniformTypeIdentifier: "public.mpeg-2-transport-stream", mimeType: "video/mp2t",
        displayName: "MPEG-TS video", extensions: ["ts", "m2ts", "mts"])
    /// An MPEG program stream (`.mpg`, `.mpeg`, a DVD's `.vob`): MPEG-1 or MPEG-2 video, as
    /// camcorders, DVDs and video CDs keep it.
    public static let mpegProgramStream = ContentType(
        "mpg", uniformTypeIdentifier: "public.mpeg", mimeType: "video/mpeg", displayName: "MPEG video",
        extensions: ["mpg", "mpeg", "mpe", "vob", "m2p"])
    /// Ogg with a video stream (`.ogv`).
    public static let oggVideo = ContentType(
        "ogv", uniformTypeIdentifier: "org.xiph.ogv", mimeType: "video/ogg", displayName: "Ogg video",
        extensions: ["ogv"])
    /// Ogg with only audio (Vorbis, Opus, FLAC: `.ogg`, `.oga`, `.opus`).
    public static let oggAudio = ContentType(
        "ogg", uniformTypeIdentifier: "org.xiph.ogg-audio", mimeType: "audio/ogg", displayName: "Ogg audio",
        extensions: ["ogg", "oga", "opus", "spx"])
    /// MPEG audio layer III (`.mp3`).
    public static let mp3 = ContentType(
        "mp3", uniformTypeIdentifier: "public.mp3", mimeType: "audio/mpeg", displayName: "MP3 audio",
        extensions: ["mp3"])
    /// FLAC (`.flac`).
    public static let flac = ContentType(
        "flac", uniformTypeIdentifier: "org.xiph.flac", mimeType: "audio/flac", displayName: "FLAC audio",
        extensions: ["flac"])
    /// Windows Media (`.wmv`, `.wma`): video or sound in Microsoft's ASF container.
    public static let windowsMedia = ContentType(
        "asf", uniformTypeIdentifier: "com.microsoft.advanced-systems-format", mimeType: "video/x-ms-asf",
        displayName: "Windows Media", extensions: ["wmv", "wma", "asf"])
    /// Flash video (`.flv`).
    public static let flashVideo = ContentType(
        "flv", uniformTypeIdentifier: "com.adobe.flash.video", mimeType: "video/x-flv", displayName: "Flash video",
        extensions: ["flv"])
    /// AIFF sound (`.aiff`, `.aif`, and AIFF-C's `.aifc`).
    public static let aiff = ContentType(
        "aiff", uniformTypeIdentifier: "public.aiff-audio", mimeType: "audio/aiff", displayName: "AIFF audio",
        extensions: ["aiff", "aif", "aifc"])
    /// WAV sound (`.wav`): a RIFF `WAVE` form, or its 64-bit forms RF64 and BW64.
    public static let wave = ContentType(
        "wav", uniformTypeIdentifier: "com.microsoft.waveform-audio", mimeType: "audio/wav",
        displayName: "WAV audio", extensions: ["wav", "wave", "bwf"])
    /// MPEG-4 audio (`.m4a`, `.m4b`).
    public static let m4a = ContentType(
        "m4a", uniformTypeIdentifier: "com.apple.m4a-audio", mimeType: "audio/mp4", displayName: "M4A audio",
        extensions: ["m4a", "m4b"])
    /// A Word document (Office Open XML: `.docx`, and `.docm`, `.dotx`, `.dotm`).
    public static let wordDocument = ContentType(
        "docx", uniformTypeIdentifier: "org.openxmlformats.wordprocessingml.document",
        mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        displayName: "Word document", extensions: ["docx", "docm", "dotx", "dotm"], preview: .pages)
    /// An Excel workbook (Office Open XML: `.xlsx`, and `.xlsm`, `.xltx`, `.xltm`).
    public static let spreadsheet = ContentType(
        "xlsx", uniformTypeIdentifier: "org.openxmlformats.spreadsheetml.sheet",
        mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", displayName: "Excel workbook",
        extensions: ["xlsx", "xlsm", "xltx", "xltm"], preview: .pages)
    /// A PowerPoint presentation (Office Open XML: `.pptx`, and `.pptm`, `.ppsx`, `.potx`).
    public static let presentation = ContentType(
        "pptx", uniformTypeIdentifier: "org.openxmlformats.presentationml.presentation",
        mimeType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        displayName: "PowerPoint presentation", extensions: ["pptx", "pptm", "ppsx", "ppsm", "potx", "potm"],
        preview: .pages)
    /// An OpenDocument text (`.odt`, `.ott`).
    public static let openDocumentText = ContentType(
        "odt", uniformTypeIdentifier: "org.oasis-open.opendocument.text",
        mimeType: "application/vnd.oasis.opendocument.text", displayName: "OpenDocument text",
        extensions: ["odt", "ott"], preview: .pages)
    /// An OpenDocument spreadsheet (`.ods`, `.ots`).
    public static let openDocumentSpreadsheet = ContentType(
        "ods", uniformTypeIdentifier: "org.oasis-open.opendocument.spreadsheet",
        mimeType: "application/vnd.oasis.opendocument.spreadsheet", displayName: "OpenDocument spreadsheet",
        extensions: ["ods", "ots"], preview: .pages)
    /// An OpenDocument presentation (`.odp`, `.otp`).
    public static let openDocumentPresentation = ContentType(
        "odp", uniformTypeIdentifier: "org.oasis-open.opendocument.presentation",
        mimeType: "application/vnd.oasis.opendocument.presentation", displayName: "OpenDocument presentation",
        extensions: ["odp", "otp"], preview: .pages)
    /// An OpenDocument drawing (`.odg`, `.otg`).
    public static let openDocumentDrawing = ContentType(
        "odg", uniformTypeIdentifier: "org.oasis-open.opendocument.graphics",
        mimeType: "application/vnd.oasis.opendocument.graphics", displayName: "OpenDocument drawing",
        extensions: ["odg", "otg"], preview: .pages)
    /// A Visio drawing (Office Open XML: `.vsdx`, `.vsdm`, `.vstx`, `.vstm`).
    public static let visioDrawing = ContentType(
        "vsdx", uniformTypeIdentifier: "com.microsoft.visio.vsdx",
        mimeType: "application/vnd.ms-visio.drawing.main+xml", displayName: "Visio drawing",
        extensions: ["vsdx", "vsdm", "vstx", "vstm"], preview: .pages)
    /// Rich Text Format (`.rtf`).
    public static let richText = ContentType(
        "rtf", uniformTypeIdentifier: "public.rtf", mimeType: "application/rtf", displayName: "RTF document",
        extensions: ["rtf"], preview: .pages)
    /// A Word 97-2003 document (an OLE2 compound file: `.doc`, `.dot`).
    public static let legacyWordDocument = ContentType(
        "doc", uniformTypeIdentifier: "com.microsoft.word.doc", mimeType: "application/msword",
        displayName: "Word 97-2003 document", extensions: ["doc", "dot"], preview: .pages)
    /// An Excel 97-2003 workbook (`.xls`, `.xlt`).
    public static let legacySpreadsheet = ContentType(
        "xls", uniformTypeIdentifier: "com.microsoft.excel.xls", mimeType: "application/vnd.ms-excel",
        displayName: "Excel 97-2003 workbook", extensions: ["xls", "xlt"], preview: .pages)
    /// A PowerPoint 97-2003 presentation (`.ppt`, `.pps`, `.pot`).
    public static let legacyPresentation = ContentType(
        "ppt", uniformTypeIdentifier: "com.microsoft.powerpoint.ppt", mimeType: "application/vnd.ms-powerpoint",
        displayName: "PowerPoint 97-2003 presentation", extensions: ["ppt", "pps", "pot"], preview: .pages)
    /// A Visio 2003-2010 drawing (an OLE2 compound file with a `VisioDocument` stream: `.vsd`,
    /// stencils `.vss`, templates `.vst`).
    public static let legacyVisioDrawing = ContentType(
        "vsd", uniformTypeIdentifier: "com.microsoft.visio.vsd", mimeType: "application/vnd.visio",
        displayName: "Visio 2003-2010 drawing", extensions: ["vsd", "vss", "vst"], preview: .pages)
    /// A Publisher 98 to 2010 document (an OLE2 compound file with `Contents` and an Office drawing
    /// layer's `EscherStm`: `.pub`).
    public static let publisherDocument = ContentType(
        "pub", uniformTypeIdentifier: "com.microsoft.publisher.pub", mimeType: "application/vnd.ms-publisher",
        displayName: "Publisher document", extensions: ["pub"], preview: .pages)
    /// A digital negative (Adobe DNG: TIFF with a `DNGVersion` tag).
    public static let dng = ContentType(
        "dng", uniformTypeIdentifier: "com.adobe.raw-image", mimeType: "image/x-adobe-dng",
        displayName: "DNG raw photo", extensions: ["dng"])
    /// A Canon raw photo of the EOS generation before 2018 (`.cr2`: TIFF marked `CR` at byte 8).
    public static let canonRaw2 = ContentType(
        "cr2", uniformTypeIdentifier: "com.canon.cr2-raw-image", mimeType: "image/x-canon-cr2",
        displayName: "Canon CR2 raw photo", extensions: ["cr2"])
    /// A Canon raw photo of the newer kind (`.cr3`: ISO base media, brand `crx `).
    public static let canonRaw3 = ContentType(
        "cr3", uniformTypeIdentifier: "com.canon.cr3-raw-image", mimeType: "image/x-canon-cr3",
        displayName: "Canon CR3 raw photo", extensions: ["cr3"])
    /// A Nikon raw photo (`.nef`, `.nrw`: TIFF holding colour-filter data, made by Nikon).
    public static let nikonRaw = ContentType(
        "nef", uniformTypeIdentifier: "com.nikon.raw-image", mimeType: "image/x-nikon-nef",
        displayName: "Nikon NEF raw photo", extensions: ["nef", "nrw"])
    /// A Sony raw photo (`.arw`, `.srf`, `.sr2`).
    public static let sonyRaw = ContentType(
        "arw", uniformTypeIdentifier: "com.sony.arw-raw-image", mimeType: "image/x-sony-arw",
        displayName: "Sony ARW raw photo", extensions: ["arw", "srf", "sr2"])
    /// An Olympus (OM System) raw photo (`.orf`: a TIFF variant marked `IIRO`, `IIRS` or `MMOR`).
    public static let olympusRaw = ContentType(
        "orf", uniformTypeIdentifier: "com.olympus.raw-image", mimeType: "image/x-olympus-orf",
        displayName: "Olympus ORF raw photo", extensions: ["orf"])
    /// A Panasonic (Lumix) or Leica raw photo (`.rw2`, `.rwl`: a TIFF variant marked `IIU`).
    public static let panasonicRaw = ContentType(
        "rw2", uniformTypeIdentifier: "com.panasonic.rw2-raw-image", mimeType: "image/x-panasonic-rw2",
        displayName: "Panasonic RW2 raw photo", extensions: ["rw2", "rwl"])
    /// A Fujifilm raw photo (`.raf`: `FUJIFILMCCD-RAW`).
    public static let fujifilmRaw = ContentType(
        "raf", uniformTypeIdentifier: "com.fuji.raw-image", mimeType: "image/x-fuji-raf",
        displayName: "Fujifilm RAF raw photo", extensions: ["raf"])
    /// An EPUB e-book (a ZIP whose stored `mimetype` is `application/epub+zip`).
    public static let epub = ContentType(
        "epub", uniformTypeIdentifier: "org.idpf.epub-container", mimeType: "application/epub+zip",
        displayName: "EPUB book", extensions: ["epub"])
    /// A comic book in a ZIP archive (`.cbz`): its pages are the images it holds.
    public static let comicZip = ContentType(
        "cbz", uniformTypeIdentifier: "public.cbz-archive", mimeType: "application/vnd.comicbook+zip",
        displayName: "CBZ comic", extensions: ["cbz"], preview: .pages)
    /// A comic book in a RAR archive (`.cbr`, RAR 4 or 5).
    public static let comicRar = ContentType(
        "cbr", uniformTypeIdentifier: "public.cbr-archive", mimeType: "application/vnd.comicbook-rar",
        displayName: "CBR comic", extensions: ["cbr"], preview: .pages)
    /// A comic book in a 7-Zip archive (`.cb7`).
    public static let comic7z = ContentType(
        "cb7", uniformTypeIdentifier: "public.cb7-archive", mimeType: "application/x-cb7", displayName: "CB7 comic",
        extensions: ["cb7"], preview: .pages)
    /// A Windows or OS/2 bitmap (`.bmp`, `.dib`).
    public static let bmp = ContentType(
        "bmp", uniformTypeIdentifier: "com.microsoft.bmp", mimeType: "image/bmp", displayName: "BMP",
        extensions: ["bmp", "dib"], browsersDraw: true)
    /// A Windows icon (`.ico`): the largest of its pictures is drawn.
    public static let windowsIcon = ContentType(
        "ico", uniformTypeIdentifier: "com.microsoft.ico", mimeType: "image/vnd.microsoft.icon",
        displayName: "Windows icon", extensions: ["ico"], browsersDraw: true)
    /// A Windows cursor (`.cur`), an icon with a hot spot.
    public static let windowsCursor = ContentType(
        "cur", uniformTypeIdentifier: "com.microsoft.cur", mimeType: "image/x-win-bitmap",
        displayName: "Windows cursor", extensions: ["cur"])
    /// A Truevision TGA (Targa) image.
    public static let targa = ContentType(
        "tga", uniformTypeIdentifier: "com.truevision.tga-image", mimeType: "image/x-tga", displayName: "TGA",
        extensions: ["tga", "icb", "vda", "vst"])
    /// A Netpbm image: PBM, PGM or PPM, plain or binary (P1 to P6).
    public static let portableAnymap = ContentType(
        "pnm", uniformTypeIdentifier: "public.pbm", mimeType: "image/x-portable-anymap", displayName: "Netpbm",
        extensions: ["pnm", "pbm", "pgm", "ppm"])
    /// An OpenRaster painting (`.ora`: GIMP, MyPaint, Krita): layers in a ZIP, with their
    /// flattened picture.
    public static let openRaster = ContentType(
        "ora", uniformTypeIdentifier: "org.openraster.ora", mimeType: "image/openraster",
        displayName: "OpenRaster painting", extensions: ["ora"])
    /// A GIMP image (`.xcf`; `.xcfgz`, `.xcfbz2` and `.xcfxz` are GIMP's names for the compressed
    /// ones, as are `.xcf.gz`, `.xcf.bz2` and `.xcf.xz`), its layers as GIMP keeps them.
    public static let gimpImage = ContentType(
        "xcf", uniformTypeIdentifier: "org.gimp.xcf", mimeType: "image/x-xcf", displayName: "GIMP image",
        extensions: ["xcf", "xcfgz", "xcfbz2", "xcfxz"])
    /// A Krita painting (`.kra`).
    public static let kritaPainting = ContentType(
        "kra", uniformTypeIdentifier: "org.kde.krita", mimeType: "application/x-krita",
        displayName: "Krita painting", extensions: ["kra"])
    /// A Pages document (`.pages`).
    public static let pagesDocument = ContentType(
        "pages", uniformTypeIdentifier: "com.apple.iwork.pages.sffpages", mimeType: "application/vnd.apple.pages",
        displayName: "Pages document", extensions: ["pages"])
    /// A Keynote presentation (`.key`).
    public static let keynotePresentation = ContentType(
        "key", uniformTypeIdentifier: "com.apple.iwork.keynote.sffkey", mimeType: "application/vnd.apple.keynote",
        displayName: "Keynote presentation", extensions: ["key"])
    /// A Numbers spreadsheet (`.numbers`).
    public static let numbersSpreadsheet = ContentType(
        "numbers", uniformTypeIdentifier: "com.apple.iwork.numbers.sffnumbers",
        mimeType: "application/vnd.apple.numbers", displayName: "Numbers spreadsheet", extensions: ["numbers"])
    /// A Blender scene (`.blend`).
    public static let blenderScene = ContentType(
        "blend", uniformTypeIdentifier: "org.blender.blend", mimeType: "application/x-blender",
        displayName: "Blender file", extensions: ["blend"])
    /// A Mobipocket or Kindle book (`.mobi`, `.prc`, `.azw`, `.azw3`).
    public static let mobiBook = ContentType(
        "mobi", uniformTypeIdentifier: "com.amazon.mobi-ebook", mimeType: "application/x-mobipocket-ebook",
        displayName: "Mobipocket book", extensions: ["mobi", "prc", "azw", "azw3"])
    /// A macOS icon file (`.icns`).
    public static let appleIcon = ContentType(
        "icns", uniformTypeIdentifier: "com.apple.icns", mimeType: "image/x-icns", displayName: "macOS icon",
        extensions: ["icns"])
    /// A Netpbm PAM image (`P7`: gray, RGB, either with alpha).
    public static let portableArbitraryMap = ContentType(
        "pam", uniformTypeIdentifier: "org.netpbm.pam", mimeType: "image/x-portable-arbitrarymap",
        displayName: "PAM", extensions: ["pam"])
    /// An X11 pixmap (XPM 3): C source of a colour picture, as icons of X programs were kept.
    public static let xPixmap = ContentType(
        "xpm", uniformTypeIdentifier: "org.x.xpm", mimeType: "image/x-xpixmap", displayName: "X pixmap",
        extensions: ["xpm"])
    /// An X11 bitmap (XBM): C source of a black-and-white picture, as X cursors and icons were kept.
    public static let xBitmap = ContentType(
        "xbm", uniformTypeIdentifier: "public.xbitmap-image", mimeType: "image/x-xbitmap", displayName: "X bitmap",
        extensions: ["xbm"])
    /// A QOI ("Quite OK Image") picture.
    public static let quiteOKImage = ContentType(
        "qoi", uniformTypeIdentifier: "org.qoiformat.qoi", mimeType: "image/qoi", displayName: "QOI",
        extensions: ["qoi"])
    /// A ZSoft PCX picture (Paintbrush, and the scanners and DOS programs that wrote it).
    public static let pcx = ContentType(
        "pcx", uniformTypeIdentifier: "com.zsoft.pcx", mimeType: "image/vnd.zbrush.pcx", displayName: "PCX",
        extensions: ["pcx"])
    /// ZSoft's multi-page PCX (`.dcx`), as fax programs and document scanners kept pages.
    public static let dcx = ContentType(
        "dcx", uniformTypeIdentifier: "com.zsoft.dcx", mimeType: "image/x-dcx", displayName: "DCX",
        extensions: ["dcx"], preview: .pagesWhenSeveral)
    /// A Silicon Graphics image (`.sgi`, `.rgb`), as 3D tools keep textures.
    public static let sgiImage = ContentType(
        "sgi", uniformTypeIdentifier: "com.sgi.sgi-image", mimeType: "image/x-sgi", displayName: "SGI image",
        extensions: ["sgi", "rgb", "rgba", "bw"])
    /// A Sun raster picture (`.ras`).
    public static let sunRaster = ContentType(
        "ras", uniformTypeIdentifier: "com.sun.raster", mimeType: "image/x-sun-raster", displayName: "Sun raster",
        extensions: ["ras", "sun"])
    /// An X window dump (`.xwd`): a window or a screen as the X server held it.
    public static let xWindowDump = ContentType(
        "xwd", uniformTypeIdentifier: "org.x.xwd", mimeType: "image/x-xwindowdump", displayName: "X window dump",
        extensions: ["xwd"])
    /// A DirectDraw surface (`.dds`): a texture of a game or its mods.
    public static let directDrawSurface = ContentType(
        "dds", uniformTypeIdentifier: "com.microsoft.dds", mimeType: "image/vnd-ms.dds", displayName: "DDS texture",
        extensions: ["dds"])
    /// A FITS image (`.fits`, `.fit`, `.fts`): astronomy's, from telescopes, observatories and
    /// astrophotography cameras.
    public static let fits = ContentType(
        "fits", uniformTypeIdentifier: "gov.nasa.gsfc.fits", mimeType: "image/fits", displayName: "FITS",
        extensions: ["fits", "fit", "fts"])
    /// A wireless bitmap (`.wbmp`): a WAP phone's black-and-white picture.
    public static let wirelessBitmap = ContentType(
        "wbmp", uniformTypeIdentifier: "com.openmobilealliance.wbmp", mimeType: "image/vnd.wap.wbmp",
        displayName: "WBMP", extensions: ["wbmp"])
    /// A Radiance HDR picture (RGBE): linear light past white, as HDR merges and 3D renderers keep
    /// their lighting.
    public static let radianceHDR = ContentType(
        "hdr", uniformTypeIdentifier: "public.radiance", mimeType: "image/vnd.radiance", displayName: "Radiance HDR",
        extensions: ["hdr", "rgbe"])
    /// An OpenEXR picture: linear light past white, as film, compositing and 3D renderers keep it.
    public static let openEXR = ContentType(
        "exr", uniformTypeIdentifier: "com.ilm.openexr-image", mimeType: "image/x-exr", displayName: "OpenEXR",
        extensions: ["exr"])
    /// A Photoshop document: PSD, or PSB (the large document format).
    public static let photoshop = ContentType(
        "psd", uniformTypeIdentifier: "com.adobe.photoshop-image", mimeType: "image/vnd.adobe.photoshop",
        displayName: "Photoshop", extensions: ["psd", "psb"])
    /// A PostScript program (a document's pages).
    public static let postScript = ContentType(
        "ps", uniformTypeIdentifier: "com.adobe.postscript", mimeType: "application/postscript",
        displayName: "PostScript", extensions: ["ps"], preview: .pages)
    /// Encapsulated PostScript: one drawing with its bounding box (or a DOS binary EPS).
    public static let encapsulatedPostScript = ContentType(
        "eps", uniformTypeIdentifier: "com.adobe.encapsulated-postscript", mimeType: "image/x-eps",
        displayName: "EPS", extensions: ["eps", "epsf", "epsi"])
    /// A DjVu document: one page, or several bundled (or indirect: pages in files beside it).
    public static let djvu = ContentType(
        "djvu", uniformTypeIdentifier: "com.lizardtech.djvu", mimeType: "image/vnd.djvu", displayName: "DjVu",
        extensions: ["djvu", "djv"], preview: .pages)
    /// An XPS print (Microsoft's XML Paper Specification): a ZIP package of fixed pages.
    public static let xps = ContentType(
        "xps", uniformTypeIdentifier: "com.microsoft.xps", mimeType: "application/vnd.ms-xpsdocument",
        displayName: "XPS", extensions: ["xps"], preview: .pages)
    /// An OpenXPS print (ECMA-388, XPS standardised).
    public static let openXPS = ContentType(
        "oxps", uniformTypeIdentifier: "org.ecma.oxps", mimeType: "application/oxps", displayName: "OpenXPS",
        extensions: ["oxps"], preview: .pages)
    /// A TrueType font.
    public static let trueTypeFont = ContentType(
        "ttf", uniformTypeIdentifier: "public.truetype-ttf-font", mimeType: "font/ttf", displayName: "TrueType font",
        extensions: ["ttf"], preview: .pages)
    /// An OpenType font with CFF (PostScript) outlines.
    public static let openTypeFont = ContentType(
        "otf", uniformTypeIdentifier: "public.opentype-font", mimeType: "font/otf", displayName: "OpenType font",
        extensions: ["otf"], preview: .pages)
    /// A collection of TrueType or OpenType fonts.
    public static let fontCollection = ContentType(
        "ttc", uniformTypeIdentifier: "public.truetype-collection-font", mimeType: "font/collection",
        displayName: "font collection", extensions: ["ttc", "otc"], preview: .pages)
    /// A WOFF web font.
    public static let woff = ContentType(
        "woff", uniformTypeIdentifier: "org.w3.woff", mimeType: "font/woff", displayName: "WOFF font",
        extensions: ["woff"], preview: .pages)
    /// A WOFF2 web font.
    public static let woff2 = ContentType(
        "woff2", uniformTypeIdentifier: "org.w3.woff2", mimeType: "font/woff2", displayName: "WOFF2 font",
        extensions: ["woff2"], preview: .pages)
    /// An X11 bitmap font in the Portable Compiled Format (`.pcf`; X's fonts ship as `.pcf.gz`).
    public static let pcfFont = ContentType(
        "pcf", uniformTypeIdentifier: "org.x.pcf-font", mimeType: "application/x-font-pcf",
        displayName: "PCF bitmap font", extensions: ["pcf"], preview: .pages)
    /// A bitmap font in Adobe's Glyph Bitmap Distribution Format (`.bdf`, text).
    public static let bdfFont = ContentType(
        "bdf", uniformTypeIdentifier: "com.adobe.bdf-font", mimeType: "application/x-font-bdf",
        displayName: "BDF bitmap font", extensions: ["bdf"], preview: .pages)
    /// A PostScript Type 1 font: binary (PFB, in segments) or ASCII (PFA).
    public static let type1Font = ContentType(
        "type1", uniformTypeIdentifier: "com.adobe.postscript-font", mimeType: "application/x-font-type1",
        displayName: "PostScript Type 1 font", extensions: ["pfb", "pfa", "t1"], preview: .pages)
    /// An Enhanced Metafile (Windows' vector drawings, EMF and EMF+).
    public static let enhancedMetafile = ContentType(
        "emf", uniformTypeIdentifier: "com.microsoft.emf", mimeType: "image/emf", displayName: "EMF",
        extensions: ["emf"])
    /// A Windows Metafile (WMF, placeable or plain).
    public static let windowsMetafile = ContentType(
        "wmf", uniformTypeIdentifier: "com.microsoft.wmf", mimeType: "image/wmf", displayName: "WMF",
        extensions: ["wmf"])
    /// A Sketch document (Sketch 43 and later: a ZIP of JSON with its preview).
    public static let sketchDocument = ContentType(
        "sketch", uniformTypeIdentifier: "com.bohemiancoding.sketch.drawing.single", mimeType: "application/x-sketch",
        displayName: "Sketch document", extensions: ["sketch"])
    /// A Procreate artwork (`.procreate`), as the iPad painting application saves it.
    public static let procreateArtwork = ContentType(
        "procreate", uniformTypeIdentifier: "com.procreate", mimeType: "application/x-procreate",
        displayName: "Procreate artwork", extensions: ["procreate"])
    /// A Figma or FigJam file saved as a local copy (`.fig`, `.jam`).
    public static let figmaDesign = ContentType(
        "fig", uniformTypeIdentifier: "com.figma.document", mimeType: "application/x-figma",
        displayName: "Figma file", extensions: ["fig", "jam"])
    /// An Affinity document: Affinity Photo's, Designer's and Publisher's (`.afphoto`, `.afdesign`,
    /// `.afpub`) and the unified Affinity application's (`.af`).
    public static let affinityDocument = ContentType(
        "affinity", uniformTypeIdentifier: "com.seriflabs.affinity", mimeType: "application/x-affinity",
        displayName: "Affinity document", extensions: ["af", "afphoto", "afdesign", "afpub"])
    /// A SketchUp model.
    public static let sketchUpModel = ContentType(
        "skp", uniformTypeIdentifier: "com.sketchup.skp", mimeType: "application/vnd.sketchup.skp",
        displayName: "SketchUp model", extensions: ["skp"])
    /// An InDesign document.
    public static let inDesignDocument = ContentType(
        "indd", uniformTypeIdentifier: "com.adobe.indesign-document", mimeType: "application/x-adobe-indesign",
        displayName: "InDesign document", extensions: ["indd"])
    /// A JPEG 2000 picture in its JP2 file.
    public static let jpeg2000 = ContentType(
        "jp2", uniformTypeIdentifier: "public.jpeg-2000", mimeType: "image/jp2", displayName: "JPEG 2000",
        extensions: ["jp2", "jpf", "jpx"])
    /// A bare JPEG 2000 codestream.
    public static let jpeg2000Codestream = ContentType(
        "j2k", uniformTypeIdentifier: "org.openjpeg.j2k", mimeType: "image/x-jp2-codestream",
        displayName: "JPEG 2000 codestream", extensions: ["j2k", "j2c", "jpc"])
    /// A JPEG XL picture: a bare codestream or one in its ISO container.
    public static let jpegXL = ContentType(
        "jxl", uniformTypeIdentifier: "public.jpeg-xl", mimeType: "image/jxl", displayName: "JPEG XL",
        extensions: ["jxl"])

    /// Every built-in type, in the order the grid's filter lists them.
    public static let builtIn: [ContentType] = [
        .pdf, .png, .jpeg, .text, .webp, .gif, .tiff, .heic, .avif, .svg, .mpeg4Video, .quickTimeMovie, .matroska,
        .webm, .avi, .mpegTransportStream, .mpegProgramStream, .oggVideo, .oggAudio, .mp3, .flac, .m4a, .wave,
        .windowsMedia, .flashVideo, .aiff, .wordDocument,
        .spreadsheet,
        .presentation, .openDocumentText, .openDocumentSpreadsheet, .openDocumentPresentation, .openDocumentDrawing,
        .visioDrawing, .richText, .legacyWordDocument, .legacySpreadsheet, .legacyPresentation, .legacyVisioDrawing,
        .publisherDocument,
        .dng, .canonRaw2,
        .canonRaw3,
        .nikonRaw, .sonyRaw, .olympusRaw, .panasonicRaw, .fujifilmRaw, .epub, .comicZip, .comicRar, .comic7z,
        .bmp, .windowsIcon, .windowsCursor, .targa, .portableAnymap, .openRaster, .kritaPainting, .gimpImage,
        .pagesDocument, .keynotePresentation, .numbersSpreadsheet, .blenderScene, .mobiBook, .appleIcon,
        .portableArbitraryMap, .quiteOKImage, .pcx, .dcx, .sgiImage, .sunRaster, .xWindowDump, .directDrawSurface,
        .fits,
        .wirelessBitmap,
        .radianceHDR, .openEXR,
        .xPixmap, .xBitmap,
        .jpegXL, .photoshop,
        .postScript,
        .encapsulatedPostScript, .djvu, .xps,
        .openXPS, .trueTypeFont, .openTypeFont, .fontCollection, .woff, .woff2, .type1Font, .pcfFont, .bdfFont,
        .enhancedMetafile,
        .windowsMetafile,
        .sketchUpModel, .affinityDocument, .sketchDocument, .procreateArtwork, .figmaDesign,
        .inDesignDocument, .jpeg2000,
        .jpeg2000Codestream,
    ]
}

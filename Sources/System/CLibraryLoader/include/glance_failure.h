// Why a shim could not do what it was asked (libheif, LibRaw, FFmpeg, libarchive, gdk-pixbuf,
// giflib, libwebp): one list for all of them, which GlanceRender turns into a ThumbnailError in
// one place (ShimFailure.swift). The shim's `reason` says more, in the library's words.
#ifndef GLANCE_FAILURE_H
#define GLANCE_FAILURE_H

typedef enum {
    /// The library refused the data: damaged, or not what it claims to be.
    GLANCE_FAILURE_CORRUPT = 0,
    /// The data ended early.
    GLANCE_FAILURE_TRUNCATED = 1,
    /// The file could not be read or mapped (`reason`: the system's words).
    GLANCE_FAILURE_UNREADABLE = 2,
    /// The library knows the file but cannot decode it (a new camera's compression, a codec this
    /// build has no decoder for).
    GLANCE_FAILURE_UNSUPPORTED = 3,
    /// A picture has more pixels than the limit allows (`reason`: WIDTHxHEIGHT).
    GLANCE_FAILURE_TOO_LARGE = 4,
    /// An archive is past one of its limits, refused before it is read (`reason` says which): a
    /// bomb, or simply too big.
    GLANCE_FAILURE_PAST_LIMIT = 5,
    /// The file asks to open another file or a URL, which is refused (`reason` names it).
    GLANCE_FAILURE_REFUSED = 6,
    /// The data is encrypted.
    GLANCE_FAILURE_ENCRYPTED = 7,
    /// Memory for the decoded picture could not be had (`reason` says for what).
    GLANCE_FAILURE_OUT_OF_MEMORY = 8,
} glance_failure;

#endif

#ifndef GLANCE_RENDER_ABI_CHECK_H
#define GLANCE_RENDER_ABI_CHECK_H

/// The poppler-glib headers' version the check was compiled against, as 10000 * major + 100 *
/// minor + micro: the check itself is the compilation (glance_render_abi_check.c).
int glance_poppler_header_version(void);

/// The librsvg headers' version the check was compiled against, likewise.
int glance_rsvg_header_version(void);

#endif

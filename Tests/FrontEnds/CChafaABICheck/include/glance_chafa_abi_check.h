#ifndef GLANCE_CHAFA_ABI_CHECK_H
#define GLANCE_CHAFA_ABI_CHECK_H

/// The libchafa headers' version the check was compiled against, as 10000 * major + 100 * minor
/// + micro: the check itself is the compilation (glance_chafa_abi_check.c).
int glance_chafa_header_version(void);

#endif

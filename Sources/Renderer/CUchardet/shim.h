// uchardet guesses the character set of a run of bytes (Mozilla's universal detector).
#ifndef GLANCE_CUCHARDET_SHIM_H
#define GLANCE_CUCHARDET_SHIM_H
#include <uchardet.h>
#endif

#ifndef GLANCE_TERMINAL_PICTURE_H
#define GLANCE_TERMINAL_PICTURE_H

#include <stddef.h>

/// The ways a terminal can be given a picture.
typedef enum {
    /// Unicode block and border symbols in 24-bit colour (SGR), for any UTF-8 terminal.
    GLANCE_PICTURE_SYMBOLS = 0,
    /// DEC sixel graphics (xterm -ti vt340, foot, mlterm, WezTerm, Windows Terminal).
    GLANCE_PICTURE_SIXEL = 1,
    /// kitty's graphics protocol (kitty, WezTerm, Ghostty, Konsole).
    GLANCE_PICTURE_KITTY = 2,
    /// iTerm2's inline images (iTerm2, WezTerm).
    GLANCE_PICTURE_ITERM = 3,
} glance_picture_protocol;

/// Loads libchafa (libchafa.so.0) on first use. Returns 1 when it is ready; else 0, with the
/// reason in `reason` (NUL-terminated, cut to fit; may be NULL).
int glance_picture_load(char *reason, size_t capacity);

/// Draws `width` x `height` RGBA pixels (straight alpha, rows of `width * 4` bytes) as large as
/// fits a box of `columns` x `rows` terminal cells of `cell_width` x `cell_height` pixels, its
/// aspect kept, in `protocol`, through libchafa (NULL when it cannot be loaded). Writes the picture's size in cells to
/// `used_columns` and `used_rows`, and returns the bytes to write to the terminal (`*length` of
/// them, also NUL-terminated; free them with glance_picture_free), or NULL when libchafa fails.
/// Symbols come as `used_rows` lines separated by '\n', each ending with the colour reset.
unsigned char *glance_picture_draw(const unsigned char *rgba, int width, int height, glance_picture_protocol protocol,
                                   int columns, int rows, int cell_width, int cell_height, int *used_columns,
                                   int *used_rows, size_t *length);

/// Frees what glance_picture_draw returned.
void glance_picture_free(unsigned char *bytes);

#endif

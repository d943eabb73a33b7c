// See include/glance_terminal_picture.h.
#include "glance_terminal_picture.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glance_chafa_abi.h"
#include "glance_library_loader.h"

/// libchafa's functions (and GLib's one, found through it), found once and read-only after. The
/// library's objects are opaque here: ChafaCanvasConfig, ChafaSymbolMap, ChafaCanvas, ChafaTermDb
/// and ChafaTermInfo are all `void *`; its enums and gint are `int`.
#define CHAFA_FUNCTIONS(X)                                                                                           \
    X(calc_canvas_geometry, chafa_calc_canvas_geometry, void(int, int, int *, int *, float, int, int))               \
    X(config_new, chafa_canvas_config_new, void *(void))                                                             \
    X(config_unref, chafa_canvas_config_unref, void(void *))                                                         \
    X(config_set_geometry, chafa_canvas_config_set_geometry, void(void *, int, int))                                 \
    X(config_set_cell_geometry, chafa_canvas_config_set_cell_geometry, void(void *, int, int))                       \
    X(config_set_pixel_mode, chafa_canvas_config_set_pixel_mode, void(void *, int))                                  \
    X(config_set_canvas_mode, chafa_canvas_config_set_canvas_mode, void(void *, int))                                \
    X(config_set_symbol_map, chafa_canvas_config_set_symbol_map, void(void *, const void *))                         \
    X(symbol_map_new, chafa_symbol_map_new, void *(void))                                                            \
    X(symbol_map_unref, chafa_symbol_map_unref, void(void *))                                                        \
    X(symbol_map_add_by_tags, chafa_symbol_map_add_by_tags, void(void *, int))                                       \
    X(symbol_map_remove_by_tags, chafa_symbol_map_remove_by_tags, void(void *, int))                                 \
    X(canvas_new, chafa_canvas_new, void *(const void *))                                                            \
    X(canvas_unref, chafa_canvas_unref, void(void *))                                                                \
    X(canvas_draw_all_pixels, chafa_canvas_draw_all_pixels, void(void *, int, const unsigned char *, int, int, int)) \
    X(canvas_print, chafa_canvas_print, struct glance_gstring *(void *, void *))                                     \
    X(term_db_get_default, chafa_term_db_get_default, void *(void))                                                  \
    X(term_db_get_fallback_info, chafa_term_db_get_fallback_info, void *(void *))                                    \
    X(term_info_unref, chafa_term_info_unref, void(void *))                                                          \
    X(string_free, g_string_free, char *(struct glance_gstring *, int))

/// The library's soname: chafa's ABI has been 0 since its first release.
GLANCE_LIBRARY(chafa, "libchafa.so.0", CHAFA_FUNCTIONS, GLANCE_LIBRARY_NO_START)

int glance_picture_load(char *reason, size_t capacity) { return chafa_ensure(reason, capacity); }

static int pixel_mode(glance_picture_protocol protocol) {
    switch (protocol) {
    case GLANCE_PICTURE_SIXEL: return GLANCE_CHAFA_PIXEL_MODE_SIXELS;
    case GLANCE_PICTURE_KITTY: return GLANCE_CHAFA_PIXEL_MODE_KITTY;
    case GLANCE_PICTURE_ITERM: return GLANCE_CHAFA_PIXEL_MODE_ITERM2;
    default: return GLANCE_CHAFA_PIXEL_MODE_SYMBOLS;
    }
}

unsigned char *glance_picture_draw(const unsigned char *rgba, int width, int height, glance_picture_protocol protocol,
                                   int columns, int rows, int cell_width, int cell_height, int *used_columns,
                                   int *used_rows, size_t *length) {
    if (!glance_picture_load(NULL, 0)) return NULL;
    if (!rgba || width < 1 || height < 1 || columns < 1 || rows < 1 || cell_width < 1 || cell_height < 1) return NULL;
    // The largest box of cells with the picture's aspect: chafa's own rule, given the cells' shape.
    int fit_columns = columns, fit_rows = rows;
    chafa.calc_canvas_geometry(width, height, &fit_columns, &fit_rows, (float)cell_width / (float)cell_height, 0, 0);
    if (fit_columns < 1) fit_columns = 1;
    if (fit_rows < 1) fit_rows = 1;

    void *config = chafa.config_new();
    chafa.config_set_geometry(config, fit_columns, fit_rows);
    chafa.config_set_cell_geometry(config, cell_width, cell_height);
    chafa.config_set_pixel_mode(config, pixel_mode(protocol));
    chafa.config_set_canvas_mode(config, GLANCE_CHAFA_CANVAS_MODE_TRUECOLOR);
    void *symbols = NULL;
    if (protocol == GLANCE_PICTURE_SYMBOLS) {
        // Blocks, borders and spaces that are one cell wide everywhere: wide and ambiguous-width
        // symbols would break the grid's columns.
        symbols = chafa.symbol_map_new();
        chafa.symbol_map_add_by_tags(symbols, GLANCE_CHAFA_SYMBOL_TAG_BLOCK | GLANCE_CHAFA_SYMBOL_TAG_BORDER |
                                                  GLANCE_CHAFA_SYMBOL_TAG_SPACE);
        chafa.symbol_map_remove_by_tags(symbols, GLANCE_CHAFA_SYMBOL_TAG_WIDE | GLANCE_CHAFA_SYMBOL_TAG_AMBIGUOUS);
        chafa.config_set_symbol_map(config, symbols);
    }
    void *canvas = chafa.canvas_new(config);
    unsigned char *result = NULL;
    if (canvas) {
        chafa.canvas_draw_all_pixels(canvas, GLANCE_CHAFA_PIXEL_RGBA8_UNASSOCIATED, rgba, width, height, width * 4);
        // The fallback terminal knows every protocol's sequences; the caller chose the protocol.
        void *terminal = chafa.term_db_get_fallback_info(chafa.term_db_get_default());
        struct glance_gstring *printed = chafa.canvas_print(canvas, terminal);
        if (printed) {
            result = malloc(printed->len + 1);
            if (result) {
                memcpy(result, printed->str, printed->len + 1);
                *length = printed->len;
                *used_columns = fit_columns;
                *used_rows = fit_rows;
            }
            chafa.string_free(printed, 1);
        }
        chafa.term_info_unref(terminal);
        chafa.canvas_unref(canvas);
    }
    if (symbols) chafa.symbol_map_unref(symbols);
    chafa.config_unref(config);
    return result;
}

void glance_picture_free(unsigned char *bytes) { free(bytes); }

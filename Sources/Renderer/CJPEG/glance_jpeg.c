// The libjpeg-turbo shim: see include/glance_jpeg.h for why it exists.
#include "glance_jpeg.h"
#include "glance_file_access.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <jpegint.h>   // the entropy coder's methods (struct jpeg_entropy_encoder)

/// libjpeg's optimal Huffman table generator: exported (LIBJPEG_6.2) though declared only in its
/// internal jchuff.h.
void jpeg_gen_optimal_table(j_compress_ptr cinfo, JHUFF_TBL *htbl, long freq[]);

/// libjpeg's error manager extended with the jump point and what we copy out of it.
typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    long warnings;
    int hit_end_of_data;
    long end_of_data_row;
    const JDIMENSION *output_scanline;   // where the decoder is, to place the end of data
} glance_error_manager;

/// libjpeg's data source, reading the file in large pieces.
///
/// libjpeg-turbo's Huffman decoder takes its fast path only while a whole MCU's worst case
/// (512 bytes a block: 3 KiB for a 4:2:0 MCU) is in the buffer. `jpeg_stdio_src` refills 4 KiB
/// at a time, so three MCUs in four of a 4:2:0 photo went the slow, byte-checking way; with
/// 64 KiB, about one in twenty does.
typedef struct {
    struct jpeg_source_mgr base;
    FILE *file;
    JOCTET *buffer;
    int at_start;                        // nothing read yet: an empty file is an error
} glance_source;

/// Bytes read from the file at a time.
#define GLANCE_SOURCE_BUFFER (64 << 10)

struct glance_jpeg_decoder {
    struct jpeg_decompress_struct info;
    glance_error_manager errors;
    glance_source source;
    FILE *file;
    int started;
    JSAMPARRAY cmyk_row;                 // scratch row for CMYK -> RGB, owned by libjpeg's pool
};

static void glance_on_error_exit(j_common_ptr cinfo) {
    glance_error_manager *manager = (glance_error_manager *)cinfo->err;
    longjmp(manager->jump, 1);
}

static void glance_on_message(j_common_ptr cinfo, int level) {
    glance_error_manager *manager = (glance_error_manager *)cinfo->err;
    if (level >= 0) return;  // trace messages
    manager->warnings += 1;
    if (manager->base.msg_code == JWRN_JPEG_EOF && !manager->hit_end_of_data) {
        manager->hit_end_of_data = 1;
        manager->end_of_data_row = manager->output_scanline ? (long)*manager->output_scanline : 0;
    }
}

static void glance_copy_error(const glance_error_manager *manager, j_common_ptr cinfo,
                              glance_jpeg_error *error) {
    if (error == NULL) return;
    error->code = manager->base.msg_code;
    switch (manager->base.msg_code) {
    case JERR_NO_BACKING_STORE: case JERR_OUT_OF_MEMORY: case JERR_TFILE_CREATE:
        error->kind = GLANCE_JPEG_NEEDS_MEMORY; break;
    case JERR_NOT_COMPILED: case JERR_SOF_UNSUPPORTED: case JERR_NO_ARITH_TABLE: case JERR_ARITH_NOTIMPL:
    case JERR_BAD_PRECISION:
        error->kind = GLANCE_JPEG_UNSUPPORTED; break;
    case JERR_IMAGE_TOO_BIG: case JERR_WIDTH_OVERFLOW:
        error->kind = GLANCE_JPEG_TOO_BIG; break;
    default:
        error->kind = GLANCE_JPEG_CORRUPT; break;
    }
    error->hit_end_of_data = manager->hit_end_of_data;
    char buffer[JMSG_LENGTH_MAX];
    manager->base.format_message(cinfo, buffer);
    snprintf(error->message, sizeof error->message, "%s", buffer);
}

static void glance_install_errors(glance_error_manager *manager) {
    jpeg_std_error(&manager->base);
    manager->base.error_exit = glance_on_error_exit;
    manager->base.emit_message = glance_on_message;
    manager->warnings = 0;
    manager->hit_end_of_data = 0;
    manager->end_of_data_row = -1;
    manager->output_scanline = NULL;
}

static void glance_source_init(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean glance_source_fill(j_decompress_ptr cinfo) {
    glance_source *source = (glance_source *)cinfo->src;
    size_t got = fread(source->buffer, 1, GLANCE_SOURCE_BUFFER, source->file);
    if (got == 0) {
        if (source->at_start) ERREXIT(cinfo, JERR_INPUT_EMPTY);
        // The file ends early: say so (the warning marks where the data stopped) and give the
        // decoder an end-of-image marker, as jpeg_stdio_src does.
        WARNMS(cinfo, JWRN_JPEG_EOF);
        source->buffer[0] = (JOCTET)0xFF;
        source->buffer[1] = (JOCTET)JPEG_EOI;
        got = 2;
    }
    source->base.next_input_byte = source->buffer;
    source->base.bytes_in_buffer = got;
    source->at_start = 0;
    return TRUE;
}

static void glance_source_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *source = cinfo->src;
    if (count <= 0) return;
    while (count > (long)source->bytes_in_buffer) {
        count -= (long)source->bytes_in_buffer;
        (void)source->fill_input_buffer(cinfo);
    }
    source->next_input_byte += (size_t)count;
    source->bytes_in_buffer -= (size_t)count;
}

static void glance_source_term(j_decompress_ptr cinfo) { (void)cinfo; }

/// Sets `decoder`'s file as its data source, with the buffer from libjpeg's permanent pool
/// (freed with the decoder).
static void glance_source_install(glance_jpeg_decoder *decoder) {
    glance_source *source = &decoder->source;
    source->buffer = (*decoder->info.mem->alloc_small)((j_common_ptr)&decoder->info, JPOOL_PERMANENT,
                                                       GLANCE_SOURCE_BUFFER);
    source->file = decoder->file;
    source->at_start = 1;
    source->base.init_source = glance_source_init;
    source->base.fill_input_buffer = glance_source_fill;
    source->base.skip_input_data = glance_source_skip;
    source->base.resync_to_restart = jpeg_resync_to_restart;
    source->base.term_source = glance_source_term;
    source->base.next_input_byte = NULL;
    source->base.bytes_in_buffer = 0;
    decoder->info.src = &source->base;
}

glance_jpeg_decoder *glance_jpeg_open(int descriptor, glance_jpeg_header *header,
                                      glance_jpeg_error *error) {
    glance_jpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) {
        if (error) { error->code = ENOMEM; snprintf(error->message, sizeof error->message, "out of memory"); }
        return NULL;
    }
    decoder->file = glance_stream_from_start(descriptor);
    if (decoder->file == NULL) {
        if (error) { error->kind = GLANCE_JPEG_CANNOT_OPEN; error->code = errno; snprintf(error->message, sizeof error->message, "%s", strerror(errno)); }
        free(decoder);
        return NULL;
    }
    decoder->info.err = &decoder->errors.base;
    glance_install_errors(&decoder->errors);
    decoder->errors.output_scanline = &decoder->info.output_scanline;
    if (setjmp(decoder->errors.jump)) {
        glance_copy_error(&decoder->errors, (j_common_ptr)&decoder->info, error);
        glance_jpeg_free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->info);
    glance_source_install(decoder);
    jpeg_save_markers(&decoder->info, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&decoder->info, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&decoder->info, TRUE);

    memset(header, 0, sizeof *header);
    header->width = (int)decoder->info.image_width;
    header->height = (int)decoder->info.image_height;
    header->progressive = decoder->info.progressive_mode;
    header->components = decoder->info.num_components;
    header->cmyk_inverted = decoder->info.saw_Adobe_marker;
    for (jpeg_saved_marker_ptr marker = decoder->info.marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length >= 6 &&
            memcmp(marker->data, "Exif\0\0", 6) == 0) {
            header->exif = marker->data + 6;
            header->exif_length = marker->data_length - 6;
            break;
        }
    }
    return decoder;
}

int glance_jpeg_icc_profile(glance_jpeg_decoder *decoder, uint8_t **data, size_t *length) {
    *data = NULL;
    *length = 0;
    // jpeg_read_icc_profile only warns about segments that do not fit together; the jump point
    // covers a libjpeg that would raise an error instead.
    if (setjmp(decoder->errors.jump)) return 0;
    JOCTET *profile = NULL;
    unsigned int size = 0;
    if (!jpeg_read_icc_profile(&decoder->info, &profile, &size) || profile == NULL) return 0;
    *data = profile;
    *length = size;
    return 1;
}

int glance_jpeg_start(glance_jpeg_decoder *decoder, int scale_denom, long max_memory, int raw_cmyk,
                      int *out_width, int *out_height, glance_jpeg_error *error) {
    struct jpeg_decompress_struct *info = &decoder->info;
    if (setjmp(decoder->errors.jump)) {
        glance_copy_error(&decoder->errors, (j_common_ptr)info, error);
        return GLANCE_JPEG_FAILED;
    }
    info->scale_num = 1;
    info->scale_denom = (unsigned int)scale_denom;
    // The accurate integer IDCT and fancy upsampling: the fast IDCT measured 2.7 dB worse on a
    // 1/2-scaled photo for no speed-up that stood out of the noise.
    info->dct_method = JDCT_ISLOW;
    info->do_fancy_upsampling = TRUE;
    if (max_memory > 0) info->mem->max_memory_to_use = max_memory;
    // CMYK and YCCK come out as CMYK and are turned into RGB row by row below; every other
    // colour space (gray, YCbCr, RGB) libjpeg-turbo converts to RGB itself.
    if (info->jpeg_color_space == JCS_CMYK || info->jpeg_color_space == JCS_YCCK) {
        info->out_color_space = JCS_CMYK;
    } else {
        info->out_color_space = JCS_RGB;
    }
    jpeg_start_decompress(info);
    decoder->started = 1;
    if (info->out_color_space == JCS_CMYK && !raw_cmyk) {
        decoder->cmyk_row = (*info->mem->alloc_sarray)((j_common_ptr)info, JPOOL_IMAGE,
                                                       info->output_width * 4, 1);
    }
    *out_width = (int)info->output_width;
    *out_height = (int)info->output_height;
    return GLANCE_JPEG_OK;
}

/// CMYK to RGB by the naive formula (what ImageMagick and browsers do without a profile).
/// Adobe writes CMYK inverted (0 = full ink), which is the common case; without the Adobe marker
/// the values are taken as plain ink amounts.
static void glance_cmyk_to_rgb(const JSAMPLE *cmyk, uint8_t *rgb, JDIMENSION width, int inverted) {
    for (JDIMENSION x = 0; x < width; x++) {
        unsigned c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        rgb[3 * x] = (uint8_t)((c * k + 127) / 255);
        rgb[3 * x + 1] = (uint8_t)((m * k + 127) / 255);
        rgb[3 * x + 2] = (uint8_t)((y * k + 127) / 255);
    }
}

int glance_jpeg_read_rows(glance_jpeg_decoder *decoder, uint8_t *rows, size_t stride,
                          int max_rows, int *rows_read, glance_jpeg_error *error) {
    struct jpeg_decompress_struct *info = &decoder->info;
    *rows_read = 0;
    if (setjmp(decoder->errors.jump)) {
        glance_copy_error(&decoder->errors, (j_common_ptr)info, error);
        return GLANCE_JPEG_FAILED;
    }
    int done = 0;
    while (done < max_rows && info->output_scanline < info->output_height) {
        uint8_t *row = rows + (size_t)done * stride;
        if (decoder->cmyk_row != NULL) {
            if (jpeg_read_scanlines(info, decoder->cmyk_row, 1) != 1) break;
            glance_cmyk_to_rgb(decoder->cmyk_row[0], row, info->output_width, info->saw_Adobe_marker);
            done += 1;
        } else {
            JSAMPROW pointers[16];
            int want = max_rows - done < 16 ? max_rows - done : 16;
            for (int i = 0; i < want; i++) pointers[i] = rows + (size_t)(done + i) * stride;
            JDIMENSION got = jpeg_read_scanlines(info, pointers, (JDIMENSION)want);
            if (got == 0) break;
            done += (int)got;
        }
        *rows_read = done;
    }
    *rows_read = done;
    return GLANCE_JPEG_OK;
}

long glance_jpeg_warning_count(const glance_jpeg_decoder *decoder) { return decoder->errors.warnings; }

long glance_jpeg_end_of_data_row(const glance_jpeg_decoder *decoder) {
    return decoder->errors.end_of_data_row;
}

void glance_jpeg_free(glance_jpeg_decoder *decoder) {
    if (decoder == NULL) return;
    // jpeg_destroy cannot raise an error, but it can be called on a half-made object.
    jpeg_destroy_decompress(&decoder->info);
    if (decoder->file) fclose(decoder->file);
    free(decoder);
}

/// A destination manager writing into the caller's buffer; running out is an error.
typedef struct {
    struct jpeg_destination_mgr base;
    uint8_t *buffer;
    size_t capacity;
} glance_jpeg_destination;

static void glance_destination_init(j_compress_ptr info) {
    glance_jpeg_destination *destination = (glance_jpeg_destination *)info->dest;
    destination->base.next_output_byte = destination->buffer;
    destination->base.free_in_buffer = destination->capacity;
}

static boolean glance_destination_full(j_compress_ptr info) {
    ERREXIT(info, JERR_BUFFER_SIZE);
    return FALSE;
}

static void glance_destination_term(j_compress_ptr info) { (void)info; }

/// Huffman statistics gathered by Glance rather than by libjpeg (see glance_count_mcu).
typedef struct {
    long dc[NUM_HUFF_TBLS][257];
    long ac[NUM_HUFF_TBLS][257];
    int last_dc[MAX_COMPS_IN_SCAN];
    void (*libjpeg_start_pass)(j_compress_ptr, boolean);
} glance_huffman_statistics;

/// The zigzag order: the position in the block of the k-th coefficient of the scan (the JPEG
/// standard's figure A.6), and the reverse, the scan index of each position.
static const unsigned char glance_zigzag[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

static const unsigned char glance_scan_index[64] = {
    0,  1,  5,  6,  14, 15, 27, 28, 2,  4,  7,  13, 16, 26, 29, 42, 3,  8,  12, 17, 25, 30,
    41, 43, 9,  11, 18, 24, 31, 40, 44, 53, 10, 19, 23, 32, 39, 45, 52, 54, 20, 22, 33, 38,
    46, 51, 55, 60, 21, 34, 37, 47, 50, 56, 59, 61, 35, 36, 48, 49, 57, 58, 62, 63,
};

/// Bits of a coefficient's magnitude (its Huffman category): 0 for 0.
static inline int glance_magnitude_bits(int value) {
    unsigned magnitude = (unsigned)(value < 0 ? -value : value);
    return magnitude == 0 ? 0 : 32 - __builtin_clz(magnitude);
}

/// Counts the symbols one MCU will be coded with, as libjpeg's own statistics pass does (a DC
/// difference category; for the AC coefficients in zigzag order, (zero run, category) pairs, ZRL
/// for runs past 15, EOB after the last non-zero one). libjpeg walks all 63 AC coefficients of
/// every block one branch at a time; this finds the non-zero ones first and jumps between them,
/// which halves the cost of the statistics pass of an optimised thumbnail.
static boolean glance_count_mcu(j_compress_ptr cinfo, JBLOCKROW *blocks) {
    glance_huffman_statistics *statistics = (glance_huffman_statistics *)cinfo->client_data;
    for (int index = 0; index < cinfo->blocks_in_MCU; index++) {
        int component = cinfo->MCU_membership[index];
        const jpeg_component_info *info = cinfo->cur_comp_info[component];
        const JCOEF *block = blocks[index][0];
        statistics->dc[info->dc_tbl_no][glance_magnitude_bits(block[0] - statistics->last_dc[component])] += 1;
        statistics->last_dc[component] = block[0];
        uint64_t present = 0;   // bit k: the k-th AC coefficient in zigzag order is not zero
        for (int position = 1; position < 64; position++) {
            present |= (uint64_t)(block[position] != 0) << glance_scan_index[position];
        }
        long *ac = statistics->ac[info->ac_tbl_no];
        int last = 0;
        while (present != 0) {
            int k = __builtin_ctzll(present);
            present &= present - 1;
            int run = k - last - 1;
            for (; run > 15; run -= 16) ac[0xF0] += 1;
            ac[(run << 4) + glance_magnitude_bits(block[glance_zigzag[k]])] += 1;
            last = k;
        }
        if (last < 63) ac[0] += 1;
    }
    return TRUE;
}

/// The end of the statistics pass: optimal tables from the counts, with libjpeg's own
/// generator (part of its ABI), for the tables the components use.
static void glance_finish_counting(j_compress_ptr cinfo) {
    glance_huffman_statistics *statistics = (glance_huffman_statistics *)cinfo->client_data;
    boolean made_dc[NUM_HUFF_TBLS] = {FALSE}, made_ac[NUM_HUFF_TBLS] = {FALSE};
    for (int component = 0; component < cinfo->comps_in_scan; component++) {
        const jpeg_component_info *info = cinfo->cur_comp_info[component];
        if (!made_dc[info->dc_tbl_no]) {
            JHUFF_TBL **table = &cinfo->dc_huff_tbl_ptrs[info->dc_tbl_no];
            if (*table == NULL) *table = jpeg_alloc_huff_table((j_common_ptr)cinfo);
            jpeg_gen_optimal_table(cinfo, *table, statistics->dc[info->dc_tbl_no]);
            made_dc[info->dc_tbl_no] = TRUE;
        }
        if (!made_ac[info->ac_tbl_no]) {
            JHUFF_TBL **table = &cinfo->ac_huff_tbl_ptrs[info->ac_tbl_no];
            if (*table == NULL) *table = jpeg_alloc_huff_table((j_common_ptr)cinfo);
            jpeg_gen_optimal_table(cinfo, *table, statistics->ac[info->ac_tbl_no]);
            made_ac[info->ac_tbl_no] = TRUE;
        }
    }
}

/// The entropy coder's next pass, the output: libjpeg's own, with the tables just made.
static void glance_start_output_pass(j_compress_ptr cinfo, boolean gather_statistics) {
    glance_huffman_statistics *statistics = (glance_huffman_statistics *)cinfo->client_data;
    cinfo->entropy->start_pass = statistics->libjpeg_start_pass;
    statistics->libjpeg_start_pass(cinfo, gather_statistics);
}

/// Takes over the statistics pass that jpeg_start_compress has just begun (optimised coding,
/// one scan, no restart markers): libjpeg's counting code is replaced by glance_count_mcu, and
/// its coder is given back for the output pass. Anything else is left to libjpeg.
static void glance_count_statistics_ourselves(j_compress_ptr cinfo, glance_huffman_statistics *statistics) {
    if (!cinfo->optimize_coding || cinfo->num_scans > 1 || cinfo->restart_interval != 0 ||
        cinfo->restart_in_rows != 0 || cinfo->comps_in_scan > MAX_COMPS_IN_SCAN) {
        return;
    }
    memset(statistics, 0, sizeof *statistics);
    statistics->libjpeg_start_pass = cinfo->entropy->start_pass;
    cinfo->client_data = statistics;
    cinfo->entropy->encode_mcu = glance_count_mcu;
    cinfo->entropy->finish_pass = glance_finish_counting;
    cinfo->entropy->start_pass = glance_start_output_pass;
}

int glance_jpeg_encode(const uint8_t *pixels, int width, int height, size_t stride,
                       int quality, int chroma_quality, int own_statistics, uint8_t *out, size_t capacity,
                       size_t *out_length, glance_jpeg_error *error) {
    struct jpeg_compress_struct info;
    glance_huffman_statistics statistics;
    glance_error_manager errors;
    glance_jpeg_destination destination;
    memset(&info, 0, sizeof info);
    info.err = &errors.base;
    glance_install_errors(&errors);
    if (setjmp(errors.jump)) {
        glance_copy_error(&errors, (j_common_ptr)&info, error);
        jpeg_destroy_compress(&info);
        return GLANCE_JPEG_FAILED;
    }
    jpeg_create_compress(&info);
    destination.base.init_destination = glance_destination_init;
    destination.base.empty_output_buffer = glance_destination_full;
    destination.base.term_destination = glance_destination_term;
    destination.buffer = out;
    destination.capacity = capacity;
    info.dest = &destination.base;
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    // The chroma table at its own quality: made by libjpeg at that quality, kept, and put back
    // after the luma table is made at `quality` (the jpeg6b API has no per-table scaling).
    jpeg_set_quality(&info, chroma_quality, TRUE);
    UINT16 chroma[DCTSIZE2];
    memcpy(chroma, info.quant_tbl_ptrs[1]->quantval, sizeof chroma);
    jpeg_set_quality(&info, quality, TRUE);
    memcpy(info.quant_tbl_ptrs[1]->quantval, chroma, sizeof chroma);
    info.optimize_coding = TRUE;
    jpeg_start_compress(&info, TRUE);
    if (own_statistics) glance_count_statistics_ourselves(&info, &statistics);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)info.next_scanline * stride);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    *out_length = capacity - destination.base.free_in_buffer;
    jpeg_destroy_compress(&info);
    return GLANCE_JPEG_OK;
}

size_t glance_jpeg_encoded_bound(int width, int height) {
    // Baseline JPEG at quality <= 95 stays well under the raw size; the margin covers headers
    // and pathological noise on tiny images.
    return (size_t)width * (size_t)height * 3 + 65536;
}

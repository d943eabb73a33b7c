// A fast deflate (RFC 1951) encoder in a zlib (RFC 1950) wrapper, for thumbnails.
//
// Greedy LZ77 over a 32 KiB window with a one-entry hash table of 4-byte sequences, then one
// dynamic Huffman block per 64 KiB slice of input (or stored blocks when they are smaller), and
// an empty final block. Made for speed at about zlib level 1's ratio: measured on the bench's
// filtered thumbnail rows against zlib 1.2.13 at level 1, text pages took 1.6 ms against 4.1 ms
// for 1% fewer bytes, photos 9.2 ms against 20.6 ms for 6% more bytes (text pages 1.43 ms since
// the bit writer keeps its state in registers and the Huffman leaves are radix-sorted; the
// same bytes). A table of 32K entries
// found 1% more matches and cost a quarter more time (a miss in the first-level cache a byte).
//
// Against the field (bench/deflate: 23 of the bench's thumbnails up to 1024 px, CPU time, ratios
// within each round): libdeflate 1.14 at level 1 took 1.6x as long (photos 1.3x, pages 2.2-2.3x)
// for 8% fewer bytes, level 4 2.4x for 12% fewer; libspng 0.7.3 at level 1 with the same filters
// 2.75x for 5% fewer, at its defaults 18x for 15% fewer; zlib 1.2.13 level 1 2.4x for 6% fewer.
// libdeflate takes only a whole buffer (the filtered thumbnail, 2.25 MiB for 1024x768 RGB, plus
// the whole PNG); this stream needs 370 KiB and sends 256 KiB pieces as rows come, so it stays:
// fastest and streaming, for 9% more bytes than libdeflate level 1.
#include "glance_deflate.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "glance_processor_features.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

enum {
    WINDOW = 32768,                    // deflate's largest distance
    SLICE = 65536,                     // input bytes per block
    LOOKAHEAD = 258,                   // deflate's longest match
    MIN_MATCH = 4,
    HASH_BITS = 12,                    // 16 KiB of table: stays in the first-level cache
    BUFFER = WINDOW + SLICE + LOOKAHEAD,
    LITLEN_CODES = 286,
    DIST_CODES = 30,
    CODELEN_CODES = 19,
    MAX_TOKENS = SLICE + 1,
};

struct glance_deflate {
    uint8_t buffer[BUFFER];
    size_t filled;       // bytes in buffer
    size_t start;        // first byte not yet compressed
    int64_t base;        // stream offset of buffer[0]
    int32_t hash[1 << HASH_BITS];  // stream offset + 1 of the last position with that hash; 0 = none
    uint32_t tokens[MAX_TOKENS];   // literal: byte; match: 1<<31 | length<<16 | distance
    size_t token_count;
    uint32_t litlen_freq[LITLEN_CODES];
    uint32_t dist_freq[DIST_CODES];
    uint32_t adler;
    int ssse3;           // Adler-32 with SSSE3
    // output
    uint8_t *out;
    size_t capacity, length;
    uint64_t bits;
    int bit_count;
    int failed;
};

// --- tables -------------------------------------------------------------------------------

static const uint16_t length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                         31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                         2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                       193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
static const uint8_t codelen_order[CODELEN_CODES] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

/// The length code (0..28, symbol 257 + code) of a match length 3..258.
static inline int length_code(int length) {
    if (length == 258) return 28;
    unsigned v = (unsigned)length - 3;
    if (v < 8) return (int)v;
    int e = 31 - __builtin_clz(v) - 2;   // extra bits
    return 4 * (e + 1) + (int)((v >> e) & 3);
}

/// The distance code (0..29) of a distance 1..32768.
static inline int dist_code(int distance) {
    unsigned v = (unsigned)distance - 1;
    if (v < 4) return (int)v;
    int e = 31 - __builtin_clz(v) - 1;   // extra bits
    return 2 * (e + 1) + (int)((v >> e) & 1);
}

// --- bit output -----------------------------------------------------------------------------

static inline void put_bits(glance_deflate *d, uint64_t value, int count) {
    d->bits |= value << d->bit_count;
    d->bit_count += count;
    if (d->bit_count >= 32) {
        if (d->length + 4 <= d->capacity) {
            uint32_t word = (uint32_t)d->bits;
            uint8_t *p = d->out + d->length;
            p[0] = (uint8_t)word; p[1] = (uint8_t)(word >> 8); p[2] = (uint8_t)(word >> 16); p[3] = (uint8_t)(word >> 24);
            d->length += 4;
        } else {
            d->failed = 1;
        }
        d->bits >>= 32;
        d->bit_count -= 32;
    }
}

static void align_bytes(glance_deflate *d) {
    while (d->bit_count > 0) {
        if (d->length < d->capacity) d->out[d->length++] = (uint8_t)d->bits;
        else d->failed = 1;
        d->bits >>= 8;
        d->bit_count = d->bit_count > 8 ? d->bit_count - 8 : 0;
    }
    d->bits = 0;
}

static void put_byte_aligned(glance_deflate *d, const uint8_t *bytes, size_t count) {
    if (d->length + count > d->capacity) { d->failed = 1; return; }
    memcpy(d->out + d->length, bytes, count);
    d->length += count;
}

// --- Huffman codes --------------------------------------------------------------------------

/// Code lengths for `count` symbols of frequencies `freq`, none longer than `limit`: Huffman's
/// construction, with frequencies halved and the construction repeated while a code is too long.
static void build_lengths(const uint32_t *freq, int count, int limit, uint8_t *lengths) {
    uint32_t scaled[LITLEN_CODES];
    for (int i = 0; i < count; i++) scaled[i] = freq[i];
    for (;;) {
        // Leaves sorted by weight, then internal nodes made in order of weight: two queues.
        int symbols[LITLEN_CODES], used = 0;
        for (int i = 0; i < count; i++) {
            lengths[i] = 0;
            if (scaled[i] != 0) symbols[used++] = i;
        }
        if (used == 0) return;
        if (used == 1) { lengths[symbols[0]] = 1; return; }
        // Sort leaves by weight, ties in symbol order: a radix sort of 9 bits a pass, stable, as
        // many passes as the largest weight needs (two for a 64 KiB slice). An insertion sort of
        // 286 literal/length weights cost a tenth of a text page's encoding.
        uint32_t largest = 0;
        for (int i = 0; i < used; i++) largest = scaled[symbols[i]] > largest ? scaled[symbols[i]] : largest;
        int sorted[LITLEN_CODES];
        for (int shift = 0; shift == 0 || (largest >> shift) != 0; shift += 9) {
            int start[513] = {0};
            for (int i = 0; i < used; i++) start[((scaled[symbols[i]] >> shift) & 511) + 1]++;
            for (int k = 1; k < 513; k++) start[k] += start[k - 1];
            for (int i = 0; i < used; i++) sorted[start[(scaled[symbols[i]] >> shift) & 511]++] = symbols[i];
            memcpy(symbols, sorted, (size_t)used * sizeof symbols[0]);
        }
        uint32_t weight[2 * LITLEN_CODES];
        int parent[2 * LITLEN_CODES];
        for (int i = 0; i < used; i++) weight[i] = scaled[symbols[i]];
        int leaf = 0, node = used, next_internal = used;
        // Two queues: sorted leaves [leaf, used), internal nodes [node, next_internal) (weights ascending).
        for (int made = 0; made < used - 1; made++) {
            int pick[2];
            for (int k = 0; k < 2; k++) {
                if (leaf < used && (node >= next_internal || weight[leaf] <= weight[node])) pick[k] = leaf++;
                else pick[k] = node++;
            }
            weight[next_internal] = weight[pick[0]] + weight[pick[1]];
            parent[pick[0]] = parent[pick[1]] = next_internal;
            next_internal++;
        }
        // Depths: the root is the last node.
        int depth[2 * LITLEN_CODES];
        int root = next_internal - 1, too_long = 0;
        depth[root] = 0;
        for (int i = root - 1; i >= 0; i--) {
            depth[i] = depth[parent[i]] + 1;
            if (i < used) {
                if (depth[i] > limit) too_long = 1;
                lengths[symbols[i]] = (uint8_t)depth[i];
            }
        }
        if (!too_long) return;
        for (int i = 0; i < count; i++)
            if (scaled[i] != 0) scaled[i] = (scaled[i] >> 1) | 1;
    }
}

/// Canonical codes for `lengths`, bit-reversed for deflate's least-significant-bit-first order.
static void build_codes(const uint8_t *lengths, int count, uint16_t *codes) {
    int length_count[16] = {0};
    for (int i = 0; i < count; i++) length_count[lengths[i]]++;
    length_count[0] = 0;
    int next[16], code = 0;
    for (int bits = 1; bits < 16; bits++) {
        code = (code + length_count[bits - 1]) << 1;
        next[bits] = code;
    }
    for (int i = 0; i < count; i++) {
        int len = lengths[i];
        if (len == 0) { codes[i] = 0; continue; }
        int c = next[len]++, reversed = 0;
        for (int b = 0; b < len; b++) { reversed = (reversed << 1) | (c & 1); c >>= 1; }
        codes[i] = (uint16_t)reversed;
    }
}

// --- blocks ---------------------------------------------------------------------------------

/// Writes the block of the tokens so far (and the input bytes they stand for, [from, to) of the
/// buffer): dynamic Huffman, or stored when that is no bigger. Never the final block: that one is
/// written, empty, by `glance_deflate_finish`.
static void write_block(glance_deflate *d, size_t from, size_t to) {
    d->litlen_freq[256]++;
    // Every code needs two symbols at least for all decoders to be happy.
    if (d->dist_freq[0] == 0) d->dist_freq[0] = 1;
    if (d->dist_freq[1] == 0) d->dist_freq[1] = 1;
    if (d->litlen_freq[0] == 0) d->litlen_freq[0] = 1;
    uint8_t litlen_len[LITLEN_CODES], dist_len[DIST_CODES];
    build_lengths(d->litlen_freq, LITLEN_CODES, 15, litlen_len);
    build_lengths(d->dist_freq, DIST_CODES, 15, dist_len);
    int hlit = LITLEN_CODES, hdist = DIST_CODES;
    while (hlit > 257 && litlen_len[hlit - 1] == 0) hlit--;
    while (hdist > 1 && dist_len[hdist - 1] == 0) hdist--;

    // Run-length code the two length lists as one sequence (symbols 0..15, 16 repeat previous,
    // 17/18 repeat zero).
    uint8_t all[LITLEN_CODES + DIST_CODES];
    memcpy(all, litlen_len, (size_t)hlit);
    memcpy(all + hlit, dist_len, (size_t)hdist);
    int total = hlit + hdist;
    uint16_t rle[LITLEN_CODES + DIST_CODES];   // symbol | extra << 5
    int rle_count = 0;
    uint32_t codelen_freq[CODELEN_CODES] = {0};
    for (int i = 0; i < total;) {
        int value = all[i], run = 1;
        while (i + run < total && all[i + run] == value) run++;
        i += run;
        if (value == 0) {
            while (run >= 11) { int n = run > 138 ? 138 : run; rle[rle_count++] = (uint16_t)(18 | (n - 11) << 5); codelen_freq[18]++; run -= n; }
            if (run >= 3) { rle[rle_count++] = (uint16_t)(17 | (run - 3) << 5); codelen_freq[17]++; run = 0; }
        } else {
            rle[rle_count++] = (uint16_t)value; codelen_freq[value]++; run--;
            while (run >= 3) { int n = run > 6 ? 6 : run; rle[rle_count++] = (uint16_t)(16 | (n - 3) << 5); codelen_freq[16]++; run -= n; }
        }
        while (run-- > 0) { rle[rle_count++] = (uint16_t)value; codelen_freq[value]++; }
    }
    // The code-length code must be complete: give it two symbols at least.
    int codelen_used = 0;
    for (int i = 0; i < CODELEN_CODES; i++) codelen_used += codelen_freq[i] != 0;
    if (codelen_used < 2) codelen_freq[codelen_freq[0] == 0 ? 0 : 18]++;
    uint8_t codelen_len[CODELEN_CODES];
    build_lengths(codelen_freq, CODELEN_CODES, 7, codelen_len);
    int hclen = CODELEN_CODES;
    while (hclen > 4 && codelen_len[codelen_order[hclen - 1]] == 0) hclen--;

    // Sizes in bits: dynamic against stored.
    uint64_t dynamic_bits = 3 + 5 + 5 + 4 + 3 * (uint64_t)hclen;
    for (int i = 0; i < rle_count; i++) {
        int s = rle[i] & 31;
        dynamic_bits += codelen_len[s] + (s == 16 ? 2 : s == 17 ? 3 : s == 18 ? 7 : 0);
    }
    for (int i = 0; i < LITLEN_CODES; i++) {
        uint64_t f = d->litlen_freq[i];
        dynamic_bits += f * litlen_len[i];
        if (i >= 257) dynamic_bits += f * length_extra[i - 257];
    }
    for (int i = 0; i < DIST_CODES; i++) dynamic_bits += (uint64_t)d->dist_freq[i] * (dist_len[i] + dist_extra[i]);
    size_t raw = to - from;
    uint64_t stored_bits = 3 + 7 + 8 * ((raw + 65534) / 65535 * 5 + raw) + 32;

    if (stored_bits <= dynamic_bits) {
        size_t at = from;
        do {
            size_t n = to - at > 65535 ? 65535 : to - at;
            put_bits(d, 0, 3);   // not final, BTYPE 00
            align_bytes(d);
            uint8_t header[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)~n, (uint8_t)(~n >> 8)};
            put_byte_aligned(d, header, 4);
            put_byte_aligned(d, d->buffer + at, n);
            at += n;
        } while (at < to);
    } else {
        uint16_t litlen_code[LITLEN_CODES], dist_code_bits[DIST_CODES], codelen_code[CODELEN_CODES];
        build_codes(litlen_len, LITLEN_CODES, litlen_code);
        build_codes(dist_len, DIST_CODES, dist_code_bits);
        build_codes(codelen_len, CODELEN_CODES, codelen_code);
        put_bits(d, 2u << 1, 3);   // not final, BTYPE 10
        put_bits(d, (uint64_t)(hlit - 257), 5);
        put_bits(d, (uint64_t)(hdist - 1), 5);
        put_bits(d, (uint64_t)(hclen - 4), 4);
        for (int i = 0; i < hclen; i++) put_bits(d, codelen_len[codelen_order[i]], 3);
        for (int i = 0; i < rle_count; i++) {
            int s = rle[i] & 31, extra = rle[i] >> 5;
            put_bits(d, codelen_code[s], codelen_len[s]);
            if (s == 16) put_bits(d, (uint64_t)extra, 2);
            else if (s == 17) put_bits(d, (uint64_t)extra, 3);
            else if (s == 18) put_bits(d, (uint64_t)extra, 7);
        }
        // A token writes at most 15 bits (a literal) or 15 + 5 + 15 + 13 (a match): 6 bytes,
        // after at most 3 bytes left waiting by put_bits. The bit buffer lives in locals and is
        // flushed by one 8-byte store a token (kept in `d`, it would be reloaded after every byte
        // stored through `out`, which may alias anything), into the output when there is room
        // for the worst case and the last store, else into scratch copied over if it fits.
        size_t worst = d->token_count * 6 + 16;
        uint8_t *scratch = NULL, *out = d->out;
        size_t at = d->length;
        if (d->length + worst > d->capacity) {
            scratch = malloc(worst);
            if (scratch == NULL) {
                d->failed = 1;
                d->token_count = 0;
                memset(d->litlen_freq, 0, sizeof d->litlen_freq);
                memset(d->dist_freq, 0, sizeof d->dist_freq);
                return;
            }
            out = scratch;
            at = 0;
        }
        uint32_t literal[256];   // code | length << 16
        for (int i = 0; i < 256; i++) literal[i] = litlen_code[i] | (uint32_t)litlen_len[i] << 16;
        uint64_t bits = d->bits;
        int count = d->bit_count;
        // Whole bytes first, so that each token starts with fewer than 8 bits waiting.
        memcpy(out + at, &bits, 8);
        at += (size_t)(count >> 3);
        bits = count >= 8 ? bits >> (count & ~7) : bits;
        count &= 7;
        const uint32_t *tokens = d->tokens;
        for (size_t t = 0, n = d->token_count; t < n; t++) {
            uint32_t token = tokens[t];
            if ((token & 0x80000000u) == 0) {
                uint32_t entry = literal[token];
                bits |= (uint64_t)(entry & 0xFFFF) << count;
                count += (int)(entry >> 16);
            } else {
                int length = (int)((token >> 16) & 0x1FF), distance = (int)(token & 0xFFFF) + 1;
                int lc = length_code(length), dc = dist_code(distance);
                bits |= (litlen_code[257 + lc] | (uint64_t)(length - length_base[lc]) << litlen_len[257 + lc])
                        << count;
                count += litlen_len[257 + lc] + length_extra[lc];
                bits |= (dist_code_bits[dc] | (uint64_t)(distance - dist_base[dc]) << dist_len[dc]) << count;
                count += dist_len[dc] + dist_extra[dc];
            }
            memcpy(out + at, &bits, 8);
            at += (size_t)(count >> 3);
            bits = count >= 8 ? bits >> (count & ~7) : bits;
            count &= 7;
        }
        d->bits = bits;
        d->bit_count = count;
        if (scratch == NULL) {
            d->length = at;
        } else {
            put_byte_aligned(d, scratch, at);
            free(scratch);
        }
        put_bits(d, litlen_code[256], litlen_len[256]);
    }
    d->token_count = 0;
    memset(d->litlen_freq, 0, sizeof d->litlen_freq);
    memset(d->dist_freq, 0, sizeof d->dist_freq);
}

// --- matching -------------------------------------------------------------------------------

static inline uint32_t load32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t load64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint32_t hash4(uint32_t v) { return (v * 2654435761u) >> (32 - HASH_BITS); }

/// Tokenises buffer[start, end) (bytes up to `limit` may be read ahead for matches; a match may
/// run past `end`) and writes it as one block.
static void compress_slice(glance_deflate *d, size_t end, size_t limit) {
    const uint8_t *buffer = d->buffer;
    size_t from = d->start, p = from;
    while (p < end) {
        size_t room = limit - p;
        if (room >= MIN_MATCH + 4) {
            uint32_t here = load32(buffer + p);
            uint32_t h = hash4(here);
            int64_t position = d->base + (int64_t)p;
            int64_t candidate = (int64_t)d->hash[h] - 1;
            d->hash[h] = (int32_t)(position + 1);
            if (candidate >= 0 && position - candidate <= WINDOW && candidate >= d->base) {
                const uint8_t *match = buffer + (candidate - d->base);
                if (load32(match) == here) {
                    size_t max = room < LOOKAHEAD ? room : LOOKAHEAD, length = 4;
                    while (length + 8 <= max) {
                        uint64_t diff = load64(buffer + p + length) ^ load64(match + length);
                        if (diff != 0) { length += (size_t)__builtin_ctzll(diff) >> 3; goto found; }
                        length += 8;
                    }
                    while (length < max && buffer[p + length] == match[length]) length++;
                found:
                    if (length > max) length = max;
                    {
                        int distance = (int)(position - candidate);
                        d->tokens[d->token_count++] = 0x80000000u | (uint32_t)length << 16 | (uint32_t)(distance - 1);
                        d->litlen_freq[257 + length_code((int)length)]++;
                        d->dist_freq[dist_code(distance)]++;
                        // Remember a position inside the match too, so that the next run finds it.
                        if (length >= 8 && p + length + 4 <= limit) {
                            size_t q = p + length - 1;
                            d->hash[hash4(load32(buffer + q))] = (int32_t)(d->base + (int64_t)q + 1);
                        }
                        p += length;   // may run past `end`: the next slice starts after the match
                        continue;
                    }
                }
            }
        }
        d->tokens[d->token_count++] = buffer[p];
        d->litlen_freq[buffer[p]]++;
        p++;
    }
    write_block(d, from, p);
    d->start = p;
}

/// Keeps the last window of input at the buffer's start, making room for more.
static void slide(glance_deflate *d) {
    if (d->start <= WINDOW) return;
    size_t drop = d->start - WINDOW;
    memmove(d->buffer, d->buffer + drop, d->filled - drop);
    d->filled -= drop;
    d->start -= drop;
    d->base += (int64_t)drop;
}

// --- Adler-32 -----------------------------------------------------------------------------

enum { ADLER_MODULUS = 65521 };

#if defined(__x86_64__)
/// Whether the checksum may use SSSE3 (every x86-64 made since about 2008; asked, not assumed:
/// see glance_processor_features.h).
static int has_ssse3(void) { return (glance_processor_features() & GLANCE_FEATURE_SSSE3) != 0; }

static inline uint32_t lanes_sum(__m128i v) {
    v = _mm_add_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
    v = _mm_add_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
    return (uint32_t)_mm_cvtsi128_si32(v);
}

/// Adler-32 of `count` bytes, 32 at a time. Over a run of 32 bytes x[0..31], s1 grows by the sum
/// of the bytes and s2 by 32 times s1 before the run plus the sum of (32 - i) x[i]; both are
/// reduced at most every 5,536 bytes, as zlib does, so that no sum overflows.
__attribute__((target("ssse3"))) static uint32_t adler32_ssse3(uint32_t adler, const uint8_t *p, size_t count) {
    uint64_t s1 = adler & 0xFFFF, s2 = adler >> 16;
    const __m128i first_weights = _mm_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17);
    const __m128i second_weights = _mm_setr_epi8(16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
    const __m128i ones = _mm_set1_epi16(1), zero = _mm_setzero_si128();
    while (count >= 32) {
        size_t runs = count / 32;
        if (runs > 173) runs = 173;
        count -= runs * 32;
        __m128i sum = zero, sums_before = zero, weighted = zero;
        for (size_t k = 0; k < runs; k++, p += 32) {
            __m128i a = _mm_loadu_si128((const __m128i *)p);
            __m128i b = _mm_loadu_si128((const __m128i *)(p + 16));
            sums_before = _mm_add_epi32(sums_before, sum);
            sum = _mm_add_epi32(sum, _mm_add_epi32(_mm_sad_epu8(a, zero), _mm_sad_epu8(b, zero)));
            weighted = _mm_add_epi32(weighted, _mm_madd_epi16(_mm_maddubs_epi16(a, first_weights), ones));
            weighted = _mm_add_epi32(weighted, _mm_madd_epi16(_mm_maddubs_epi16(b, second_weights), ones));
        }
        s2 += 32 * (uint64_t)runs * s1 + 32 * (uint64_t)lanes_sum(sums_before) + lanes_sum(weighted);
        s1 += lanes_sum(sum);
        s1 %= ADLER_MODULUS;
        s2 %= ADLER_MODULUS;
    }
    while (count-- > 0) {
        s1 += *p++;
        s2 += s1;
    }
    return (uint32_t)((s2 % ADLER_MODULUS) << 16 | (s1 % ADLER_MODULUS));
}
#endif

/// zlib's Adler-32, or the same sum computed with SSSE3 where the processor has it.
static uint32_t update_adler32(const glance_deflate *d, uint32_t adler, const uint8_t *data, size_t count) {
#if defined(__x86_64__)
    if (d->ssse3) return adler32_ssse3(adler, data, count);
#endif
    (void)d;
    return (uint32_t)adler32_z(adler, data, count);
}

// --- public ---------------------------------------------------------------------------------

glance_deflate *glance_deflate_create(uint8_t *out, size_t capacity) {
    glance_deflate *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->out = out;
    d->capacity = capacity;
    d->adler = 1;
#if defined(__x86_64__)
    d->ssse3 = has_ssse3();
#endif
    // zlib header: deflate, 32 KiB window, "fastest" level, check bits.
    uint8_t header[2] = {0x78, 0x01};
    put_byte_aligned(d, header, 2);
    return d;
}

void glance_deflate_write(glance_deflate *d, const uint8_t *data, size_t count) {
    d->adler = update_adler32(d, d->adler, data, count);
    while (count > 0) {
        size_t room = BUFFER - d->filled;
        size_t n = count < room ? count : room;
        memcpy(d->buffer + d->filled, data, n);
        d->filled += n;
        data += n;
        count -= n;
        if (d->filled == BUFFER) {
            // A full slice with its lookahead: compress the slice, keep the window.
            size_t end = d->start + SLICE <= d->filled - LOOKAHEAD ? d->start + SLICE : d->filled - LOOKAHEAD;
            compress_slice(d, end, d->filled);
            slide(d);
        }
    }
}

int glance_deflate_finish(glance_deflate *d, size_t *length) {
    while (d->start < d->filled) {
        size_t end = d->filled - d->start > SLICE ? d->start + SLICE : d->filled;
        compress_slice(d, end, d->filled);
        slide(d);
    }
    // An empty final block with the fixed code: BFINAL, BTYPE 01, end of block (7 zero bits).
    put_bits(d, 1u | 1u << 1, 3);
    put_bits(d, 0, 7);
    align_bytes(d);
    uint8_t trailer[4] = {(uint8_t)(d->adler >> 24), (uint8_t)(d->adler >> 16), (uint8_t)(d->adler >> 8),
                          (uint8_t)d->adler};
    put_byte_aligned(d, trailer, 4);
    *length = d->length;
    return d->failed ? -1 : 0;
}

size_t glance_deflate_output_length(const glance_deflate *d) { return d->length; }

void glance_deflate_move_output(glance_deflate *d, uint8_t *out, size_t capacity) {
    d->out = out;
    d->capacity = capacity;
    d->length = 0;
}

void glance_deflate_free(glance_deflate *d) { free(d); }

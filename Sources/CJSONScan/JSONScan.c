/* The coalesced-array scan of the HA frame filter (HAFrameFilter.arrayElements),
 * in C for one reason: SIMD. Swift's SIMD16<UInt8> comparisons compile to a
 * loop over the lanes (swiftc 6.3 -O), so the Swift scan read strings eight
 * bytes at a time and everything else byte by byte: 4,234 instructions for a
 * ~1.1 KB household event, 59 % of the agent's work while ingesting
 * (callgrind, scripts/bench/ingest_benchmark.py). Here a 16-byte block is a
 * few compares and bit masks; in a block without backslashes, the quotes
 * mark the strings by a prefix XOR (as simdjson does) and only brackets
 * outside strings are visited. (Visiting every quote instead: 3,849 an event.)
 * Where the machine has AVX2 (chosen at run time: the deployed binary targets
 * plain x86-64), blocks are 64 bytes, two 32-byte registers whose masks make
 * one 64-bit mask (1,193 instructions an event against 1,654 with 32-byte
 * blocks: the work of a block is mostly the same whatever its width); and a block whose
 * brackets cannot end the object or nest too deep, whatever their order, is
 * counted with two popcounts instead of visited bracket by bracket. */
#include "CJSONScan.h"

#if defined(__x86_64__) || defined(__SSE2__)
#include <immintrin.h>
#endif

struct scan {
    int depth;
    int in_string;
};

/* One structural byte: returns 1 when the object ended at it, -1 when nesting
 * is too deep, 0 to go on. Backslashes are the caller's (they skip a byte). */
static inline int step(struct scan *s, uint8_t c, int max_depth) {
    if (s->in_string) {
        if (c == '"') s->in_string = 0;
        return 0;
    }
    switch (c) {
    case '"': s->in_string = 1; return 0;
    case '{': case '[': return ++s->depth >= max_depth ? -1 : 0;
    case '}': case ']': return --s->depth == 0 ? 1 : 0;
    default: return 0;
    }
}

static size_t bytewise(const uint8_t *bytes, size_t count, size_t i, struct scan *s, int max_depth) {
    while (i < count) {
        uint8_t c = bytes[i];
        if (c == '\\') {
            /* In a string it escapes the next byte; outside one it is nothing to the scan. */
            i += s->in_string ? 2 : 1;
            continue;
        }
        if (c == '"' || c == '{' || c == '}' || c == '[' || c == ']') {
            int r = step(s, c, max_depth);
            if (r > 0) return i + 1;
            if (r < 0) return 0;
        }
        i += 1;
    }
    return 0;
}

/* One block's structural bytes as bit masks (bit k: the block's byte k), for
 * a block of `width` bytes (16, 32 or 64). Returns the object's length when it
 * ends in this block, (size_t)-1 to go on to the next block, 0 to refuse (too
 * deep). `carry`: the block's first byte is escaped (a backslash ended the
 * last block); set for the next block. Always inlined into each block
 * reader, so it is compiled for that reader's instruction set. */
static inline __attribute__((always_inline)) size_t
block(struct scan *s, const uint8_t *bytes, size_t i, unsigned width, uint64_t quotes, uint64_t escapes,
      uint64_t opens, uint64_t closes, unsigned *carry, int max_depth) {
    const size_t more = (size_t)-1;
    if (escapes == 0 && *carry == 0) {
        /* No escape in the block: which bytes are inside a string is the
         * running parity of the quotes before them (a prefix XOR), so the
         * quotes cost nothing each. */
        uint64_t full = width == 64 ? ~0ull : width == 32 ? 0xFFFFFFFFull : 0xFFFFull;
        uint64_t inside = quotes;
        inside ^= inside << 1;
        inside ^= inside << 2;
        inside ^= inside << 4;
        inside ^= inside << 8;
        inside ^= inside << 16;
        if (width == 64) inside ^= inside << 32;
        if (s->in_string) inside = ~inside;
        inside &= full;
        uint64_t outside_opens = opens & ~inside, outside_closes = closes & ~inside;
        int opened = __builtin_popcountll(outside_opens), closed = __builtin_popcountll(outside_closes);
        s->in_string ^= __builtin_popcountll(quotes) & 1;
        if (s->depth - closed > 0 && s->depth + opened < max_depth) {
            /* Even all the closes first cannot reach depth 0, nor all the
             * opens first the limit: the order does not matter. */
            s->depth += opened - closed;
            return more;
        }
        uint64_t brackets = outside_opens | outside_closes;
        while (brackets) {
            unsigned position = (unsigned)__builtin_ctzll(brackets);
            brackets &= brackets - 1;
            if (opens & (1ull << position)) {
                if (++s->depth >= max_depth) return 0;
            } else if (--s->depth == 0) {
                return i + position + 1;
            }
        }
        return more;
    }
    /* Escapes: byte by byte through the block's structural bytes. */
    uint64_t mask = (quotes | escapes | opens | closes) & ~(uint64_t)*carry;
    *carry = 0;
    while (mask) {
        unsigned position = (unsigned)__builtin_ctzll(mask);
        mask &= mask - 1;
        uint8_t c = bytes[i + position];
        if (c == '\\') {
            if (!s->in_string) continue;
            /* The next byte is escaped: in this block, or the next block's first. */
            if (position == width - 1) *carry = 1;
            else mask &= ~(1ull << (position + 1));
            continue;
        }
        int r = step(s, c, max_depth);
        if (r > 0) return i + position + 1;
        if (r < 0) return 0;
    }
    return more;
}

#if defined(__SSE2__)
/* 16 bytes at a time (every x86-64). Returns the length, 0 to refuse, or
 * (size_t)-1 with *at set where the byte-by-byte reading takes over. */
static size_t blocks16(const uint8_t *bytes, size_t count, size_t *at, struct scan *s, int max_depth) {
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    const __m128i open_brace = _mm_set1_epi8('{'), close_brace = _mm_set1_epi8('}');
    const __m128i open_bracket = _mm_set1_epi8('['), close_bracket = _mm_set1_epi8(']');
    unsigned carry = 0;
    size_t i = *at;
    while (i + 16 <= count) {
        __m128i v = _mm_loadu_si128((const __m128i *)(bytes + i));
        uint64_t quotes = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote));
        uint64_t escapes = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash));
        uint64_t opens = (uint16_t)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, open_brace), _mm_cmpeq_epi8(v, open_bracket)));
        uint64_t closes = (uint16_t)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, close_brace), _mm_cmpeq_epi8(v, close_bracket)));
        size_t r = block(s, bytes, i, 16, quotes, escapes, opens, closes, &carry, max_depth);
        if (r != (size_t)-1) return r;
        i += 16;
    }
    *at = i + carry;
    return (size_t)-1;
}
#endif

#if defined(__x86_64__)
/* The structural bytes of 32 bytes, as masks (bit k: byte k). */
struct masks {
    uint64_t quotes, escapes, opens, closes;
};

__attribute__((target("avx2"), always_inline))
static inline struct masks masks32(const uint8_t *bytes) {
    __m256i v = _mm256_loadu_si256((const __m256i *)bytes);
#define PB_MATCH(c) _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c))
    struct masks m = {
        (uint32_t)_mm256_movemask_epi8(PB_MATCH('"')),
        (uint32_t)_mm256_movemask_epi8(PB_MATCH('\\')),
        (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(PB_MATCH('{'), PB_MATCH('['))),
        (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(PB_MATCH('}'), PB_MATCH(']'))),
    };
#undef PB_MATCH
    return m;
}

/* For machines with AVX2: 64 bytes at a time (two 32-byte halves, one
 * 64-bit mask of each kind), or, `wide` 0, 32 (the last block before the
 * 16-byte one and the byte-by-byte tail). Inlined into blocks64 and blocks32,
 * so each is compiled for its one width. */
__attribute__((target("avx2"), always_inline))
static inline size_t blocks_avx2(const uint8_t *bytes, size_t count, size_t *at, struct scan *s, int max_depth,
                                 const int wide) {
    const unsigned width = wide ? 64 : 32;
    unsigned carry = 0;
    size_t i = *at;
    while (i + width <= count) {
        struct masks m = masks32(bytes + i);
        if (wide) {
            struct masks high = masks32(bytes + i + 32);
            m.quotes |= high.quotes << 32;
            m.escapes |= high.escapes << 32;
            m.opens |= high.opens << 32;
            m.closes |= high.closes << 32;
        }
        size_t r = block(s, bytes, i, width, m.quotes, m.escapes, m.opens, m.closes, &carry, max_depth);
        if (r != (size_t)-1) return r;
        i += width;
    }
    *at = i + carry;
    return (size_t)-1;
}

__attribute__((target("avx2")))
static size_t blocks64(const uint8_t *bytes, size_t count, size_t *at, struct scan *s, int max_depth) {
    return blocks_avx2(bytes, count, at, s, max_depth, 1);
}

__attribute__((target("avx2")))
static size_t blocks32(const uint8_t *bytes, size_t count, size_t *at, struct scan *s, int max_depth) {
    return blocks_avx2(bytes, count, at, s, max_depth, 0);
}
#endif

int pb_json_scan_widest(void) {
#if defined(__x86_64__)
    /* Asked once; any thread may be first (the same answer each time). */
    static int widest = 0;
    int known = __atomic_load_n(&widest, __ATOMIC_RELAXED);
    if (known == 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx2") ? 64 : 16;
        __atomic_store_n(&widest, known, __ATOMIC_RELAXED);
    }
    return known;
#elif defined(__SSE2__)
    return 16;
#else
    return 1;
#endif
}

size_t pb_json_object_length(const uint8_t *bytes, size_t count, int max_depth, int width) {
    struct scan s = {0, 0};
    size_t i = 0;
    if (count == 0 || bytes[0] != '{') return 0;
    if (width < 0) width = pb_json_scan_widest();
    size_t r = (size_t)-1;
#if defined(__x86_64__)
    /* With AVX2: 64-byte blocks, then a last 32-byte one. */
    if (width >= 64 && pb_json_scan_widest() >= 64) r = blocks64(bytes, count, &i, &s, max_depth);
    if (r != (size_t)-1) return r;
    if (width >= 32 && pb_json_scan_widest() >= 64) r = blocks32(bytes, count, &i, &s, max_depth);
    if (r != (size_t)-1) return r;
#endif
#if defined(__SSE2__)
    /* After 32-byte blocks, a last 16-byte one before the byte-by-byte tail. */
    if (width >= 16) r = blocks16(bytes, count, &i, &s, max_depth);
    if (r != (size_t)-1) return r;
#endif
    return bytewise(bytes, count, i, &s, max_depth);
}

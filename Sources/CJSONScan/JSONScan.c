/* The coalesced-array scan of the HA frame filter (HAFrameFilter.arrayElements),
 * in C for one reason: SIMD. Swift's SIMD16<UInt8> comparisons compile to a
 * loop over the lanes (swiftc 6.3 -O), so the Swift scan read strings eight
 * bytes at a time and everything else byte by byte: 4,234 instructions for a
 * ~1.1 KB household event, 59 % of the agent's work while ingesting
 * (callgrind, scripts/bench/ingest_benchmark.py). Here a 16-byte block is a
 * few compares and bit masks; in a block without backslashes, the quotes
 * mark the strings by a prefix XOR (as simdjson does) and only brackets
 * outside strings are visited. (Visiting every quote instead: 3,849 an event.) */
#include "CJSONScan.h"

#if defined(__SSE2__)
#include <emmintrin.h>
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

size_t pb_json_object_length(const uint8_t *bytes, size_t count, int max_depth, int vectorized) {
    struct scan s = {0, 0};
    size_t i = 0;
    if (count == 0 || bytes[0] != '{') return 0;
#if defined(__SSE2__)
    if (vectorized) {
        const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
        const __m128i open_brace = _mm_set1_epi8('{'), close_brace = _mm_set1_epi8('}');
        const __m128i open_bracket = _mm_set1_epi8('['), close_bracket = _mm_set1_epi8(']');
        unsigned carry = 0; /* the block's first byte is escaped (a backslash ended the last block) */
        while (i + 16 <= count) {
            __m128i v = _mm_loadu_si128((const __m128i *)(bytes + i));
            unsigned quotes = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote));
            unsigned escapes = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash));
            unsigned opens = (unsigned)_mm_movemask_epi8(
                _mm_or_si128(_mm_cmpeq_epi8(v, open_brace), _mm_cmpeq_epi8(v, open_bracket)));
            unsigned closes = (unsigned)_mm_movemask_epi8(
                _mm_or_si128(_mm_cmpeq_epi8(v, close_brace), _mm_cmpeq_epi8(v, close_bracket)));
            if (escapes == 0 && carry == 0) {
                /* No escape in the block: which bytes are inside a string is
                 * the running parity of the quotes before them (a prefix XOR),
                 * so the quotes cost nothing each; only brackets outside
                 * strings are looked at one by one. */
                unsigned inside = quotes;
                inside ^= inside << 1;
                inside ^= inside << 2;
                inside ^= inside << 4;
                inside ^= inside << 8;
                if (s.in_string) inside = ~inside;
                inside &= 0xFFFF;
                unsigned brackets = (opens | closes) & ~inside;
                while (brackets) {
                    unsigned position = (unsigned)__builtin_ctz(brackets);
                    brackets &= brackets - 1;
                    if (opens & (1u << position)) {
                        if (++s.depth >= max_depth) return 0;
                    } else if (--s.depth == 0) {
                        return i + position + 1;
                    }
                }
                s.in_string ^= __builtin_popcount(quotes) & 1;
                i += 16;
                continue;
            }
            /* Escapes: byte by byte through the block's structural bytes. */
            unsigned mask = (quotes | escapes | opens | closes) & ~carry;
            carry = 0;
            while (mask) {
                unsigned position = (unsigned)__builtin_ctz(mask);
                mask &= mask - 1;
                uint8_t c = bytes[i + position];
                if (c == '\\') {
                    if (!s.in_string) continue;
                    /* The next byte is escaped: in this block, or the next block's first. */
                    if (position == 15) carry = 1;
                    else mask &= ~(1u << (position + 1));
                    continue;
                }
                int r = step(&s, c, max_depth);
                if (r > 0) return i + position + 1;
                if (r < 0) return 0;
            }
            i += 16;
        }
        if (carry) i += 1;
    }
#endif
    return bytewise(bytes, count, i, &s, max_depth);
}

#ifndef PRINTBRIDGE_CJSONSCAN_H
#define PRINTBRIDGE_CJSONSCAN_H

#include <stddef.h>
#include <stdint.h>

/* The length of the JSON object that starts at bytes[0] (which must be '{'),
 * following strings (to their closing quote, over backslash escapes) and
 * nesting ({ and [) only, checking nothing else; 0 when it does not end within
 * `count` bytes, a string does not end, or nesting reaches `max_depth`.
 *
 * `width`: the bytes read at a time. 64 or 32 (AVX2, where the machine has
 * it, else 16), 16 (SSE2, every x86-64) with the structural bytes' positions
 * as bit masks; 1, or a machine without SSE2, reads byte by byte; -1 is the
 * widest the machine has. Every width gives the same answer
 * (JSONObjectScanTests, FuzzHAFrames). */
size_t pb_json_object_length(const uint8_t *bytes, size_t count, int max_depth, int width);

/* The widest block the machine reads: 64 (AVX2), 16 (SSE2) or 1. */
int pb_json_scan_widest(void);

#endif

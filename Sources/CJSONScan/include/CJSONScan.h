#ifndef PRINTBRIDGE_CJSONSCAN_H
#define PRINTBRIDGE_CJSONSCAN_H

#include <stddef.h>
#include <stdint.h>

/* The length of the JSON object that starts at bytes[0] (which must be '{'),
 * following strings (to their closing quote, over backslash escapes) and
 * nesting ({ and [) only, checking nothing else; 0 when it does not end within
 * `count` bytes, a string does not end, or nesting reaches `max_depth`.
 *
 * `vectorized`: 16 bytes at a time (SSE2, every x86-64) with the structural
 * bytes' positions as a bit mask; 0, or a machine without SSE2, reads byte by
 * byte. Both give the same answer (CoalescedFrameTests, FuzzHAFrames). */
size_t pb_json_object_length(const uint8_t *bytes, size_t count, int max_depth, int vectorized);

#endif

#ifndef PRINTBRIDGE_CLIBWEBSOCKETS_SHIM_H
#define PRINTBRIDGE_CLIBWEBSOCKETS_SHIM_H

#include <libwebsockets.h>

/* LWS_PRE is a macro built from other macros; Swift cannot import it. */
static inline size_t pb_lws_pre(void) { return LWS_PRE; }

/* LWS_WRITE_RAW is a macro naming another enum value (LWS_WRITE_HTTP in 4.1.6). */
static inline enum lws_write_protocol pb_lws_write_raw(void) { return LWS_WRITE_RAW; }

#endif

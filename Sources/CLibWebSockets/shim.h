#ifndef PRINTBRIDGE_CLIBWEBSOCKETS_SHIM_H
#define PRINTBRIDGE_CLIBWEBSOCKETS_SHIM_H

#include <libwebsockets.h>

/* LWS_PRE is a macro built from other macros; Swift cannot import it. */
static inline size_t pb_lws_pre(void) { return LWS_PRE; }

#endif

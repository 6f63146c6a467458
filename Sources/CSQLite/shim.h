#ifndef PRINTBRIDGE_CSQLITE_SHIM_H
#define PRINTBRIDGE_CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast macro ((sqlite3_destructor_type)-1) Swift cannot import. */
static inline sqlite3_destructor_type pb_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/* sqlite3_config is variadic; single-thread/serialized switches take no argument. */
static inline int pb_sqlite_config_serialized(void) { return sqlite3_config(SQLITE_CONFIG_SERIALIZED); }

#endif

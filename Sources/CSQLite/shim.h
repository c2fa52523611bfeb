#ifndef REWIND_CSQLITE_SHIM_H
#define REWIND_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type rewind_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// SQLITE_STATIC (a null destructor) for symmetry: the caller keeps the bytes alive.
static inline sqlite3_destructor_type rewind_sqlite_static(void) {
    return SQLITE_STATIC;
}
#endif

#ifndef MDMCONF_CSQLITE3_SHIM_H
#define MDMCONF_CSQLITE3_SHIM_H
#include <sqlite3.h>

/* Turns off SQLite's memory statistics, which take a process-wide mutex on every allocation (Debian builds SQLite
   with them on). sqlite3_config is variadic, which Swift cannot call, and only works before SQLite initialises:
   call this before the first connection opens. Returns SQLITE_OK, or SQLITE_MISUSE when SQLite was already in use
   (then the statistics stay on, which costs speed and nothing else). */
static inline int mdmconf_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif

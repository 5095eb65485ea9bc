#ifndef MDMCONF_CSQLITE3_SHIM_H
#define MDMCONF_CSQLITE3_SHIM_H
#include <sqlite3.h>
#endif

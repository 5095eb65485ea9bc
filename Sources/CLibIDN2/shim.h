#ifndef MDMCONF_CLIBIDN2_SHIM_H
#define MDMCONF_CLIBIDN2_SHIM_H
#include <idn2.h>
#endif

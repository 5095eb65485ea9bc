#ifndef MDMCONF_CLIBXML2_SHIM_H
#define MDMCONF_CLIBXML2_SHIM_H

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>

/* libxml2's generic error channel is a variadic C function, which Swift cannot write; this one drops
   everything. The channel is per thread in threaded builds, so call this before each parse. */
static void mdmconf_ignore_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

static inline void mdmconf_silence_generic_errors(void) {
    xmlSetGenericErrorFunc(NULL, mdmconf_ignore_generic_error);
}

#endif

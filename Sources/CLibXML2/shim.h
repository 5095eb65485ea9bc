#ifndef MDMCONF_CLIBXML2_SHIM_H
#define MDMCONF_CLIBXML2_SHIM_H

#include <libxml/xmlversion.h>
/* Swift's Foundation carries its own ICU (`_FoundationICU`). With the system ICU's headers inside this module as
   well (libxml2's encoding.h includes <unicode/ucnv.h> when libxml2 was built with ICU, as Debian's is), a Swift file
   that sees both modules and one more C module can fail to build: "'UErrorCode' has different definitions in
   different modules". mdmconf never uses libxml2's ICU converters, and the one declaration the macro changes is the
   tail of xmlCharEncodingHandler, which mdmconf neither allocates nor reads; so the ICU part is left out here. */
#undef LIBXML_ICU_ENABLED

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

#ifndef CINEPACK_CLIBXML2_SHIM_H
#define CINEPACK_CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU, and <libxml/encoding.h> then includes the system's
   <unicode/ucnv.h>, which clashes with Foundation's own ICU module in any Swift module that sees
   both. Nothing here uses ICU, and the encoding-handler struct it changes is only reached through
   pointers, so leave it out. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/relaxng.h>
#include <libxml/xmlsave.h>
#include <libxml/c14n.h>

/* Exclusive-C14N visibility callback: a node is visible when it lies in the subtree rooted at
   `root` (namespace nodes are judged by the element that carries them). */
static inline int cinepack_xml_in_subtree(void *root, xmlNodePtr node, xmlNodePtr parent) {
    xmlNodePtr n = (node != NULL && node->type != XML_NAMESPACE_DECL) ? node : parent;
    while (n != NULL) {
        if (n == (xmlNodePtr)root) return 1;
        n = n->parent;
    }
    return 0;
}

/* Exclusive canonical XML 1.0, with comments, of the subtree rooted at `root`: a self-contained
   text (it declares every namespace it uses), the same for every equivalent input. */
static inline int cinepack_xml_c14n_subtree(xmlDocPtr doc, xmlNodePtr root, xmlOutputBufferPtr out) {
    return xmlC14NExecute(doc, cinepack_xml_in_subtree, root, XML_C14N_EXCLUSIVE_1_0, NULL, 1, out);
}

/* libxml2 reports through per-thread handlers that default to printing on stderr. A parse installs
   its own for its duration (structured: collected; generic: discarded, as every real diagnostic
   also goes through the structured one) and restores the caller's afterwards. Per-thread, so
   concurrent parses on other threads are unaffected. */
static inline void cinepack_xml_discard_generic(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

typedef struct {
    xmlStructuredErrorFunc structured;
    void *structuredContext;
    xmlGenericErrorFunc generic;
    void *genericContext;
} cinepack_xml_handlers;

static inline cinepack_xml_handlers cinepack_xml_install_handlers(xmlStructuredErrorFunc handler, void *context) {
    cinepack_xml_handlers saved = {xmlStructuredError, xmlStructuredErrorContext, xmlGenericError,
                                   xmlGenericErrorContext};
    xmlSetStructuredErrorFunc(context, handler);
    xmlSetGenericErrorFunc(NULL, cinepack_xml_discard_generic);
    return saved;
}

static inline void cinepack_xml_restore_handlers(cinepack_xml_handlers saved) {
    xmlSetStructuredErrorFunc(saved.structuredContext, saved.structured);
    xmlSetGenericErrorFunc(saved.genericContext, saved.generic);
}

#endif

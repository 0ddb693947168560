/* A streaming look at a hardware description's bytes before libxml2 parses
 * them, for two reasons.
 *
 * Bounded work. libxml2 checks the attributes of an element for duplicates
 * pairwise, so a 1 MB file whose root has 100,000 attributes takes tens of
 * seconds (and one near the 16 MiB cap about an hour) before any check of
 * ours runs. One linear pass counts elements, attributes per element and
 * nesting depth and measures every value, text run and comment; a file over
 * any bound is refused at once. The bounds are far beyond what the schema
 * allows (six elements, at most five attributes each, depth two), so no
 * valid description comes near them, and they sit below libxml2's own
 * limits, whose messages name libxml2 options.
 *
 * Precise reasons. Text that is not XML at all (plain text, JSON, a password
 * file), UTF-16 or UTF-32 text and NUL bytes would otherwise reach libxml2,
 * which reports most of them as "empty document" or silently stops at a NUL.
 *
 * The scan only bounds and classifies; well-formedness stays libxml2's job.
 * A malformed file that the scan misreads is still refused by libxml2, and
 * the bounds hold for any byte sequence: every '<' starts at most one
 * element, and every quoted string is counted as an attribute. */
#include "hwdesc/hw_internal.h"

#include <string.h>

/* Documented in docs/reliability.md and docs/hardware-format.md. */
#define LF__HW_MAX_ELEMENTS 1000
#define LF__HW_MAX_ATTRIBUTES 32 /* per element */
#define LF__HW_MAX_DEPTH 16
#define LF__HW_MAX_MARKUP 10000 /* elements, end tags, comments, CDATA sections and PIs together */
/* One attribute value, text run inside the root, comment, CDATA section or
 * processing instruction: below libxml2's own 10,000,000-byte limit, so that
 * the message is ours. Blank text around the root is not a node and has no
 * limit but the file's. */
#define LF__HW_MAX_RUN (8L << 20)

typedef struct scan {
    const unsigned char *p;
    size_t len, pos;
    long line;
    const char *origin;
} scan;

static int lf__at(const scan *s, const char *lit)
{
    size_t n = strlen(lit);
    return s->len - s->pos >= n && memcmp(s->p + s->pos, lit, n) == 0;
}

static void lf__advance(scan *s, size_t n)
{
    for (size_t i = 0; i < n && s->pos < s->len; i++)
        s->line += s->p[s->pos++] == '\n';
}

/* Skips to just after `end`; returns the length skipped over, or -1 when the
 * input ends first (libxml2 then reports the unterminated construct). */
static long lf__skip_until(scan *s, const char *end)
{
    size_t start = s->pos;
    while (s->pos < s->len && !lf__at(s, end))
        lf__advance(s, 1);
    if (s->pos >= s->len)
        return -1;
    long n = (long)(s->pos - start);
    lf__advance(s, strlen(end));
    return n;
}

static lf_status lf__too_long(const scan *s, long line, const char *what)
{
    return lf_set_error(LF_ERANGE, "%s:%ld: %s longer than %ld MiB; a hardware description has no "
                        "use for one",
                        s->origin, line, what, LF__HW_MAX_RUN >> 20);
}

/* Encodings libxml2 would accept but the rest of the scan (and the user's
 * editor, most likely) does not expect: named, with the fix. */
static lf_status lf__check_encoding(const unsigned char *p, size_t len, const char *origin)
{
    const char *enc = NULL;
    if (len >= 4 && ((p[0] == 0 && p[1] == 0 && p[2] == 0xFE && p[3] == 0xFF) ||
                     (p[0] == 0xFF && p[1] == 0xFE && p[2] == 0 && p[3] == 0) ||
                     (p[0] == 0 && p[1] == 0 && p[2] == 0 && p[3] == '<') ||
                     (p[0] == '<' && p[1] == 0 && p[2] == 0 && p[3] == 0)))
        enc = "UTF-32";
    else if (len >= 2 && ((p[0] == 0xFE && p[1] == 0xFF) || (p[0] == 0xFF && p[1] == 0xFE) ||
                          (p[0] == 0 && p[1] == '<') || (p[0] == '<' && p[1] == 0)))
        enc = "UTF-16";
    if (enc)
        return lf_set_error(LF_EPARSE, "%s:1: the file is %s text; hardware descriptions are UTF-8 "
                            "(convert it, e.g. iconv -f %s -t UTF-8)",
                            origin, enc, enc);
    return LF_OK;
}

static lf_status lf__check_start(scan *s)
{
    if (lf__at(s, "\xEF\xBB\xBF")) /* UTF-8 byte order mark */
        s->pos += 3;
    while (s->pos < s->len && (s->p[s->pos] == ' ' || s->p[s->pos] == '\t' ||
                               s->p[s->pos] == '\r' || s->p[s->pos] == '\n'))
        lf__advance(s, 1);
    if (s->pos >= s->len)
        return lf_set_error(LF_EPARSE, "%s:%ld: empty document (expected a <hardware> element)",
                            s->origin, s->line);
    unsigned char c = s->p[s->pos];
    if (c == '<')
        return LF_OK;
    if (c == '{' || c == '[')
        return lf_set_error(LF_EPARSE, "%s:%ld: the file looks like JSON, not XML (a hardware "
                            "description starts with <hardware>; see docs/hardware-format.md)",
                            s->origin, s->line);
    /* Up to 24 bytes of the first line, escaped by lf_set_error. */
    char head[32];
    size_t n = 0;
    while (s->pos + n < s->len && n < 24 && s->p[s->pos + n] != '\n' && s->p[s->pos + n] != '\r')
        n++;
    memcpy(head, s->p + s->pos, n);
    head[n] = '\0';
    return lf_set_error(LF_EPARSE, "%s:%ld: not XML: the text starts with \"%s%s\" (a hardware "
                        "description starts with <hardware>; see docs/hardware-format.md)",
                        s->origin, s->line, head, n == 24 ? "..." : "");
}

/* A start tag from just after its '<': counts attributes (quoted values)
 * and measures them. Sets *empty for "/>". Returns LF_OK also when the input
 * ends inside the tag: libxml2 reports that. */
static lf_status lf__scan_start_tag(scan *s, long line, int *empty)
{
    int attrs = 0;
    *empty = 0;
    while (s->pos < s->len) {
        unsigned char c = s->p[s->pos];
        if (c == '>') {
            lf__advance(s, 1);
            return LF_OK;
        }
        if (c == '/' && lf__at(s, "/>")) {
            lf__advance(s, 2);
            *empty = 1;
            return LF_OK;
        }
        if (c == '<')
            return LF_OK; /* malformed: libxml2 reports it */
        if (c == '"' || c == '\'') {
            long vline = s->line;
            char q[2] = {(char)c, '\0'};
            lf__advance(s, 1);
            long n = lf__skip_until(s, q);
            if (n < 0)
                return LF_OK;
            if (n > LF__HW_MAX_RUN)
                return lf__too_long(s, vline, "an attribute value");
            if (++attrs > LF__HW_MAX_ATTRIBUTES)
                return lf_set_error(LF_ERANGE, "%s:%ld: an element has more than %d attributes; "
                                    "a hardware description element has at most 5",
                                    s->origin, line, LF__HW_MAX_ATTRIBUTES);
            continue;
        }
        lf__advance(s, 1);
    }
    return LF_OK;
}

lf_status lf__hw_precheck(const char *xml, size_t len, const char *origin)
{
    scan s = {(const unsigned char *)xml, len, 0, 1, origin};
    lf_status st;
    if ((st = lf__check_encoding(s.p, len, origin)) != LF_OK)
        return st;
    const unsigned char *nul = memchr(s.p, 0, len);
    if (nul) {
        long line = 1;
        for (const unsigned char *q = s.p; q < nul; q++)
            line += *q == '\n';
        return lf_set_error(LF_EPARSE, "%s:%ld: the file contains a NUL byte (at byte %zu); a "
                            "hardware description is text",
                            origin, line, (size_t)(nul - s.p));
    }
    if ((st = lf__check_start(&s)) != LF_OK)
        return st;

    int elements = 0, depth = 0, markup = 0;
    size_t text_start = s.pos;
    long text_line = s.line;
    while (s.pos < s.len) {
        if (s.p[s.pos] != '<') {
            lf__advance(&s, 1);
            continue;
        }
        if (depth > 0 && (long)(s.pos - text_start) > LF__HW_MAX_RUN)
            return lf__too_long(&s, text_line, "a text run");
        long line = s.line;
        long n = 0;
        /* Each construct becomes a node of libxml2's tree (about 150 bytes
         * and some work each): two million comments would take seconds and
         * hundreds of MB. */
        if (++markup > LF__HW_MAX_MARKUP)
            return lf_set_error(LF_ERANGE, "%s:%ld: more than %d tags, comments and processing "
                                "instructions; a hardware description has about a dozen",
                                origin, line, LF__HW_MAX_MARKUP);
        if (lf__at(&s, "<!--")) {
            lf__advance(&s, 4);
            n = lf__skip_until(&s, "-->");
            if (n > LF__HW_MAX_RUN)
                return lf__too_long(&s, line, "a comment");
        } else if (lf__at(&s, "<![CDATA[")) {
            lf__advance(&s, 9);
            n = lf__skip_until(&s, "]]>");
            if (n > LF__HW_MAX_RUN)
                return lf__too_long(&s, line, "a CDATA section");
        } else if (lf__at(&s, "<?")) {
            lf__advance(&s, 2);
            n = lf__skip_until(&s, "?>");
            if (n > LF__HW_MAX_RUN)
                return lf__too_long(&s, line, "a processing instruction");
        } else if (lf__at(&s, "<!")) {
            return LF_OK; /* a DOCTYPE: refused by the parser's hook before any declaration */
        } else if (lf__at(&s, "</")) {
            lf__advance(&s, 2);
            n = lf__skip_until(&s, ">");
            depth -= depth > 0;
        } else {
            int empty;
            lf__advance(&s, 1);
            if (++elements > LF__HW_MAX_ELEMENTS)
                return lf_set_error(LF_ERANGE, "%s:%ld: more than %d elements; a hardware "
                                    "description has at most 6",
                                    origin, line, LF__HW_MAX_ELEMENTS);
            if ((st = lf__scan_start_tag(&s, line, &empty)) != LF_OK)
                return st;
            if (!empty && ++depth > LF__HW_MAX_DEPTH)
                return lf_set_error(LF_ERANGE, "%s:%ld: elements nest more than %d deep; a "
                                    "hardware description nests 2 deep",
                                    origin, line, LF__HW_MAX_DEPTH);
        }
        if (n < 0)
            return LF_OK; /* unterminated: libxml2 reports it */
        text_start = s.pos;
        text_line = s.line;
    }
    if (depth > 0 && (long)(s.pos - text_start) > LF__HW_MAX_RUN)
        return lf__too_long(&s, text_line, "a text run");
    return LF_OK;
}

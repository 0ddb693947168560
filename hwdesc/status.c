#include "hwdesc/status.h"

#include <stdio.h>
#include <string.h>

static _Thread_local char lf__message[LF_MESSAGE_MAX];
static _Thread_local lf_status lf__last_status;

/* LF_STATUS_MIN is the table's lowest code. */
#define LF__STATUS_IN_RANGE(name, value, text) _Static_assert(value >= LF_STATUS_MIN, #name " below LF_STATUS_MIN");
LF_STATUS_TABLE(LF__STATUS_IN_RANGE)
#define LF__STATUS_IS_MIN(name, value, text) || value == LF_STATUS_MIN
_Static_assert(0 LF_STATUS_TABLE(LF__STATUS_IS_MIN), "LF_STATUS_MIN is not in the table");

const char *lf_strerror(lf_status s)
{
    switch (s) {
#define LF__STATUS_TEXT(name, value, text) case name: return text;
    LF_STATUS_TABLE(LF__STATUS_TEXT)
#undef LF__STATUS_TEXT
    }
    return "unknown status";
}

/* Length of the UTF-8 sequence at p (1 to 4 bytes), or 0 when the bytes are
 * not a valid, shortest-form encoding of a code point. */
static size_t lf__utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    size_t n;
    unsigned cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    if (cp >= 0x80 && cp <= 0x9F) /* C1 controls: some terminals act on them */
        return 0;
    return n;
}

/* One display unit of src: the bytes to emit for the character at *src
 * (an escape for a control character or an invalid byte), and how many
 * source bytes it covers. */
static size_t lf__unit(const unsigned char *src, char out[8], size_t *used)
{
    unsigned c = src[0];
    size_t n = lf__utf8_len(src);
    if (n > 1 || (n == 1 && c >= 0x20 && c != 0x7F)) {
        memcpy(out, src, n);
        *used = n;
        return n;
    }
    *used = n ? n : 1;
    if (n == 2) /* a C1 control: show its code point */
        return (size_t)snprintf(out, 8, "\\u%04x", ((c & 0x1Fu) << 6) | (src[1] & 0x3Fu));
    switch (c) {
    case '\n': memcpy(out, "\\n", 2); return 2;
    case '\r': memcpy(out, "\\r", 2); return 2;
    case '\t': memcpy(out, "\\t", 2); return 2;
    default: return (size_t)snprintf(out, 8, "\\x%02x", c);
    }
}

size_t lf_text_line(char *dst, size_t cap, const char *src)
{
    if (!dst || cap == 0)
        return 0;
    if (!src)
        src = "";
    /* The escaped length first, to know whether the middle must go. */
    size_t total = 0;
    char u[8];
    for (const unsigned char *p = (const unsigned char *)src; *p;) {
        size_t used;
        total += lf__unit(p, u, &used);
        p += used;
    }
    static const char ellipsis[] = " ... ";
    size_t room = cap - 1, head = room, tail_from = total, pos = 0, o = 0;
    if (total > room && room > sizeof ellipsis + 8) {
        /* Keep the start (file and line) and the end (the reason). */
        head = (room - (sizeof ellipsis - 1)) / 3;
        tail_from = total - (room - (sizeof ellipsis - 1) - head);
    }
    int cut = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p;) {
        size_t used, n = lf__unit(p, u, &used);
        p += used;
        if (pos + n <= head || pos >= tail_from) {
            if (o + n > room)
                break;
            memcpy(dst + o, u, n);
            o += n;
        } else if (!cut) {
            cut = 1;
            memcpy(dst + o, ellipsis, sizeof ellipsis - 1);
            o += sizeof ellipsis - 1;
        }
        pos += n;
    }
    dst[o] = '\0';
    return o;
}

lf_status lf_set_verror(lf_status s, const char *fmt, va_list ap)
{
    lf__last_status = s;
    if (fmt) {
        /* Formatted in full first, then made one safe line of bounded length:
         * user text (paths, values, libxml2 messages) may hold newlines or
         * terminal controls, and a long path must not push the reason off
         * the end. */
        char full[4096];
        vsnprintf(full, sizeof full, fmt, ap);
        lf_text_line(lf__message, sizeof lf__message, full);
    } else {
        lf__message[0] = '\0';
    }
    return s;
}

lf_status lf_set_error(lf_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lf_set_verror(s, fmt, ap);
    va_end(ap);
    return s;
}

const char *lf_last_error(void)
{
    if (lf__message[0])
        return lf__message;
    return lf_strerror(lf__last_status);
}

lf_status lf_last_status(void) { return lf__last_status; }

void lf_clear_error(void)
{
    lf__message[0] = '\0';
    lf__last_status = LF_OK;
}

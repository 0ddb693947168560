/* Status codes shared by every module of fusionplan.
 *
 * Every fallible function returns an lf_status: LF_OK (0) on success or one of
 * the negative codes below. On failure the function also records a one-line,
 * human-readable message in thread-local storage (lf_last_error) that names the
 * file, line, element, op or argument at fault. The library never exits or
 * aborts on bad input; the CLI turns the message into one line on stderr. */
#ifndef LF_STATUS_H
#define LF_STATUS_H

#include <stdarg.h>
#include <stddef.h>

typedef enum lf_status {
    LF_OK = 0,
    LF_EINVAL = -1,       /* invalid argument */
    LF_ENOMEM = -2,       /* out of memory */
    LF_EIO = -3,          /* a file could not be read or written */
    LF_EPARSE = -4,       /* malformed input (XML, ONNX, JSON, numbers with units) */
    LF_EGRAPH = -5,       /* invalid graph: cycle, dangling input, shape mismatch */
    LF_ENOTFOUND = -6,    /* unknown name: model, op, file */
    LF_ELIMIT = -7,       /* a state, size or evaluation limit was exceeded */
    LF_ENOSYS = -8,       /* feature not compiled in (CUDA, ...) */
    LF_EUNSUPPORTED = -9, /* valid input that fusionplan does not handle (op type, attribute) */
    LF_ERANGE = -10,      /* absurd size or arithmetic overflow */
    LF_EPLAN = -11,       /* a plan violates the validity rules */
    LF_STATUS_MIN = -11
} lf_status;

/* Short fixed description of a status code ("invalid argument", ...). */
const char *lf_strerror(lf_status s);

/* Longest message kept, terminating NUL included. */
#define LF_MESSAGE_MAX 640

/* Copies src into dst (cap bytes) as one line that is safe to print:
 * control characters become escapes (\n, \t, \x1b, \u0085), bytes that are
 * not UTF-8 become \xNN, and text longer than cap - 1 loses its middle (the
 * start, which names the file, and the end, which gives the reason, stay).
 * Returns the length written. Every message recorded by lf_set_error goes
 * through it. */
size_t lf_text_line(char *dst, size_t cap, const char *src);

/* Records a formatted message for the calling thread and returns s, so that a
 * failure can be reported in one statement:  return lf_set_error(LF_EINVAL, "...", ...); */
lf_status lf_set_error(lf_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
lf_status lf_set_verror(lf_status s, const char *fmt, va_list ap);

/* The calling thread's last message, or lf_strerror of the last status when no
 * message was given. Never NULL. */
const char *lf_last_error(void);

/* The status recorded with the calling thread's last message. */
lf_status lf_last_status(void);

/* Clears the calling thread's message. */
void lf_clear_error(void);

#endif

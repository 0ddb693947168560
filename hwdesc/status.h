/* Status codes shared by every module of fusionplan.
 *
 * They sit in hwdesc/, the lowest folder of the library, so that every
 * folder can use them without an upward arrow (hwdesc must not depend on
 * planner/, DESIGN §3); planner/status.h, the name the API has always had,
 * includes this header.
 *
 * Every fallible function returns an lf_status: LF_OK (0) on success or one of
 * the negative codes below. On failure the function also records a one-line,
 * human-readable message in thread-local storage (lf_last_error) that names the
 * file, line, element, op or argument at fault. The library never exits or
 * aborts on bad input; the CLI turns the message into one line on stderr. */
#ifndef LF_HWDESC_STATUS_H
#define LF_HWDESC_STATUS_H

#include <stdarg.h>
#include <stddef.h>

/* The one table of status codes: X(NAME, value, short description). The
 * enum, lf_strerror and LF_STATUS_MIN all come from it, so a new code is one
 * line here. */
#define LF_STATUS_TABLE(X)                                                                   \
    X(LF_OK, 0, "success")                                                                   \
    X(LF_EINVAL, -1, "invalid argument")                                                     \
    X(LF_ENOMEM, -2, "out of memory")                                                        \
    X(LF_EIO, -3, "input/output error")          /* a file could not be read or written */   \
    X(LF_EPARSE, -4, "malformed input")          /* XML, ONNX, JSON, numbers with units */   \
    X(LF_EGRAPH, -5, "invalid graph")            /* cycle, dangling input, shape mismatch */ \
    X(LF_ENOTFOUND, -6, "not found")             /* unknown name: model, op, file */         \
    X(LF_ELIMIT, -7, "limit exceeded")           /* a state, size or evaluation limit */     \
    X(LF_ENOSYS, -8, "feature not built in")     /* CUDA, MPI, ONNX, ... */                  \
    X(LF_EUNSUPPORTED, -9, "unsupported")        /* valid input fusionplan does not handle */\
    X(LF_ERANGE, -10, "value out of range")      /* absurd size or arithmetic overflow */    \
    X(LF_EPLAN, -11, "invalid plan")             /* a plan violates the validity rules */

#define LF__STATUS_ENUM(name, value, text) name = value,

typedef enum lf_status {
    LF_STATUS_TABLE(LF__STATUS_ENUM)
    LF_STATUS_MIN = -11 /* the lowest code (checked against the table in status.c) */
} lf_status;

/* Short fixed description of a status code ("invalid argument", ...). */
const char *lf_strerror(lf_status s);

/* Longest message kept, terminating NUL included (a stopped exact run's
 * message with its bounds and where they come from runs past 600). */
#define LF_MESSAGE_MAX 1024

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

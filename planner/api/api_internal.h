/* The binding API's shared pieces (api_args.c): option objects parsed with
 * jansson and checked member by member, the hardware object, and strings
 * written through a FILE * into memory. */
#ifndef LF_API_INTERNAL_H
#define LF_API_INTERNAL_H

#include <jansson.h>
#include <stdio.h>

#include "hwdesc/hw.h"
#include "planner/app/api/api.h"

/* Parses text (NULL or "" is {}) as a JSON object whose members are all in
 * the NULL-terminated list allowed; what names it in messages ("options"). */
lf_status lf__api_object(const char *text, const char *what, const char *const *allowed, json_t **out);

/* Member key of o into *out when present (absent: *out unchanged). A value of
 * another kind, or out of range, is LF_EINVAL naming what.key. */
lf_status lf__api_str(const json_t *o, const char *what, const char *key, const char **out);
lf_status lf__api_int(const json_t *o, const char *what, const char *key, int64_t lo, int64_t hi,
                      int64_t *out);
lf_status lf__api_i32(const json_t *o, const char *what, const char *key, int32_t lo, int32_t hi,
                      int32_t *out);
lf_status lf__api_num(const json_t *o, const char *what, const char *key, double lo, double hi,
                      double *out);
lf_status lf__api_flag(const json_t *o, const char *what, const char *key, int32_t *out);
/* A size: an integer of bytes or a string with a unit ("256KB"). */
lf_status lf__api_size(const json_t *o, const char *what, const char *key, int64_t *out);

/* The hardware object of lf_api_hw_json into *hw (built-in default first). */
lf_status lf__api_hw(const char *hw_json, lf_hw *hw);

/* A stream whose text ends up in memory: open, write, then close (which
 * hands the text over in *out) or abort. */
typedef struct lf__api_mem {
    FILE *f;
    char *buf;
    size_t len, cap;
} lf__api_mem;
lf_status lf__api_mem_open(lf__api_mem *m);
lf_status lf__api_mem_close(lf__api_mem *m, char **out, size_t *len);
void lf__api_mem_abort(lf__api_mem *m);

/* json_dumps of v into *out (LF_ENOMEM when it fails); v is released. */
lf_status lf__api_dump(json_t *v, char **out);

#endif

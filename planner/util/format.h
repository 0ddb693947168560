/* Numbers formatted for people: the reports' thousands separators. */
#ifndef LF_FORMAT_H
#define LF_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* v with a comma every three digits ("-1,478,656") into buf (len bytes,
 * truncated to fit); returns buf. */
char *lf_format_commas(int64_t v, char *buf, size_t len);

#endif

/* Little-endian binary packing shared by the dataset and weight files
 * (internal to the project: explain/ and the GSO filter's files in
 * search/subst/gso). Files are assembled in memory and written in one
 * atomic step, and read back whole with bounds-checked readers, so a short
 * or corrupted file is reported instead of read past its end. */
#ifndef LF_EXPLAIN_BINIO_H
#define LF_EXPLAIN_BINIO_H

#include <stddef.h>
#include <stdint.h>

#include "planner/status.h"

typedef struct lf__wbuf {
    unsigned char *p;
    size_t len, cap;
    int oom; /* sticky: set once an allocation failed */
} lf__wbuf;

void lf__w_bytes(lf__wbuf *b, const void *data, size_t n);
void lf__w_u8(lf__wbuf *b, uint8_t v);
void lf__w_u32(lf__wbuf *b, uint32_t v);
void lf__w_u64(lf__wbuf *b, uint64_t v);
void lf__w_f32(lf__wbuf *b, float v);
void lf__w_free(lf__wbuf *b);

/* Appends a 64-bit checksum of everything written so far. */
void lf__w_checksum(lf__wbuf *b);

/* Writes the buffer to `path` atomically (temporary file + rename). */
lf_status lf__w_commit(lf__wbuf *b, const char *path);

typedef struct lf__rbuf {
    const unsigned char *p;
    size_t len, pos;
    int short_; /* sticky: a read ran past the end */
} lf__rbuf;

uint8_t lf__r_u8(lf__rbuf *b);
uint32_t lf__r_u32(lf__rbuf *b);
uint64_t lf__r_u64(lf__rbuf *b);
float lf__r_f32(lf__rbuf *b);
void lf__r_bytes(lf__rbuf *b, void *out, size_t n);

/* Checks the trailing checksum of a whole file image (len >= 8). Returns 1 when it matches. */
int lf__r_checksum_ok(const unsigned char *data, size_t len);

#endif

/* The binary container of the weight and dataset files (the explainers'
 * and the GSO filter's), and the little-endian packing they are written
 * with. Internal to the project. Every such file is
 *
 *   8 bytes  magic: 7 characters and a NUL ("LFGNNWT", "LFGSODS", ...)
 *   u32      format version of that kind of file
 *   u64      schema hash: the features the file was made for
 *   ...      the body, the kind's own
 *   u64      checksum (lf_hash_bytes) of everything before it
 *
 * Files are assembled in memory and written in one atomic step
 * (lf__bin_begin ... lf__bin_commit), and read back whole: lf__bin_open
 * checks magic, version, schema and checksum with one-line errors naming
 * the file and the field, and hands back a bounds-checked reader of the
 * body, so a short, corrupted or hostile file is reported instead of read
 * past its end. */
#ifndef LF_UTIL_BINFILE_H
#define LF_UTIL_BINFILE_H

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

/* ---- the container ----------------------------------------------------- */

typedef struct lf__binfile {
    const char *magic;   /* 8 bytes, the last one NUL */
    uint32_t version;    /* the version this build writes and reads */
    uint64_t schema;     /* the schema hash this build writes and expects */
    const char *what;    /* the noun of messages: "GNN weight file" */
    const char *remedy;  /* what to do about another schema: "retrain the GNN" */
} lf__binfile;

/* Bytes of the header and of the trailing checksum. */
#define LF__BIN_HEADER 20
#define LF__BIN_TRAILER 8

/* Starts a file in an empty buffer: the header. */
void lf__bin_begin(lf__wbuf *b, const lf__binfile *f);

/* Appends the checksum, writes the file atomically and frees the buffer. */
lf_status lf__bin_commit(lf__wbuf *b, const char *path);

/* Checks a whole file image: magic (LF_EPARSE "ORIGIN: not a fusionplan
 * WHAT (bad magic)"), header length, version (LF_EUNSUPPORTED), schema
 * (LF_EINVAL) and checksum (LF_EPARSE "... truncated or corrupted
 * (checksum mismatch)"), in that order. On LF_OK *body reads the body:
 * from after the header to before the checksum. */
lf_status lf__bin_open(const lf__binfile *f, const void *data, size_t len, const char *origin,
                       lf__rbuf *body);

/* Reads a file whole for lf__bin_open: the magic first (a wrong file or an
 * endless device is refused before it is read), at most `cap` bytes.
 * *data is freed by the caller. */
lf_status lf__bin_read(const lf__binfile *f, const char *path, int64_t cap, char **data, size_t *len);

/* LF_OK when exactly `rest` bytes of the body are left to read (a reader
 * that knows its size from the header checks it before allocating); else
 * LF_EPARSE "ORIGIN: truncated|oversized WHAT (N bytes, expected M)". */
lf_status lf__bin_rest(const lf__binfile *f, const lf__rbuf *body, uint64_t rest, const char *origin);

/* LF_OK when the body was read to its end; else LF_EPARSE naming the file
 * and `field`: "truncated WHAT (FIELD)" or "N bytes after FIELD". */
lf_status lf__bin_done(const lf__binfile *f, const lf__rbuf *body, const char *origin, const char *field);

#endif

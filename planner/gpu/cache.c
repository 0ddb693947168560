/* The persistent cache of measured GPU op times: blocks per device, read and
 * written as text (format in docs/gpu.md):
 *
 *   fusionplan-gpu-cache 1
 *   device<TAB>NAME<TAB>UUID<TAB>MAJOR.MINOR<TAB>DRIVER<TAB>RUNTIME<TAB>CUDNN
 *   op<TAB>KEY<TAB>SECONDS
 *   ...
 *
 * Lines starting with '#' and blank lines are ignored. The reader is a
 * parser of a file anyone can edit: every field is checked and the first
 * fault is one line naming the file and line. */
#include "planner/gpu/cache.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "planner/util/fileio.h"
#include "planner/util/hashmap.h"

#define LF__CACHE_MAGIC "fusionplan-gpu-cache 1"
#define LF__CACHE_MAX_SECONDS 3600.0
#define LF__CACHE_MIN_SECONDS 1e-12 /* below any event timer: a corrupt value */
#define LF__CACHE_MAX_VERSION 1000000000L

typedef struct lf__cache_entry {
    char *key;
    double seconds;
} lf__cache_entry;

typedef struct lf__cache_block {
    lf_gpu_device_key dev;
    lf__cache_entry *e;
    int32_t n, cap;
    lf_strmap index; /* key -> entry index + 1 */
} lf__cache_block;

struct lf_gpu_cache {
    lf__cache_block *b;
    int32_t n, cap;
    int32_t bound; /* block of the bound device, -1 when none */
};

/* ---- device keys ------------------------------------------------------------------ */

static void lf__printable(char *dst, size_t cap, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < cap; i++) {
        unsigned char ch = (unsigned char)src[i];
        dst[i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
    }
    dst[i] = '\0';
}

void lf_gpu_device_key_of(const lf_gpu_info *info, lf_gpu_device_key *key)
{
    memset(key, 0, sizeof *key);
    lf__printable(key->name, sizeof key->name, info->name[0] ? info->name : "?");
    lf__printable(key->uuid, sizeof key->uuid, info->uuid[0] ? info->uuid : "?");
    for (char *p = key->uuid; *p; p++)
        if (*p == ' ')
            *p = '?';
    key->cc_major = info->cc_major;
    key->cc_minor = info->cc_minor;
    key->driver_version = info->driver_version;
    key->runtime_version = info->runtime_version;
    key->cudnn_version = info->cudnn_version;
}

int lf_gpu_device_key_equal(const lf_gpu_device_key *a, const lf_gpu_device_key *b)
{
    return strcmp(a->name, b->name) == 0 && strcmp(a->uuid, b->uuid) == 0 && a->cc_major == b->cc_major &&
           a->cc_minor == b->cc_minor && a->driver_version == b->driver_version &&
           a->runtime_version == b->runtime_version && a->cudnn_version == b->cudnn_version;
}

void lf_gpu_device_key_format(const lf_gpu_device_key *k, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s (%s, cc %d.%d, driver %d, CUDA %d, cuDNN %d)", k->name, k->uuid, (int)k->cc_major,
             (int)k->cc_minor, (int)k->driver_version, (int)k->runtime_version, (int)k->cudnn_version);
}

lf_status lf_gpu_cache_default_path(char *buf, size_t cap)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, cap, "%s/fusionplan/gpu-op-times.txt", xdg);
    else if (home && home[0])
        n = snprintf(buf, cap, "%s/.cache/fusionplan/gpu-op-times.txt", home);
    else
        return lf_set_error(LF_ENOTFOUND, "no cache folder: neither XDG_CACHE_HOME nor HOME is set");
    if (n < 0 || (size_t)n >= cap)
        return lf_set_error(LF_ERANGE, "the GPU cache path under the cache folder is too long");
    return LF_OK;
}

/* ---- the in-memory cache -------------------------------------------------------- */

lf_status lf_gpu_cache_create(lf_gpu_cache **c)
{
    *c = calloc(1, sizeof **c);
    if (!*c)
        return lf_set_error(LF_ENOMEM, "out of memory for the GPU op-time cache");
    (*c)->bound = -1;
    return LF_OK;
}

static void lf__block_destroy(lf__cache_block *b)
{
    for (int32_t i = 0; i < b->n; i++)
        free(b->e[i].key);
    free(b->e);
    lf_strmap_destroy(&b->index);
}

static void lf__cache_clear(lf_gpu_cache *c)
{
    for (int32_t i = 0; i < c->n; i++)
        lf__block_destroy(&c->b[i]);
    free(c->b);
    c->b = NULL;
    c->n = c->cap = 0;
    c->bound = -1;
}

void lf_gpu_cache_free(lf_gpu_cache *c)
{
    if (!c)
        return;
    lf__cache_clear(c);
    free(c);
}

static int32_t lf__find_block(const lf_gpu_cache *c, const lf_gpu_device_key *dev)
{
    for (int32_t i = 0; i < c->n; i++)
        if (lf_gpu_device_key_equal(&c->b[i].dev, dev))
            return i;
    return -1;
}

static lf_status lf__add_block(lf_gpu_cache *c, const lf_gpu_device_key *dev)
{
    if (c->n == c->cap) {
        int32_t cap = c->cap ? 2 * c->cap : 4;
        lf__cache_block *b = realloc(c->b, (size_t)cap * sizeof *b);
        if (!b)
            return lf_set_error(LF_ENOMEM, "out of memory for the GPU op-time cache");
        c->b = b;
        c->cap = cap;
    }
    lf__cache_block *b = &c->b[c->n];
    memset(b, 0, sizeof *b);
    b->dev = *dev;
    lf_status st = lf_strmap_init(&b->index, 64);
    if (st)
        return st;
    c->n++;
    return LF_OK;
}

/* A key is 1 .. LF_GPU_OP_KEY_MAX - 1 printable ASCII characters without spaces. */
static int lf__key_ok(const char *k, size_t len)
{
    if (len == 0 || len >= LF_GPU_OP_KEY_MAX)
        return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)k[i] <= 0x20 || (unsigned char)k[i] >= 0x7f)
            return 0;
    return 1;
}

static int lf__seconds_ok(double s) { return isfinite(s) && s >= LF__CACHE_MIN_SECONDS && s <= LF__CACHE_MAX_SECONDS; }

/* Inserts or replaces; *dup is set when the key was there. */
static lf_status lf__block_put(lf__cache_block *b, const char *key, size_t len, double seconds, int *dup)
{
    char *k = malloc(len + 1);
    if (!k)
        return lf_set_error(LF_ENOMEM, "out of memory for the GPU op-time cache");
    memcpy(k, key, len);
    k[len] = '\0';
    void *v = NULL;
    *dup = lf_strmap_get(&b->index, k, &v);
    if (*dup) {
        b->e[(intptr_t)v - 1].seconds = seconds;
        free(k);
        return LF_OK;
    }
    if (b->n == b->cap) {
        int32_t cap = b->cap ? 2 * b->cap : 64;
        lf__cache_entry *e = realloc(b->e, (size_t)cap * sizeof *e);
        if (!e) {
            free(k);
            return lf_set_error(LF_ENOMEM, "out of memory for the GPU op-time cache");
        }
        b->e = e;
        b->cap = cap;
    }
    lf_status st = lf_strmap_put(&b->index, k, (void *)(intptr_t)(b->n + 1));
    if (st) {
        free(k);
        return st;
    }
    b->e[b->n].key = k;
    b->e[b->n].seconds = seconds;
    b->n++;
    return LF_OK;
}

lf_status lf_gpu_cache_use(lf_gpu_cache *c, const lf_gpu_device_key *dev)
{
    int32_t i = lf__find_block(c, dev);
    if (i < 0) {
        lf_status st = lf__add_block(c, dev);
        if (st)
            return st;
        i = c->n - 1;
    }
    c->bound = i;
    return LF_OK;
}

int lf_gpu_cache_get(const lf_gpu_cache *c, const char *op_key, double *seconds)
{
    if (c->bound < 0)
        return 0;
    void *v = NULL;
    if (!lf_strmap_get(&c->b[c->bound].index, op_key, &v))
        return 0;
    *seconds = c->b[c->bound].e[(intptr_t)v - 1].seconds;
    return 1;
}

lf_status lf_gpu_cache_put(lf_gpu_cache *c, const char *op_key, double seconds)
{
    if (c->bound < 0)
        return lf_set_error(LF_EINVAL, "GPU op-time cache: no device bound");
    if (!lf__key_ok(op_key, strlen(op_key)))
        return lf_set_error(LF_EINVAL, "GPU op-time cache: op key '%s' is empty, too long or has spaces", op_key);
    if (!lf__seconds_ok(seconds))
        return lf_set_error(LF_EINVAL, "GPU op-time cache: time %g s of '%s' is not in [1e-12, %g]", seconds, op_key,
                            LF__CACHE_MAX_SECONDS);
    int dup = 0;
    return lf__block_put(&c->b[c->bound], op_key, strlen(op_key), seconds, &dup);
}

int32_t lf_gpu_cache_n_devices(const lf_gpu_cache *c) { return c->n; }

const lf_gpu_device_key *lf_gpu_cache_device(const lf_gpu_cache *c, int32_t i)
{
    return i >= 0 && i < c->n ? &c->b[i].dev : NULL;
}

int32_t lf_gpu_cache_n_entries(const lf_gpu_cache *c, int32_t i) { return i >= 0 && i < c->n ? c->b[i].n : 0; }

int32_t lf_gpu_cache_bound_entries(const lf_gpu_cache *c) { return c->bound < 0 ? -1 : c->b[c->bound].n; }

/* ---- reading ------------------------------------------------------------------------ */

typedef struct lf__line {
    const char *origin;
    long no;
    const char *f[8]; /* fields */
    size_t len[8];
    int n;
} lf__line;

static lf_status lf__bad(const lf__line *l, const char *why)
{
    return lf_set_error(LF_EPARSE, "%s:%ld: %s", l->origin, l->no, why);
}

/* Splits [s, s + len) at tabs into at most 8 fields; returns 0 when there are more. */
static int lf__split(lf__line *l, const char *s, size_t len)
{
    l->n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == '\t') {
            if (l->n == 8)
                return 0;
            l->f[l->n] = s + start;
            l->len[l->n] = i - start;
            l->n++;
            start = i + 1;
        }
    }
    return 1;
}

/* A decimal integer in [lo, hi] filling the whole field. */
static int lf__int_field(const char *s, size_t len, long lo, long hi, int32_t *out)
{
    if (len == 0 || len > 12)
        return 0;
    long v = 0;
    size_t i = 0;
    int neg = s[0] == '-';
    if (neg)
        i = 1;
    if (i == len)
        return 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    v = neg ? -v : v;
    if (v < lo || v > hi)
        return 0;
    *out = (int32_t)v;
    return 1;
}

static int lf__text_field(const char *s, size_t len, char *dst, size_t cap, int spaces)
{
    if (len == 0 || len >= cap)
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7f || (!spaces && ch == ' '))
            return 0;
    }
    memcpy(dst, s, len);
    dst[len] = '\0';
    return 1;
}

static lf_status lf__parse_device(const lf__line *l, lf_gpu_device_key *k)
{
    memset(k, 0, sizeof *k);
    if (l->n != 7)
        return lf__bad(l, "a device line has 7 tab-separated fields: device, name, UUID, compute "
                          "capability, driver, runtime, cuDNN");
    if (!lf__text_field(l->f[1], l->len[1], k->name, sizeof k->name, 1))
        return lf__bad(l, "device name is empty, too long or has control characters");
    if (!lf__text_field(l->f[2], l->len[2], k->uuid, sizeof k->uuid, 0))
        return lf__bad(l, "device UUID is empty, too long or has spaces");
    const char *cc = l->f[3], *dot = memchr(cc, '.', l->len[3]);
    if (!dot || !lf__int_field(cc, (size_t)(dot - cc), 0, 99, &k->cc_major) ||
        !lf__int_field(dot + 1, l->len[3] - (size_t)(dot - cc) - 1, 0, 99, &k->cc_minor))
        return lf__bad(l, "compute capability is not MAJOR.MINOR (0..99 each)");
    if (!lf__int_field(l->f[4], l->len[4], 0, LF__CACHE_MAX_VERSION, &k->driver_version) ||
        !lf__int_field(l->f[5], l->len[5], 0, LF__CACHE_MAX_VERSION, &k->runtime_version) ||
        !lf__int_field(l->f[6], l->len[6], 0, LF__CACHE_MAX_VERSION, &k->cudnn_version))
        return lf__bad(l, "driver, runtime and cuDNN versions are integers in [0, 1000000000]");
    return LF_OK;
}

static lf_status lf__parse_seconds(const lf__line *l, double *s)
{
    char num[64];
    if (l->len[2] == 0 || l->len[2] >= sizeof num)
        return lf__bad(l, "op time is empty or too long");
    memcpy(num, l->f[2], l->len[2]);
    num[l->len[2]] = '\0';
    char *end = NULL;
    errno = 0;
    *s = strtod(num, &end);
    if (*end || num[0] == ' ' || errno == ERANGE || !lf__seconds_ok(*s))
        return lf__bad(l, "op time is not a number of seconds in [1e-12, 3600]");
    return LF_OK;
}

static lf_status lf__load_lines(lf_gpu_cache *c, const char *text, size_t len, const char *origin)
{
    lf__line l = {origin, 0, {0}, {0}, 0};
    size_t pos = 0;
    int seen_header = 0;
    int32_t block = -1;
    while (pos < len) {
        const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl ? 1 : 0);
        l.no++;
        if (n > 0 && s[n - 1] == '\r')
            n--;
        if (memchr(s, '\0', n))
            return lf__bad(&l, "NUL byte in the line");
        if (!seen_header) {
            if (n != strlen(LF__CACHE_MAGIC) || memcmp(s, LF__CACHE_MAGIC, n) != 0)
                return lf__bad(&l, "not a fusionplan GPU op-time cache (first line must be '" LF__CACHE_MAGIC "')");
            seen_header = 1;
            continue;
        }
        if (n == 0 || s[0] == '#')
            continue;
        if (!lf__split(&l, s, n))
            return lf__bad(&l, "too many tab-separated fields");
        if (l.len[0] == 6 && memcmp(l.f[0], "device", 6) == 0) {
            lf_gpu_device_key k;
            lf_status st = lf__parse_device(&l, &k);
            if (st)
                return st;
            if (lf__find_block(c, &k) >= 0)
                return lf__bad(&l, "a second block for the same device");
            if ((st = lf__add_block(c, &k)))
                return st;
            block = c->n - 1;
        } else if (l.len[0] == 2 && memcmp(l.f[0], "op", 2) == 0) {
            if (block < 0)
                return lf__bad(&l, "op line before any device line");
            if (l.n != 3)
                return lf__bad(&l, "an op line has 3 tab-separated fields: op, key, seconds");
            if (!lf__key_ok(l.f[1], l.len[1]))
                return lf__bad(&l, "op key is empty, longer than 2047 characters or not printable ASCII without spaces");
            double sec = 0;
            lf_status st = lf__parse_seconds(&l, &sec);
            int dup = 0;
            if (!st)
                st = lf__block_put(&c->b[block], l.f[1], l.len[1], sec, &dup);
            if (st)
                return st;
            if (dup)
                return lf__bad(&l, "the same op key twice for one device");
        } else {
            return lf__bad(&l, "unknown line (expected 'device' or 'op' fields, '#' comment or blank)");
        }
    }
    if (!seen_header) {
        l.no = 1;
        return lf__bad(&l, "empty file (first line must be '" LF__CACHE_MAGIC "')");
    }
    return LF_OK;
}

lf_status lf_gpu_cache_load_text(lf_gpu_cache *c, const char *text, size_t len, const char *origin)
{
    if (c->n)
        return lf_set_error(LF_EINVAL, "%s: GPU op-time cache loaded into a cache that is not empty", origin);
    lf_status st = lf__load_lines(c, text, len, origin);
    if (st)
        lf__cache_clear(c);
    return st;
}

lf_status lf_gpu_cache_load(lf_gpu_cache *c, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0 && errno == ENOENT)
        return LF_OK;
    char *data = NULL;
    long len = 0;
    lf_status st = lf_read_file_capped(path, LF_GPU_CACHE_MAX_BYTES, "GPU op-time cache", &data, &len);
    if (!st)
        st = lf_gpu_cache_load_text(c, data, (size_t)len, path);
    free(data);
    return st;
}

/* ---- writing ------------------------------------------------------------------------ */

static int lf__entry_cmp(const void *a, const void *b)
{
    return strcmp(((const lf__cache_entry *)a)->key, ((const lf__cache_entry *)b)->key);
}

/* Creates the missing folders above path (mode 0700, as cache folders are private). */
static lf_status lf__make_parents(const char *path)
{
    char dir[4096];
    size_t n = strlen(path);
    if (n >= sizeof dir)
        return lf_set_error(LF_ERANGE, "%s: path too long", path);
    memcpy(dir, path, n + 1);
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return lf_set_error(LF_EIO, "%s: cannot create folder %s: %s", path, dir, strerror(errno));
        *p = '/';
    }
    return LF_OK;
}

lf_status lf_gpu_cache_write(const lf_gpu_cache *c, FILE *f)
{
    fprintf(f, "%s\n# measured GPU op times (fusionplan profile); seconds, median of 5 x 32 runs; "
               "one block per device\n",
            LF__CACHE_MAGIC);
    for (int32_t i = 0; i < c->n; i++) {
        const lf__cache_block *b = &c->b[i];
        fprintf(f, "device\t%s\t%s\t%d.%d\t%d\t%d\t%d\n", b->dev.name, b->dev.uuid, (int)b->dev.cc_major,
                (int)b->dev.cc_minor, (int)b->dev.driver_version, (int)b->dev.runtime_version,
                (int)b->dev.cudnn_version);
        lf__cache_entry *sorted = b->n ? malloc((size_t)b->n * sizeof *sorted) : NULL;
        if (b->n && !sorted)
            return lf_set_error(LF_ENOMEM, "out of memory writing the GPU op-time cache");
        if (b->n)
            memcpy(sorted, b->e, (size_t)b->n * sizeof *sorted);
        if (b->n > 1)
            qsort(sorted, (size_t)b->n, sizeof *sorted, lf__entry_cmp);
        for (int32_t j = 0; j < b->n; j++)
            fprintf(f, "op\t%s\t%.9g\n", sorted[j].key, sorted[j].seconds);
        free(sorted);
    }
    return LF_OK;
}

lf_status lf_gpu_cache_store(const lf_gpu_cache *c, const char *path)
{
    lf_status st = lf__make_parents(path);
    if (st)
        return st;
    lf_atomic_file af;
    if ((st = lf_atomic_open(&af, path)))
        return st;
    if ((st = lf_gpu_cache_write(c, af.f))) {
        lf_atomic_abort(&af);
        return st;
    }
    return lf_atomic_commit(&af);
}

lf_status lf_gpu_cache_open(lf_gpu_cache **c, const char *path, char *used, size_t cap)
{
    *c = NULL;
    lf_status st = LF_OK;
    if (path)
        snprintf(used, cap, "%s", path);
    else
        st = lf_gpu_cache_default_path(used, cap);
    if (!st)
        st = lf_gpu_cache_create(c);
    if (!st)
        st = lf_gpu_cache_load(*c, used);
    if (st) {
        lf_gpu_cache_free(*c);
        *c = NULL;
    }
    return st;
}

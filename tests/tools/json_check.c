/* json_check: the JSON checks of the test suite, in C over jansson, so that
 * the tests need no interpreter on a fresh machine.
 *
 *   json_check parse FILE...            every FILE is one JSON document
 *   json_check schema SCHEMA FILE...    every FILE is valid under SCHEMA
 *   json_check get FILE PATH            prints the value at PATH
 *   json_check length FILE PATH         prints the length of the array or
 *                                       object at PATH
 *
 * PATH is a list of steps separated by '/': an object key, an array index,
 * or "[key=value,key=value]", the first element of an array whose members
 * have those (string or integer) values. "" or "." is the whole document.
 *
 * The schema check implements the part of JSON Schema 2020-12 that
 * docs/plan.schema.json uses (type, const, enum, required, properties,
 * additionalProperties, unevaluatedProperties, items, minItems, maxItems,
 * minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength,
 * maxLength, pattern, $ref to "#/...", allOf, anyOf, oneOf, $defs and the
 * annotations). Any other keyword is an error, so a schema that grows a
 * keyword this checker does not know fails the test instead of passing it
 * unchecked.
 *
 * Exit status: 0 when every check holds, 1 when one fails (each failure is
 * one line on stderr naming the file and the place), 2 on bad usage. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

/* ---------------------------------------------------------------------- */
/* Loading                                                                 */

/* Duplicate keys are refused: no writer of ours emits them, and a reader
 * would silently keep one of the two. Integers beyond 64 bits are valid JSON
 * (a seed of 2^64 - 1 is one); jansson cannot hold them as integers, so the
 * document is read again with every number as a double, which JSON Schema's
 * "integer" (a number with no fraction) still checks. */
static json_t *load(const char *path)
{
    json_error_t err;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!j && json_error_code(&err) == json_error_numeric_overflow)
        j = json_load_file(path, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &err);
    if (!j)
        fprintf(stderr, "%s:%d:%d: not valid JSON: %s\n", path, err.line, err.column, err.text);
    return j;
}

/* ---------------------------------------------------------------------- */
/* Schema validation                                                       */

typedef struct ctx {
    const char *file;
    json_t *root_schema;
    int depth;
} ctx;

static void fail(const ctx *c, const char *where, const char *fmt, const char *a, const char *b)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    fprintf(stderr, "%s: at %s: %s\n", c->file, where[0] ? where : "/", msg);
    failures++;
}

static int is_integral(const json_t *v)
{
    if (json_is_integer(v))
        return 1;
    if (!json_is_real(v))
        return 0;
    double x = json_real_value(v);
    return isfinite(x) && floor(x) == x;
}

static int type_matches(const json_t *v, const char *type)
{
    if (strcmp(type, "object") == 0) return json_is_object(v);
    if (strcmp(type, "array") == 0) return json_is_array(v);
    if (strcmp(type, "string") == 0) return json_is_string(v);
    if (strcmp(type, "number") == 0) return json_is_number(v);
    if (strcmp(type, "integer") == 0) return is_integral(v);
    if (strcmp(type, "boolean") == 0) return json_is_boolean(v);
    if (strcmp(type, "null") == 0) return json_is_null(v);
    return -1;
}

/* Equality as JSON Schema defines it: 1 and 1.0 are the same number. */
static int json_same(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    if (json_typeof(a) != json_typeof(b))
        return 0;
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b))
            return 0;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!json_same(json_array_get(a, i), json_array_get(b, i)))
                return 0;
        return 1;
    }
    if (json_is_object(a)) {
        const char *k;
        json_t *v;
        if (json_object_size(a) != json_object_size(b))
            return 0;
        json_object_foreach((json_t *)a, k, v) {
            json_t *w = json_object_get(b, k);
            if (!w || !json_same(v, w))
                return 0;
        }
        return 1;
    }
    return json_equal((json_t *)a, (json_t *)b);
}

/* Resolves "#/$defs/x" (a JSON pointer into the root schema). */
static json_t *resolve_ref(const ctx *c, const char *ref)
{
    if (strncmp(ref, "#", 1) != 0)
        return NULL;
    json_t *node = c->root_schema;
    const char *p = ref + 1;
    while (*p == '/' && node) {
        p++;
        char key[256];
        size_t n = 0;
        while (*p && *p != '/' && n + 1 < sizeof key) {
            if (p[0] == '~' && p[1] == '1') { key[n++] = '/'; p += 2; }
            else if (p[0] == '~' && p[1] == '0') { key[n++] = '~'; p += 2; }
            else key[n++] = *p++;
        }
        key[n] = '\0';
        node = json_is_object(node) ? json_object_get(node, key) : NULL;
    }
    return *p ? NULL : node;
}

static const char *const annotations[] = {"$schema", "$id", "title", "description", "$comment",
                                          "$defs", "examples", "default"};
static const char *const keywords[] = {
    "type", "const", "enum", "required", "properties", "additionalProperties",
    "unevaluatedProperties", "items", "minItems", "maxItems", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern", "$ref",
    "allOf", "anyOf", "oneOf"};

static int known_keyword(const char *k)
{
    for (size_t i = 0; i < sizeof annotations / sizeof *annotations; i++)
        if (strcmp(k, annotations[i]) == 0)
            return 1;
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
        if (strcmp(k, keywords[i]) == 0)
            return 1;
    return 0;
}

static int utf8_length(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Validates v against schema s at `where`; quiet=1 checks without reporting
 * (for the branches of anyOf/oneOf). Adds the names of the properties it
 * evaluated to `evaluated` (for unevaluatedProperties). Returns 1 if valid. */
static int validate(ctx *c, json_t *s, json_t *v, const char *where, int quiet, json_t *evaluated);

static int check_number(ctx *c, json_t *s, json_t *v, const char *where, int quiet)
{
    static const char *const names[] = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"};
    int ok = 1;
    if (!json_is_number(v))
        return 1;
    double x = json_number_value(v);
    for (int i = 0; i < 4; i++) {
        json_t *b = json_object_get(s, names[i]);
        if (!b)
            continue;
        double y = json_number_value(b);
        int good = i == 0 ? x >= y : i == 1 ? x <= y : i == 2 ? x > y : x < y;
        if (!good) {
            char val[64];
            snprintf(val, sizeof val, "%.17g", x);
            if (!quiet)
                fail(c, where, "%s breaks %s", val, names[i]);
            ok = 0;
        }
    }
    return ok;
}

static int check_string(ctx *c, json_t *s, json_t *v, const char *where, int quiet)
{
    int ok = 1;
    if (!json_is_string(v))
        return 1;
    const char *str = json_string_value(v);
    json_t *mn = json_object_get(s, "minLength"), *mx = json_object_get(s, "maxLength");
    int len = utf8_length(str);
    if ((mn && len < json_number_value(mn)) || (mx && len > json_number_value(mx))) {
        if (!quiet)
            fail(c, where, "string \"%.60s\" has a length out of range%s", str, NULL);
        ok = 0;
    }
    json_t *pat = json_object_get(s, "pattern");
    if (pat) {
        regex_t re;
        if (!json_is_string(pat) || regcomp(&re, json_string_value(pat), REG_EXTENDED | REG_NOSUB) != 0) {
            fail(c, where, "schema pattern %s does not compile%s",
                 json_is_string(pat) ? json_string_value(pat) : "(not a string)", NULL);
            return 0;
        }
        if (regexec(&re, str, 0, NULL, 0) != 0) {
            if (!quiet)
                fail(c, where, "\"%.60s\" does not match %s", str, json_string_value(pat));
            ok = 0;
        }
        regfree(&re);
    }
    return ok;
}

static int check_object(ctx *c, json_t *s, json_t *v, const char *where, int quiet, json_t *evaluated)
{
    int ok = 1;
    char sub[1024];
    if (!json_is_object(v))
        return 1;
    json_t *req = json_object_get(s, "required");
    size_t i;
    json_t *r;
    json_array_foreach(req, i, r) {
        if (!json_object_get(v, json_string_value(r))) {
            if (!quiet)
                fail(c, where, "required property \"%s\" is missing%s", json_string_value(r), NULL);
            ok = 0;
        }
    }
    json_t *props = json_object_get(s, "properties");
    json_t *addl = json_object_get(s, "additionalProperties");
    const char *k;
    json_t *pv;
    json_object_foreach(v, k, pv) {
        json_t *ps = props ? json_object_get(props, k) : NULL;
        snprintf(sub, sizeof sub, "%s/%s", where, k);
        if (ps) {
            ok &= validate(c, ps, pv, sub, quiet, NULL);
            json_object_set_new(evaluated, k, json_true());
        } else if (addl) {
            if (json_is_false(addl)) {
                if (!quiet)
                    fail(c, where, "property \"%s\" is not allowed here%s", k, NULL);
                ok = 0;
            } else if (!json_is_true(addl)) {
                ok &= validate(c, addl, pv, sub, quiet, NULL);
            }
            json_object_set_new(evaluated, k, json_true());
        }
    }
    return ok;
}

static int check_array(ctx *c, json_t *s, json_t *v, const char *where, int quiet)
{
    int ok = 1;
    char sub[1024];
    if (!json_is_array(v))
        return 1;
    json_t *mn = json_object_get(s, "minItems"), *mx = json_object_get(s, "maxItems");
    double n = (double)json_array_size(v);
    if ((mn && n < json_number_value(mn)) || (mx && n > json_number_value(mx))) {
        if (!quiet)
            fail(c, where, "array length out of range%s%s", NULL, NULL);
        ok = 0;
    }
    json_t *items = json_object_get(s, "items");
    if (items) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            snprintf(sub, sizeof sub, "%s/%zu", where, i);
            ok &= validate(c, items, e, sub, quiet, NULL);
        }
    }
    return ok;
}

static int check_combinators(ctx *c, json_t *s, json_t *v, const char *where, int quiet,
                             json_t *evaluated)
{
    int ok = 1;
    json_t *all = json_object_get(s, "allOf"), *any = json_object_get(s, "anyOf"),
           *one = json_object_get(s, "oneOf"), *ref = json_object_get(s, "$ref");
    size_t i;
    json_t *b;
    if (ref) {
        json_t *target = json_is_string(ref) ? resolve_ref(c, json_string_value(ref)) : NULL;
        if (!target) {
            fail(c, where, "schema $ref %s cannot be resolved%s",
                 json_is_string(ref) ? json_string_value(ref) : "(not a string)", NULL);
            return 0;
        }
        ok &= validate(c, target, v, where, quiet, evaluated);
    }
    json_array_foreach(all, i, b)
        ok &= validate(c, b, v, where, quiet, evaluated);
    if (any) {
        int n = 0;
        json_array_foreach(any, i, b) {
            json_t *ev = json_object();
            if (validate(c, b, v, where, 1, ev)) {
                n++;
                json_object_update(evaluated, ev);
            }
            json_decref(ev);
        }
        if (!n) {
            if (!quiet)
                fail(c, where, "matches none of anyOf%s%s", NULL, NULL);
            ok = 0;
        }
    }
    if (one) {
        int n = 0;
        json_t *ev_ok = json_object();
        json_array_foreach(one, i, b) {
            json_t *ev = json_object();
            if (validate(c, b, v, where, 1, ev)) {
                n++;
                json_object_update(ev_ok, ev);
            }
            json_decref(ev);
        }
        if (n != 1) {
            if (!quiet)
                fail(c, where, "matches %s of oneOf, not exactly one%s", n ? "several" : "none", NULL);
            ok = 0;
        } else {
            json_object_update(evaluated, ev_ok);
        }
        json_decref(ev_ok);
    }
    return ok;
}

static int validate(ctx *c, json_t *s, json_t *v, const char *where, int quiet, json_t *evaluated)
{
    if (json_is_true(s))
        return 1;
    if (json_is_false(s)) {
        if (!quiet)
            fail(c, where, "no value is allowed here%s%s", NULL, NULL);
        return 0;
    }
    if (!json_is_object(s)) {
        fail(c, where, "schema is neither an object nor a boolean%s%s", NULL, NULL);
        return 0;
    }
    if (++c->depth > 64) {
        fail(c, where, "schema nests deeper than 64 levels (a $ref loop?)%s%s", NULL, NULL);
        c->depth--;
        return 0;
    }
    const char *k;
    json_t *kv;
    json_object_foreach(s, k, kv) {
        if (!known_keyword(k)) {
            fail(c, where, "schema keyword \"%s\" is not supported by this checker%s", k, NULL);
            c->depth--;
            return 0;
        }
    }
    json_t *own = json_object(); /* properties evaluated at this level */
    int ok = 1;

    json_t *type = json_object_get(s, "type");
    if (type) {
        int match = 0;
        if (json_is_string(type)) {
            match = type_matches(v, json_string_value(type));
        } else {
            size_t i;
            json_t *t;
            json_array_foreach(type, i, t)
                match |= type_matches(v, json_string_value(t)) == 1;
        }
        if (match != 1) {
            char *want = json_dumps(type, JSON_ENCODE_ANY | JSON_COMPACT);
            if (!quiet)
                fail(c, where, "value is not of type %s%s", want, NULL);
            free(want);
            ok = 0;
        }
    }
    json_t *cst = json_object_get(s, "const");
    if (cst && !json_same(cst, v)) {
        char *want = json_dumps(cst, JSON_ENCODE_ANY | JSON_COMPACT);
        if (!quiet)
            fail(c, where, "value is not the constant %s%s", want, NULL);
        free(want);
        ok = 0;
    }
    json_t *en = json_object_get(s, "enum");
    if (en) {
        int found = 0;
        size_t i;
        json_t *e;
        json_array_foreach(en, i, e)
            found |= json_same(e, v);
        if (!found) {
            if (!quiet)
                fail(c, where, "value is not one of the enum%s%s", NULL, NULL);
            ok = 0;
        }
    }
    ok &= check_number(c, s, v, where, quiet);
    ok &= check_string(c, s, v, where, quiet);
    ok &= check_object(c, s, v, where, quiet, own);
    ok &= check_array(c, s, v, where, quiet);
    ok &= check_combinators(c, s, v, where, quiet, own);

    json_t *uneval = json_object_get(s, "unevaluatedProperties");
    if (uneval && json_is_object(v)) {
        const char *pk;
        json_t *pv;
        json_object_foreach(v, pk, pv) {
            if (json_object_get(own, pk))
                continue;
            if (json_is_false(uneval)) {
                if (!quiet)
                    fail(c, where, "property \"%s\" is not allowed here%s", pk, NULL);
                ok = 0;
            } else if (!json_is_true(uneval)) {
                char sub[1024];
                snprintf(sub, sizeof sub, "%s/%s", where, pk);
                ok &= validate(c, uneval, pv, sub, quiet, NULL);
            }
            json_object_set_new(own, pk, json_true());
        }
    }
    if (ok && evaluated)
        json_object_update(evaluated, own);
    json_decref(own);
    c->depth--;
    return ok;
}

/* Every subschema of the schema uses only keywords this checker knows, even
 * the ones no instance reaches. */
static int check_schema_keywords(const char *file, json_t *s, const char *where)
{
    int ok = 1;
    char sub[1024];
    if (json_is_array(s)) {
        size_t i;
        json_t *e;
        json_array_foreach(s, i, e) {
            snprintf(sub, sizeof sub, "%s/%zu", where, i);
            ok &= check_schema_keywords(file, e, sub);
        }
        return ok;
    }
    if (!json_is_object(s))
        return 1;
    const char *k;
    json_t *v;
    json_object_foreach(s, k, v) {
        snprintf(sub, sizeof sub, "%s/%s", where, k);
        if (!known_keyword(k)) {
            fprintf(stderr, "%s: at %s: schema keyword \"%s\" is not supported by this checker\n",
                    file, where[0] ? where : "/", k);
            failures++;
            ok = 0;
        } else if (strcmp(k, "properties") == 0 || strcmp(k, "$defs") == 0) {
            const char *pk;
            json_t *pv;
            json_object_foreach(v, pk, pv) {
                snprintf(sub, sizeof sub, "%s/%s/%s", where, k, pk);
                ok &= check_schema_keywords(file, pv, sub);
            }
        } else if (strcmp(k, "items") == 0 || strcmp(k, "additionalProperties") == 0 ||
                   strcmp(k, "unevaluatedProperties") == 0 || strcmp(k, "allOf") == 0 ||
                   strcmp(k, "anyOf") == 0 || strcmp(k, "oneOf") == 0) {
            ok &= check_schema_keywords(file, v, sub);
        }
    }
    return ok;
}

/* ---------------------------------------------------------------------- */
/* Paths                                                                   */

/* "[k=v,k2=v2]": does element e have those members? */
static int matches_selector(json_t *e, const char *sel)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", sel);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (!eq)
            return 0;
        *eq = '\0';
        json_t *m = json_object_get(e, t);
        const char *want = eq + 1;
        if (json_is_string(m)) {
            if (strcmp(json_string_value(m), want) != 0)
                return 0;
        } else if (json_is_integer(m)) {
            char num[32];
            snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(m));
            if (strcmp(num, want) != 0)
                return 0;
        } else {
            return 0;
        }
    }
    return 1;
}

static json_t *walk(const char *file, json_t *doc, const char *path)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *node = doc;
    char *save = NULL;
    for (char *step = strtok_r(buf, "/", &save); step && node; step = strtok_r(NULL, "/", &save)) {
        if (strcmp(step, ".") == 0)
            continue;
        json_t *next = NULL;
        size_t len = strlen(step);
        if (step[0] == '[' && step[len - 1] == ']' && json_is_array(node)) {
            step[len - 1] = '\0';
            size_t i;
            json_t *e;
            json_array_foreach(node, i, e) {
                if (json_is_object(e) && matches_selector(e, step + 1)) {
                    next = e;
                    break;
                }
            }
        } else if (json_is_array(node)) {
            char *end;
            unsigned long i = strtoul(step, &end, 10);
            if (*end == '\0' && end != step)
                next = json_array_get(node, i);
        } else if (json_is_object(node)) {
            next = json_object_get(node, step);
        }
        if (!next) {
            fprintf(stderr, "%s: path %s: no step '%s'\n", file, path, step);
            return NULL;
        }
        node = next;
    }
    return node;
}

static void print_value(json_t *v)
{
    if (json_is_string(v))
        printf("%s\n", json_string_value(v));
    else if (json_is_integer(v))
        printf("%" JSON_INTEGER_FORMAT "\n", json_integer_value(v));
    else if (json_is_real(v))
        printf("%.17g\n", json_real_value(v));
    else {
        char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        printf("%s\n", s ? s : "?");
        free(s);
    }
}

/* ---------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr, "usage: json_check parse FILE... | schema SCHEMA FILE... | get FILE PATH | "
                    "length FILE PATH\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage();
    const char *cmd = argv[1];
    if (strcmp(cmd, "parse") == 0) {
        for (int i = 2; i < argc; i++) {
            json_t *j = load(argv[i]);
            if (!j)
                failures++;
            json_decref(j);
        }
        return failures ? 1 : 0;
    }
    if (strcmp(cmd, "schema") == 0) {
        if (argc < 4)
            return usage();
        json_error_t err;
        /* Bounds such as 2^64 - 1 do not fit jansson's integers: read the
         * schema's numbers as doubles (comparisons are made in doubles). */
        json_t *schema = json_load_file(argv[2], JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &err);
        if (!schema) {
            fprintf(stderr, "%s:%d:%d: not valid JSON: %s\n", argv[2], err.line, err.column, err.text);
            return 1;
        }
        if (!check_schema_keywords(argv[2], schema, "")) {
            json_decref(schema);
            return 1;
        }
        for (int i = 3; i < argc; i++) {
            json_t *doc = load(argv[i]);
            if (!doc) {
                failures++;
                continue;
            }
            ctx c = {argv[i], schema, 0};
            validate(&c, schema, doc, "", 0, NULL);
            json_decref(doc);
        }
        json_decref(schema);
        return failures ? 1 : 0;
    }
    if (strcmp(cmd, "get") == 0 || strcmp(cmd, "length") == 0) {
        if (argc != 4)
            return usage();
        json_t *doc = load(argv[2]);
        if (!doc)
            return 1;
        json_t *v = walk(argv[2], doc, argv[3]);
        int rc = 0;
        if (!v) {
            rc = 1;
        } else if (cmd[0] == 'g') {
            print_value(v);
        } else if (json_is_array(v)) {
            printf("%zu\n", json_array_size(v));
        } else if (json_is_object(v)) {
            printf("%zu\n", json_object_size(v));
        } else {
            fprintf(stderr, "%s: path %s: not an array or object\n", argv[2], argv[3]);
            rc = 1;
        }
        json_decref(doc);
        return rc;
    }
    return usage();
}

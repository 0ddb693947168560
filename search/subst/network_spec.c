/* "NAME" or "NAME:BLOCKS" in the benchmarks' network lists (bench ocggs,
 * bench gso): a substitution network with its blocks repeated (OCGGS's
 * Figures 4 and 5, GSO's Figure 7 on resnet_blocks:2 .. resnet_blocks:8), or
 * any built-in network by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "search/subst/subst.h"

lf_status lf_subst_network_spec_check(const char *spec, int32_t *blocks)
{
    const char *colon = strchr(spec, ':');
    char *end = NULL;
    long b = colon ? strtol(colon + 1, &end, 10) : 0;
    if (colon && (!colon[1] || *end || b < 1 || b > 64))
        return lf_set_error(LF_EINVAL, "'%s': blocks must be 1 to 64", spec);
    if (blocks)
        *blocks = (int32_t)b;
    return LF_OK;
}

lf_status lf_subst_network_spec(const char *spec, lf_graph **out, int32_t *blocks)
{
    *out = NULL;
    int32_t b = 0;
    lf_status st = lf_subst_network_spec_check(spec, &b);
    if (blocks)
        *blocks = b;
    if (st)
        return st;
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(spec, ":"), spec);
    st = lf_subst_network_blocks(name, 0, b, out);
    if (st == LF_ENOTFOUND && !b) {
        lf_model_options mo = {0, 1};
        st = lf_model_build(name, &mo, out);
    }
    return st;
}

lf_status lf_subst_network_list(const char *list, char (*specs)[LF_SUBST_SPEC_MAX], int32_t max, int32_t *n)
{
    char buf[1024], *items[64];
    int32_t count = 0;
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (count < max && count < 64)
            items[count] = t;
        count++;
    }
    if (count < 1 || count > max || count > 64)
        return lf_set_error(LF_EINVAL, "1 to %d networks", (int)(max < 64 ? max : 64));
    for (int32_t i = 0; i < count; i++) {
        lf_status st = lf_subst_network_spec_check(items[i], NULL);
        if (st)
            return st;
        if (strlen(items[i]) >= LF_SUBST_SPEC_MAX)
            return lf_set_error(LF_EINVAL, "'%s': name too long", items[i]);
    }
    for (int32_t i = 0; i < count; i++)
        snprintf(specs[i], LF_SUBST_SPEC_MAX, "%s", items[i]);
    *n = count;
    return LF_OK;
}

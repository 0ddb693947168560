#include "planner/util/busy_clock.h"

#include <string.h>

#include "planner/util/clock.h"

lf_status lf_busy_clock_init(lf_busy_clock *c)
{
    memset(c, 0, sizeof *c);
    return lf_mutex_init(&c->lock, "a timer");
}

void lf_busy_clock_destroy(lf_busy_clock *c) { lf_mutex_destroy(&c->lock); }

void lf_busy_clock_enter(lf_busy_clock *c)
{
    lf_mutex_lock(&c->lock);
    if (c->active++ == 0)
        c->since = lf_now_seconds();
    lf_mutex_unlock(&c->lock);
}

void lf_busy_clock_leave(lf_busy_clock *c)
{
    lf_mutex_lock(&c->lock);
    if (c->active > 0 && --c->active == 0)
        c->total += lf_now_seconds() - c->since;
    lf_mutex_unlock(&c->lock);
}

double lf_busy_clock_seconds(lf_busy_clock *c)
{
    lf_mutex_lock(&c->lock);
    double s = c->total + (c->active > 0 ? lf_now_seconds() - c->since : 0.0);
    lf_mutex_unlock(&c->lock);
    return s;
}

void lf_busy_clock_reset(lf_busy_clock *c)
{
    lf_mutex_lock(&c->lock);
    c->total = 0.0;
    if (c->active > 0)
        c->since = lf_now_seconds();
    lf_mutex_unlock(&c->lock);
}

/* The CLI's one-line progress bar on stderr (the library only reports
 * progress through its callbacks; planner/app/cli/progress_bar.c draws them). */
#include "planner/app/cli/terminal_bar.h"

#include <math.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "planner/util/clock.h"

#define LF__BAR_WIDTH 24
#define LF__MIN_INTERVAL 0.1 /* seconds: at most 10 redraws a second */
#define LF__NOTE_MAX 40      /* keeps the line short enough not to wrap, which would defeat \r */


/* Writes a duration as "12.3s", "4:05" or "1:02:03". */
static void lf__format_duration(char *buf, size_t n, double s)
{
    if (!(s >= 0.0) || s > 359999.0) { /* negative, NaN or absurd: show nothing useful */
        snprintf(buf, n, "--");
        return;
    }
    if (s < 60.0) {
        snprintf(buf, n, "%.1fs", s);
        return;
    }
    long t = (long)floor(s);
    if (t < 3600)
        snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
    else
        snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
}

void lf_progress_start(lf_progress *p, const char *label, int64_t total, int quiet)
{
    p->label = label ? label : "";
    p->total = total;
    p->done = 0;
    p->start = lf_now_seconds();
    /* Before the start so that the first update draws at once. */
    p->last_draw = p->start - 2 * LF__MIN_INTERVAL;
    /* Escape codes in a pipe or a log file are noise, so only a terminal gets them. */
    p->enabled = !quiet && isatty(fileno(stderr));
}

void lf_progress_update(lf_progress *p, int64_t done, const char *note)
{
    p->done = done;
    if (!p->enabled)
        return;
    const double now = lf_now_seconds();
    const int complete = p->total > 0 && done >= p->total;
    /* The final state is always drawn, so the bar never stops short of 100%. */
    if (now - p->last_draw < LF__MIN_INTERVAL && !complete)
        return;
    p->last_draw = now;

    const double elapsed = now - p->start;
    char el[32], eta[32];
    lf__format_duration(el, sizeof el, elapsed);

    if (p->total > 0) {
        double frac = (double)done / (double)p->total;
        if (frac < 0.0)
            frac = 0.0;
        if (frac > 1.0)
            frac = 1.0;
        char bar[LF__BAR_WIDTH + 1];
        const int filled = (int)(frac * LF__BAR_WIDTH);
        for (int i = 0; i < LF__BAR_WIDTH; i++)
            bar[i] = i < filled ? '#' : '.';
        bar[LF__BAR_WIDTH] = '\0';
        /* Linear extrapolation from the average rate so far. */
        if (done > 0)
            lf__format_duration(eta, sizeof eta,
                                elapsed * (double)(p->total - done) / (double)done);
        else
            lf__format_duration(eta, sizeof eta, -1.0);
        fprintf(stderr, "\r%s [%s] %3d%% %lld/%lld %s ETA %s", p->label, bar,
                (int)(frac * 100.0), (long long)done, (long long)p->total, el, eta);
    } else {
        /* Unknown total: a count and the elapsed time are all that is honest. */
        fprintf(stderr, "\r%s %lld %s", p->label, (long long)done, el);
    }
    if (note && note[0])
        fprintf(stderr, "  %.*s", LF__NOTE_MAX, note);
    /* Clear to the end of the line: a shorter line must not leave old text. */
    fputs("\033[K", stderr);
    fflush(stderr);
}

void lf_progress_finish(lf_progress *p)
{
    if (!p->enabled)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->enabled = 0; /* a second finish, or a stray update, stays silent */
}

/* The CLI's progress bar, fed by the library's progress callback: the
 * library reports, the front end draws (planner/util/clock.h). */
#include "planner/app/cli/cli.h"

void lf_cli_progress_report(void *user, const char *stage, int64_t done, int64_t total,
                            const char *note)
{
    lf_cli_progress *p = user;
    if (!p->started) {
        lf_progress_start(&p->bar, stage, total, 0);
        p->started = 1;
    }
    lf_progress_update(&p->bar, done, note);
}

void lf_cli_progress_end(lf_cli_progress *p)
{
    if (p->started)
        lf_progress_finish(&p->bar);
    p->started = 0;
}

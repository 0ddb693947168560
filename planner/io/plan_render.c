/* Plan pictures (SVG, PNG) through Graphviz: the DOT export with groups
 * filled by F_beta / beta (plan_dot.c) piped into `dot -Tsvg|png`, found on
 * PATH. Without Graphviz: LF_ENOSYS with one line saying so. */
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "planner/io/plan_view_internal.h"

extern char **environ;

lf_status lf_plan_write_image(FILE *f, const char *format, const lf_plan *p, lf_cost_model *cm,
                              const lf_plan_meta *meta)
{
    if (!f || !format || !p || !cm)
        return lf_set_error(LF_EINVAL, "lf_plan_write_image needs a stream, a format, a plan and a "
                                       "cost model");
    if (strcmp(format, "svg") != 0 && strcmp(format, "png") != 0)
        return lf_set_error(LF_EINVAL, "unknown picture format '%s' (known: svg, png)", format);
    /* Graphviz reads and writes temporary files: f may be an in-memory
     * stream (the atomic writer's), which has no descriptor. */
    FILE *dot = tmpfile(), *img = tmpfile(), *err = tmpfile();
    if (!dot || !img || !err) {
        if (dot)
            fclose(dot);
        if (img)
            fclose(img);
        if (err)
            fclose(err);
        return lf_set_error(LF_EIO, "cannot create a temporary file for the plan's DOT: %s",
                            strerror(errno));
    }
    lf_status st = lf__plan_write_dot_heat(dot, p, cm, meta, 1);
    if (st == LF_OK && (fflush(dot) != 0 || fseek(dot, 0, SEEK_SET) != 0))
        st = lf_set_error(LF_EIO, "error preparing the plan's DOT for Graphviz");
    if (st == LF_OK) {
        char type[8];
        snprintf(type, sizeof type, "-T%s", format);
        char *argv[] = {"dot", type, NULL};
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, fileno(dot), 0);
        posix_spawn_file_actions_adddup2(&fa, fileno(img), 1);
        posix_spawn_file_actions_adddup2(&fa, fileno(err), 2);
        pid_t pid;
        int rc = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        int status = 0;
        if (rc == ENOENT)
            st = lf_set_error(LF_ENOSYS, "cannot draw the plan as %s: Graphviz 'dot' is not "
                                         "installed (Debian: apt install graphviz); write a .dot "
                                         "file instead",
                              format);
        else if (rc != 0)
            st = lf_set_error(LF_EIO, "cannot run Graphviz 'dot': %s", strerror(rc));
        else if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            char line[200] = "";
            rewind(err);
            if (!fgets(line, sizeof line, err))
                line[0] = '\0';
            line[strcspn(line, "\n")] = '\0';
            st = lf_set_error(LF_EIO, "Graphviz 'dot -T%s' failed%s%s", format, line[0] ? ": " : "",
                              line);
        } else {
            char buf[65536];
            size_t n, total = 0;
            rewind(img);
            while ((n = fread(buf, 1, sizeof buf, img)) > 0) {
                fwrite(buf, 1, n, f);
                total += n;
            }
            if (ferror(img) || ferror(f))
                st = lf_set_error(LF_EIO, "error copying the picture Graphviz drew");
            else if (total == 0)
                st = lf_set_error(LF_EIO, "Graphviz 'dot -T%s' wrote nothing", format);
        }
    }
    fclose(dot);
    fclose(img);
    fclose(err);
    return st;
}

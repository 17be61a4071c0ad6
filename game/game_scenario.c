/* game_scenario.c - a new scenario from a viewer (PUT /api/scenario):
 * checked as --scenario is, saved to the --scenario file (the old one kept
 * as FILE.bak) and put in play, one save at a time.  Over HTTP a scenario's
 * "ruleset" names a shipped ruleset or a profile file in the scenario's own
 * folder, and no error quotes a profile file's contents. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "game_internal.h"
#include "rules.h"
#include "tt_json.h"
#include "tt_tmpfile.h"

/* Write text to path atomically, keeping the old file as path.bak (save_mu
 * held: one save at a time, so the backup is the file this save replaces). */
static tt_status game__save_scenario(const char *path, const char *text, tt_err *err)
{
    char *tmp = NULL, bak[4200], bak_new[4200];
    FILE *f = NULL;
    tt_status st;
    if ((st = tt_tmp_fopen(path, &tmp, &f, err)) != TT_OK)
        return st;
    size_t n = strlen(text);
    int bad = fwrite(text, 1, n, f) != n || fputc('\n', f) == EOF;
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad) {
        int e = errno;
        tt_tmp_discard(tmp);
        return tt_err_set(err, TT_ERR_IO, "cannot write the scenario %s: %s (is the disk full?)", path, strerror(e));
    }
    /* the old file's second name, then renamed over the backup: there is
     * always a whole FILE.bak, never a moment without one */
    snprintf(bak, sizeof bak, "%s.bak", path);
    snprintf(bak_new, sizeof bak_new, "%s.bak.new", path);
    if (access(path, F_OK) == 0 &&
        ((unlink(bak_new), link(path, bak_new)) != 0 || rename(bak_new, bak) != 0)) {
        int e = errno;
        unlink(bak_new);
        tt_tmp_discard(tmp);
        return tt_err_set(err, TT_ERR_IO, "cannot keep the old scenario as %s: %s (can this folder be written?)",
                          bak, strerror(e));
    }
    return tt_tmp_commit(tmp, path, err);
}

/* Part of the scenario as JSON text ("{}" when absent), read under mu. */
static char *game__scenario_part_json(game *g, int profile)
{
    pthread_mutex_lock(&g->mu);
    const json_t *j = profile ? g->sc.profile : g->sc.root;
    char *t = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12)) : strdup("{}");
    pthread_mutex_unlock(&g->mu);
    return t;
}

char *game_scenario_json(game *g)
{
    return game__scenario_part_json(g, 0);
}

char *game_rules_json(game *g)
{
    return game__scenario_part_json(g, 1);
}

/* Is rs a path (as rules_profile_path reads it) rather than a ruleset's name? */
static int game__ruleset_is_path(const char *rs)
{
    size_t n = strlen(rs);
    return strchr(rs, '/') || (n > 5 && !strcmp(rs + n - 5, ".json"));
}

/* The "ruleset" of a scenario sent to the table: a ruleset's name, or a
 * profile file in the scenario file's own folder (dir), which loads.  An
 * error names the file, never what is in it: the sender may not read it. */
static tt_status game__ruleset_from_afar(game *g, const char *text, const char *dir, tt_err *err)
{
    json_t *root = NULL;
    tt_err ignored = {0};
    if (tt_json_parse(text, "the scenario", &root, &ignored) != TT_OK)
        return TT_OK; /* the scenario's own check says what is wrong with it */
    const char *v = json_string_value(json_object_get(root, "ruleset"));
    char rs[PATH_MAX];
    snprintf(rs, sizeof rs, "%s", v ? v : "");
    json_decref(root);
    if (!v || !game__ruleset_is_path(rs))
        return TT_OK; /* a name: rules/profiles, shipped (or $TABLETRACK_DATA's) */
    char real_dir[PATH_MAX], want[PATH_MAX + 8], real[PATH_MAX];
    tt_status st = TT_OK;
    if (!g->o.scenario)
        st = tt_err_set(err, TT_ERR_ARG,
                        "\"ruleset\": \"%s\": send a ruleset's name (into-the-breach, thin-red-line, ...); a profile "
                        "file is taken only from the folder of the table's --scenario file, and this table has none",
                        rs);
    else if (rs[0] == '/' || !realpath(dir, real_dir) ||
             snprintf(want, sizeof want, "%s/%s", real_dir, rs) >= (int)sizeof want || !realpath(want, real) ||
             strncmp(real, real_dir, strlen(real_dir)) || real[strlen(real_dir)] != '/')
        st = tt_err_set(err, TT_ERR_ARG,
                        "\"ruleset\": \"%s\" is not a profile file in the scenario's folder: send a ruleset's name "
                        "(into-the-breach, thin-red-line, ...) or the name of a profile file beside %s",
                        rs, g->o.scenario);
    if (st != TT_OK)
        return st;
    /* the profile alone, in a scenario with nothing else: its errors would
     * quote it, so only that it failed is said */
    json_t *probe = json_pack("{s:s,s:{s:i,s:i},s:[],s:[]}", "ruleset", real, "table", "width_in", 36, "depth_in", 24,
                              "terrain", "figures");
    rules_scenario *sc = NULL;
    if (!probe)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    st = rules_scenario_from_json(probe, "the profile", NULL, game__data_dirs(), &sc, &ignored);
    json_decref(probe);
    rules_scenario_destroy(sc);
    if (st == TT_ERR_NOMEM)
        return tt_err_set(err, st, "out of memory");
    if (st != TT_OK)
        return tt_err_set(err, TT_ERR_ARG,
                          "\"ruleset\": \"%s\" is not a ruleset profile tabletrack can read; on the table's "
                          "computer, 'tabletrack track --scenario' with it says what is wrong",
                          rs);
    return TT_OK;
}

tt_status game_scenario_put(game *g, const char *text, size_t len, tt_err *err)
{
    game__scenario n = {0};
    tt_status st;
    char dir[4096] = ".";
    if (strlen(text) != len)
        return tt_err_set(err, TT_ERR_FORMAT, "the scenario holds a NUL byte: send one JSON object");
    if (g->o.scenario)
        game__dir_of(g->o.scenario, dir, sizeof dir);
    /* One save at a time, from the check to the scenario in play: saves
     * land whole and in the order they came, and the file and the game
     * never disagree (a save that cannot be written is not applied). */
    pthread_mutex_lock(&g->save_mu);
    if ((st = game__ruleset_from_afar(g, text, dir, err)) != TT_OK ||
        (st = game__scenario_load_text(&n, text, "the scenario", dir, err)) != TT_OK) {
        pthread_mutex_unlock(&g->save_mu);
        return st;
    }
    table_scene_set_cite(n.scene, g->o.cite);
    /* written first: a scenario that cannot be kept is not applied */
    char *pretty = json_dumps(n.root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    if (!pretty) {
        pthread_mutex_unlock(&g->save_mu);
        game__scenario_free(&n);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    if (g->o.scenario && (st = game__save_scenario(g->o.scenario, pretty, err)) != TT_OK) {
        pthread_mutex_unlock(&g->save_mu);
        free(pretty);
        game__scenario_free(&n);
        return st;
    }
    pthread_mutex_lock(&g->mu);
    game__scenario_free(&g->sc);
    g->sc = n;
    g->scenario_rev++;
    game__ground(g);
    game__place_figures(g); /* questions asked now see the table as it is */
    g->dirty = 1;
    if (g->recording.recd && !g->recording.rec_failed) { /* the replay shows the new terrain from here on */
        tt_err e = {0};
        if (rec_scenario(g->recording.recd, g->figures.frame_no, (long long)g->figures.t_ms, text, &e) != TT_OK ||
            rec_flush(g->recording.recd, &e) != TT_OK)
            game__recorder_failed(g, &e);
    }
    pthread_mutex_unlock(&g->mu);
    pthread_mutex_unlock(&g->save_mu);
    free(pretty);
    return TT_OK;
}

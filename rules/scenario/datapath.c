/* datapath.c - finding a ruleset profile file by name. */
#include "rules_scenario.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int rules__readable(const char *p) { return access(p, R_OK) == 0; }

tt_status rules_profile_path(const char *name, const char *base_dir, const char *const *data_dirs, char *buf,
                             size_t bufsize, tt_err *err)
{
    size_t n = strlen(name);
    if (!n)
        return tt_err_set(err, TT_ERR_FORMAT, "the \"ruleset\" name is empty");
    if (strchr(name, '/') || (n > 5 && !strcmp(name + n - 5, ".json"))) {
        if (name[0] == '/' || !base_dir)
            snprintf(buf, bufsize, "%s", name);
        else
            snprintf(buf, bufsize, "%s/%s", base_dir, name);
        if (!rules__readable(buf))
            return tt_err_set(err, TT_ERR_IO, "ruleset profile %s not found (check the \"ruleset\" path)", buf);
        return TT_OK;
    }
    for (size_t i = 0; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '-' ||
              name[i] == '_'))
            return tt_err_set(err, TT_ERR_FORMAT,
                              "ruleset \"%s\" is not a ruleset name (lower-case letters, digits and '-')", name);
    static const char *const layouts[] = {"%s/rules/profiles/%s.json", "%s/profiles/%s.json", "%s/%s.json"};
    for (size_t d = 0; data_dirs && data_dirs[d]; d++) {
        if (!data_dirs[d][0])
            continue;
        for (size_t k = 0; k < sizeof layouts / sizeof *layouts; k++) {
            snprintf(buf, bufsize, layouts[k], data_dirs[d], name);
            if (rules__readable(buf))
                return TT_OK;
        }
    }
    return tt_err_set(err, TT_ERR_UNKNOWN,
                      "ruleset \"%s\" not found: no %s.json under rules/profiles in the data directories "
                      "(set TABLETRACK_DATA to the tabletrack source or data directory, or name the profile file)",
                      name, name);
}

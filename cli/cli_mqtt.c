/* cli_mqtt.c - the broker options that track, replay and hall share. */
#include <string.h>

#include "cli.h"
#include "hall_mqtt.h"

int cli_mqtt_opt(const char *name, const char *val, struct hall_mqtt_opts *o)
{
    if (!strcmp(name, "--mqtt"))
        o->broker = val;
    else if (!strcmp(name, "--mqtt-user"))
        o->user = val;
    else if (!strcmp(name, "--mqtt-password-file"))
        o->password_file = val;
    else if (!strcmp(name, "--mqtt-cafile"))
        o->cafile = val;
    else
        return 0;
    return 1;
}

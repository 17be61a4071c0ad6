/* cmd_cameras.c - 'tabletrack cameras': USB video devices found through
 * libusb, with serial numbers (for --source usb:SERIAL) and /dev/video
 * paths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "usbcam.h"

int cmd_cameras(int argc, char **argv)
{
    vision_usb_camera *cams = NULL;
    int n = 0, json = 0;
    tt_err err = {0};
    cli_args args;
    const char *name, *val;
    int k;
    cli_args_init(&args, &cli_spec_cameras, argc, argv);
    while ((k = cli_args_next(&args, &name, &val)) != CLI_END) {
        if (k == CLI_STOP)
            return args.rc;
        if (k == CLI_POSITIONAL)
            return cli_spec_usage(&cli_spec_cameras, "unexpected argument '%s'", val);
        json = 1; /* --json, the only option */
    }
    if (vision_usb_cameras(&cams, &n, &err) != TT_OK)
        return cli_fail("cameras", &err);
    if (json) {
        printf("[");
        for (int i = 0; i < n; i++)
            printf("%s{\"vendor_product\":\"%04x:%04x\",\"serial\":\"%s\",\"product\":\"%s\",\"dev\":\"%s\"}",
                   i ? "," : "", cams[i].vendor, cams[i].product, cams[i].serial, cams[i].product_name, cams[i].dev);
        printf("]\n");
    } else if (n == 0) {
        printf("no USB cameras found (is the camera plugged in? try another USB port)\n");
    } else {
        printf("%-10s %-24s %-32s %s\n", "usb id", "serial", "product", "device");
        for (int i = 0; i < n; i++)
            printf("%04x:%04x  %-24s %-32s %s\n", cams[i].vendor, cams[i].product,
                   cams[i].serial[0] ? cams[i].serial : "(none)", cams[i].product_name,
                   cams[i].dev[0] ? cams[i].dev : "(no /dev/video node)");
        printf("\nuse --source usb:SERIAL to bind a camera to a table by its serial number\n");
    }
    free(cams);
    return 0;
}

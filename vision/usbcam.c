/* usbcam.c - USB camera discovery (libusb + sysfs) and V4L2 controls. */
#include "usbcam.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <libusb.h>

static int vision__has_video_interface(libusb_device *d)
{
    struct libusb_config_descriptor *cfg = NULL;
    int found = 0;
    if (libusb_get_active_config_descriptor(d, &cfg) != 0 && libusb_get_config_descriptor(d, 0, &cfg) != 0)
        return 0;
    for (int i = 0; i < cfg->bNumInterfaces && !found; i++)
        for (int a = 0; a < cfg->interface[i].num_altsetting; a++)
            if (cfg->interface[i].altsetting[a].bInterfaceClass == LIBUSB_CLASS_VIDEO)
                found = 1;
    libusb_free_config_descriptor(cfg);
    return found;
}

/* Read a sysfs attribute of a USB device (fallback when libusb_open is not
 * permitted). */
static void vision__sysfs_attr(const char *bus_path, const char *attr, char *out, size_t len)
{
    char p[256];
    out[0] = '\0';
    snprintf(p, sizeof p, "/sys/bus/usb/devices/%s/%s", bus_path, attr);
    FILE *f = fopen(p, "r");
    if (!f)
        return;
    if (fgets(out, (int)len, f)) {
        size_t n = strlen(out);
        while (n && (out[n - 1] == '\n' || out[n - 1] == '\r'))
            out[--n] = '\0';
    }
    fclose(f);
}

void vision_usb_video_node(const char *sysfs_root, const char *bus_path, char *dev, size_t devlen)
{
    char dirp[PATH_MAX - 64], link[PATH_MAX], target[PATH_MAX], needle[96];
    DIR *dir;
    struct dirent *e;
    int best = INT_MAX;
    dev[0] = '\0';
    snprintf(dirp, sizeof dirp, "%s/class/video4linux", sysfs_root);
    snprintf(needle, sizeof needle, "/%s:", bus_path);
    dir = opendir(dirp);
    if (!dir)
        return;
    while ((e = readdir(dir))) {
        int idx;
        if (sscanf(e->d_name, "video%d", &idx) != 1)
            continue;
        if (snprintf(link, sizeof link, "%s/video%d/device", dirp, idx) >= (int)sizeof link)
            continue;
        ssize_t k = readlink(link, target, sizeof target - 1);
        if (k <= 0)
            continue;
        target[k] = '\0';
        /* Several nodes per camera (capture + metadata): the lowest index is
         * the capture node. */
        if (strstr(target, needle) && idx < best) {
            best = idx;
            snprintf(dev, devlen, "/dev/video%d", idx);
        }
    }
    closedir(dir);
}

tt_status vision_usb_cameras(vision_usb_camera **list, int *n, tt_err *err)
{
    libusb_context *ctx = NULL;
    libusb_device **devs = NULL;
    vision_usb_camera *out = NULL;
    ssize_t nd;
    int cnt = 0;
    tt_status st = TT_OK;

    *list = NULL;
    *n = 0;
    if (libusb_init(&ctx) != 0)
        return tt_err_set(err, TT_ERR_DEVICE, "cannot start libusb (is /dev/bus/usb available?)");
    nd = libusb_get_device_list(ctx, &devs);
    if (nd < 0) {
        st = tt_err_set(err, TT_ERR_DEVICE, "cannot list USB devices: %s", libusb_error_name((int)nd));
        goto done;
    }
    out = calloc((size_t)nd + 1, sizeof *out);
    if (!out) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (ssize_t i = 0; i < nd; i++) {
        struct libusb_device_descriptor dd;
        libusb_device *d = devs[i];
        if (libusb_get_device_descriptor(d, &dd) != 0 || !vision__has_video_interface(d))
            continue;
        vision_usb_camera *c = &out[cnt++];
        uint8_t ports[8];
        int np = libusb_get_port_numbers(d, ports, 8);
        int len = snprintf(c->bus_path, sizeof c->bus_path, "%d-", libusb_get_bus_number(d));
        for (int p = 0; p < np && len < (int)sizeof c->bus_path; p++)
            len += snprintf(c->bus_path + len, sizeof c->bus_path - (size_t)len, p ? ".%d" : "%d", ports[p]);
        c->vendor = dd.idVendor;
        c->product = dd.idProduct;
        libusb_device_handle *h = NULL;
        if (libusb_open(d, &h) == 0) {
            if (dd.iSerialNumber)
                libusb_get_string_descriptor_ascii(h, dd.iSerialNumber, (unsigned char *)c->serial, sizeof c->serial);
            if (dd.iProduct)
                libusb_get_string_descriptor_ascii(h, dd.iProduct, (unsigned char *)c->product_name,
                                                   sizeof c->product_name);
            libusb_close(h);
        }
        if (!c->serial[0])
            vision__sysfs_attr(c->bus_path, "serial", c->serial, sizeof c->serial);
        if (!c->product_name[0])
            vision__sysfs_attr(c->bus_path, "product", c->product_name, sizeof c->product_name);
        vision_usb_video_node("/sys", c->bus_path, c->dev, sizeof c->dev);
    }
    *list = out;
    *n = cnt;
    out = NULL;
done:
    free(out);
    if (devs)
        libusb_free_device_list(devs, 1);
    libusb_exit(ctx);
    return st;
}

tt_status vision_usb_find_serial(const char *serial, char *dev, size_t devlen, tt_err *err)
{
    vision_usb_camera *cams = NULL;
    int n = 0;
    tt_status st = vision_usb_cameras(&cams, &n, err);
    if (st != TT_OK)
        return st;
    dev[0] = '\0';
    for (int i = 0; i < n; i++)
        if (!strcmp(cams[i].serial, serial)) {
            if (!cams[i].dev[0]) {
                free(cams);
                return tt_err_set(err, TT_ERR_DEVICE, "camera with serial %s has no /dev/video node (driver missing?)",
                                  serial);
            }
            snprintf(dev, devlen, "%s", cams[i].dev);
            free(cams);
            return TT_OK;
        }
    free(cams);
    return tt_err_set(err, TT_ERR_DEVICE,
                      "no USB camera with serial %s is plugged in (%d video device(s) found; 'tabletrack cameras' "
                      "lists them)",
                      serial, n);
}

static int vision__set_ctrl(int fd, unsigned id, int value)
{
    struct v4l2_control c = {.id = id, .value = value};
    return ioctl(fd, VIDIOC_S_CTRL, &c) == 0;
}

tt_status vision_camera_lock(const char *dev, const vision_camera_controls *c, char *skipped, size_t skippedlen,
                             tt_err *err)
{
    size_t len = 0;
    int fd = open(dev, O_RDWR | O_NONBLOCK);
    if (skipped && skippedlen)
        skipped[0] = '\0';
    if (fd < 0)
        return tt_err_set(err, TT_ERR_DEVICE, "cannot open %s to set its controls: %s", dev, strerror(errno));
#define TT_SKIP(name)                                                                                                  \
    do {                                                                                                               \
        if (skipped && len < skippedlen)                                                                               \
            len += (size_t)snprintf(skipped + len, skippedlen - len, "%s%s", len ? ", " : "", name);                  \
    } while (0)
    if (c->exposure >= 0) {
        if (!vision__set_ctrl(fd, V4L2_CID_EXPOSURE_AUTO, V4L2_EXPOSURE_MANUAL) ||
            !vision__set_ctrl(fd, V4L2_CID_EXPOSURE_ABSOLUTE, c->exposure))
            TT_SKIP("exposure");
    }
    if (c->focus >= 0) {
        if (!vision__set_ctrl(fd, V4L2_CID_FOCUS_AUTO, 0) || !vision__set_ctrl(fd, V4L2_CID_FOCUS_ABSOLUTE, c->focus))
            TT_SKIP("focus");
    }
    if (c->white_balance >= 0) {
        if (!vision__set_ctrl(fd, V4L2_CID_AUTO_WHITE_BALANCE, 0) ||
            !vision__set_ctrl(fd, V4L2_CID_WHITE_BALANCE_TEMPERATURE, c->white_balance))
            TT_SKIP("white balance");
    }
    if (c->gain >= 0 && !vision__set_ctrl(fd, V4L2_CID_GAIN, c->gain))
        TT_SKIP("gain");
#undef TT_SKIP
    close(fd);
    return TT_OK;
}

/* usbcam.h - USB video devices found through libusb, with their serial
 * numbers and /dev/video paths, and UVC controls (exposure, focus, white
 * balance) set through V4L2 so the projector's light cannot start the
 * camera's auto-exposure hunting.
 */
#ifndef TT_VISION_USBCAM_H
#define TT_VISION_USBCAM_H

#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vision_usb_camera {
    int vendor, product;
    char serial[128];  /* "" if the device has none or it cannot be read */
    char product_name[128];
    char bus_path[64]; /* sysfs name, e.g. "1-2.3" */
    char dev[64];      /* "/dev/video0", or "" if no V4L2 node */
} vision_usb_camera;

/* Every USB device with a video interface.  *list is allocated (free()). */
tt_status vision_usb_cameras(vision_usb_camera **list, int *n, tt_err *err);

/* The /dev/video node of a USB device, looked up under sysfs_root (normally
 * "/sys"; tests pass a fake tree).  Writes "" if there is none. */
void vision_usb_video_node(const char *sysfs_root, const char *bus_path, char *dev, size_t devlen);

/* The /dev/video path of the camera with this serial number. */
tt_status vision_usb_find_serial(const char *serial, char *dev, size_t devlen, tt_err *err);

typedef struct vision_camera_controls {
    int exposure;      /* absolute exposure (100 us units); < 0 = leave auto */
    int focus;         /* absolute focus; < 0 = leave auto */
    int white_balance; /* colour temperature in K; < 0 = leave auto */
    int gain;          /* < 0 = leave */
} vision_camera_controls;

/* Lock the controls on a V4L2 device.  Controls the camera lacks are
 * skipped and named in *skipped (may be NULL). */
tt_status vision_camera_lock(const char *dev, const vision_camera_controls *c, char *skipped, size_t skippedlen,
                             tt_err *err);

#ifdef __cplusplus
}
#endif
#endif

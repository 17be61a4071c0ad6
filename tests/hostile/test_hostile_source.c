/* test_hostile_source.c - the fault-injecting test source (vision/
 * source_fault.h) that the camera-loss tests use instead of pulling a real
 * USB cable: it loses the camera or stalls it after N frames, for S s. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>
#include <time.h>
#include <unistd.h>

#include "source.h"

#define VIDEO TT_SAMPLES "/breach/game.mp4"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static vision_frame_status next(vision_source *s, double *t)
{
    const tt_image *f = NULL;
    vision_frame_status fs;
    tt_err err = {0};
    assert_int_equal(vision_source_next(s, &f, t, &fs, &err), TT_OK);
    assert_true((fs == VISION_FRAME) == (f != NULL));
    return fs;
}

static void test_lose_then_back(void **state)
{
    (void)state;
    vision_source *s = NULL;
    tt_err err = {0};
    assert_int_equal(vision_source_open("fault:lose=5,for=0.6:" VIDEO, NULL, &s, &err), TT_OK);
    double t = 0, last = -1;
    for (int i = 0; i < 5; i++) {
        assert_int_equal(next(s, &t), VISION_FRAME);
        last = t;
    }
    double lost_at = now_ms();
    assert_int_equal(next(s, &t), VISION_LOST);
    assert_int_equal(next(s, &t), VISION_LOST);
    assert_int_equal(vision_source_reconnect(s, &err), TT_ERR_DEVICE);
    assert_non_null(strstr(err.msg, "unplugged"));
    while (vision_source_reconnect(s, &err) != TT_OK)
        usleep(20000);
    assert_true(now_ms() - lost_at >= 600);
    assert_int_equal(next(s, &t), VISION_FRAME);
    assert_true(t - last >= 600); /* time goes on across the loss */
    vision_source_destroy(s);
}

static void test_lost_for_ever_and_stall(void **state)
{
    (void)state;
    vision_source *s = NULL;
    tt_err err = {0};
    double t;
    assert_int_equal(vision_source_open("fault:lose=0,for=-1:" VIDEO, NULL, &s, &err), TT_OK);
    assert_int_equal(next(s, &t), VISION_LOST);
    usleep(100000);
    assert_int_equal(vision_source_reconnect(s, &err), TT_ERR_DEVICE);
    vision_source_destroy(s);

    assert_int_equal(vision_source_open("fault:stall=2,for=0.4:" VIDEO, NULL, &s, &err), TT_OK);
    assert_int_equal(next(s, &t), VISION_FRAME);
    assert_int_equal(next(s, &t), VISION_FRAME);
    double t0 = now_ms();
    assert_int_equal(next(s, &t), VISION_FRAME);
    assert_true(now_ms() - t0 >= 400);
    vision_source_destroy(s);

    const char *bad[] = {"fault:", "fault:lose=x,for=1:" VIDEO, "fault:unplug=1,for=1:" VIDEO, "fault:lose=1,for=1",
                         NULL};
    for (int i = 0; bad[i]; i++) {
        s = NULL;
        tt_status st = vision_source_open(bad[i], NULL, &s, &err);
        assert_true(st != TT_OK);
        assert_null(s);
    }
    assert_int_equal(vision_source_open("fault:lose=1,for=1:nonexistent.mp4", NULL, &s, &err), TT_ERR_IO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lose_then_back),
        cmocka_unit_test(test_lost_for_ever_and_stall),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

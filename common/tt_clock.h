/* tt_clock.h - the two clocks everything times itself by: monotonic
 * milliseconds (durations, timeouts) and Unix milliseconds (timestamps that
 * travel to another machine). */
#ifndef TT_CLOCK_H
#define TT_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

double tt_mono_ms(void);
long long tt_unix_ms(void);

#ifdef __cplusplus
}
#endif
#endif

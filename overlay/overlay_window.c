/* overlay_window.c - show the projector image fullscreen with SDL2, on the
 * X screen its DISPLAY names (":0.1" is screen 1 of display :0). */
#include "overlay.h"

#include <SDL.h>
#include <SDL_syswm.h>
#include <X11/Xlib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct overlay_window {
    SDL_Window *win;
    SDL_Renderer *ren;
    SDL_Texture *tex;
    int w, h;
    Display *xdpy; /* owned: the connection holding xwin, on a display of several screens; else NULL */
    Window xwin;
};

/* The X screen a DISPLAY string names (":0.1" -> 1; ":0" -> 0), and the
 * length of its display part (":0" of ":0.1"). */
static int overlay__x_screen(const char *display, size_t *host_len)
{
    const char *colon = strrchr(display, ':'), *dot = colon ? strchr(colon, '.') : NULL;
    *host_len = dot ? (size_t)(dot - display) : strlen(display);
    return dot ? atoi(dot + 1) : 0;
}

/* A window covering X screen 'screen' of a display with several screens
 * (":0.1", ":0.2"), SDL drawing in it.  SDL places its own windows by
 * position, and every X screen starts at (0, 0), so it cannot tell two
 * screens of one size apart; the window is made on its screen here.  The
 * connection 'd' is kept: the window lives as long as it does. */
static SDL_Window *overlay__window_on_screen(overlay_window *ow, Display *d, int screen, tt_err *err)
{
    XSetWindowAttributes at = {0};
    at.override_redirect = True; /* the whole screen, no window manager's frame */
    at.background_pixel = BlackPixel(d, screen);
    Window xw = XCreateWindow(d, RootWindow(d, screen), 0, 0, (unsigned)DisplayWidth(d, screen),
                              (unsigned)DisplayHeight(d, screen), 0, CopyFromParent, InputOutput, CopyFromParent,
                              CWOverrideRedirect | CWBackPixel, &at);
    XStoreName(d, xw, "tabletrack overlay");
    XMapRaised(d, xw);
    XSync(d, False);
    ow->xdpy = d;
    ow->xwin = xw;
    SDL_Window *win = SDL_CreateWindowFrom((void *)(uintptr_t)xw);
    if (!win) {
        tt_err_set(err, TT_ERR_DEVICE, "cannot draw in a window on screen %d: %s", screen, SDL_GetError());
        return NULL;
    }
    /* its keys come to SDL's own connection, as for SDL's windows */
    SDL_SysWMinfo info;
    SDL_VERSION(&info.version);
    if (SDL_GetWindowWMInfo(win, &info) && info.subsystem == SDL_SYSWM_X11) {
        XSelectInput(info.info.x11.display, xw, KeyPressMask | KeyReleaseMask | FocusChangeMask | ExposureMask |
                                                    StructureNotifyMask);
        XFlush(info.info.x11.display);
    }
    return win;
}

/* The projector's fullscreen window on the X screen 'display' names. */
static SDL_Window *overlay__window_on(overlay_window *ow, const char *display, int screen, tt_err *err)
{
    Display *d = XOpenDisplay(display[0] ? display : NULL);
    int nscreens = d ? ScreenCount(d) : 1;
    if (screen >= nscreens) {
        if (d)
            XCloseDisplay(d);
        tt_err_set(err, TT_ERR_DEVICE,
                   "display %s has no screen %d (it has %d): give --window the projector's X screen, e.g. :0.1 for "
                   "the second screen of display :0",
                   display[0] ? display : "$DISPLAY", screen, nscreens);
        return NULL;
    }
    if (d && nscreens > 1)
        return overlay__window_on_screen(ow, d, screen, err);
    if (d)
        XCloseDisplay(d);
    SDL_Window *win = SDL_CreateWindow("tabletrack overlay", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, ow->w,
                                       ow->h, SDL_WINDOW_FULLSCREEN_DESKTOP | SDL_WINDOW_BORDERLESS);
    if (!win)
        tt_err_set(err, TT_ERR_DEVICE, "cannot open a fullscreen window: %s", SDL_GetError());
    return win;
}

tt_status overlay_window_open(const char *display, int w, int h, overlay_window **out, tt_err *err)
{
    overlay_window *ow = NULL;
    tt_status st;
    *out = NULL;
    /* SDL opens one X display for the whole program, at its first window;
     * later windows are other screens of that display. */
    const char *env = getenv("DISPLAY");
    if (!display || !display[0])
        display = env ? env : "";
    size_t host_len, env_len = 0;
    int screen = overlay__x_screen(display, &host_len);
    if (SDL_WasInit(SDL_INIT_VIDEO)) {
        if (env)
            overlay__x_screen(env, &env_len);
        if (!env || env_len != host_len || strncmp(env, display, host_len))
            return tt_err_set(err, TT_ERR_ARG,
                              "cannot open a window on %s beside one on %s: every projector's --window must be a "
                              "screen of the same X display (e.g. :0.1 and :0.2)",
                              display, env ? env : "$DISPLAY");
    } else if (display[0]) {
        setenv("DISPLAY", display, 1);
    }
    SDL_SetHint(SDL_HINT_VIDEO_MINIMIZE_ON_FOCUS_LOSS, "0");
    /* the image is drawn by cairo; the window only shows it: no GL driver,
     * neither to draw nor behind the window's pixels (a GL-backed window
     * would refuse a second window made on another screen) */
    SDL_SetHint(SDL_HINT_RENDER_DRIVER, "software");
    SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
    if (SDL_Init(SDL_INIT_VIDEO) != 0)
        return tt_err_set(err, TT_ERR_DEVICE, "cannot open display %s: %s (is the projector's display connected?)",
                          display[0] ? display : "$DISPLAY", SDL_GetError());
    ow = calloc(1, sizeof *ow);
    if (!ow) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    ow->w = w;
    ow->h = h;
    ow->win = overlay__window_on(ow, display, screen, err);
    if (!ow->win) {
        st = err->status;
        goto fail;
    }
    ow->ren = SDL_CreateRenderer(ow->win, -1, 0);
    if (!ow->ren) {
        st = tt_err_set(err, TT_ERR_DEVICE, "cannot draw in the window: %s", SDL_GetError());
        goto fail;
    }
    ow->tex = SDL_CreateTexture(ow->ren, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STATIC, w, h);
    if (!ow->tex) {
        st = tt_err_set(err, TT_ERR_DEVICE, "cannot make a %dx%d texture: %s", w, h, SDL_GetError());
        goto fail;
    }
    SDL_ShowCursor(SDL_DISABLE);
    SDL_StopTextInput(); /* keys only: no input method (IBus over D-Bus) behind them */
    *out = ow;
    return TT_OK;
fail:
    overlay_window_close(ow);
    if (!ow)
        SDL_Quit();
    return st;
}

tt_status overlay_window_present(overlay_window *ow, cairo_surface_t *s, tt_err *err)
{
    if (cairo_image_surface_get_width(s) != ow->w || cairo_image_surface_get_height(s) != ow->h)
        return tt_err_set(err, TT_ERR_ARG, "overlay image is not %dx%d", ow->w, ow->h);
    cairo_surface_flush(s);
    SDL_UpdateTexture(ow->tex, NULL, cairo_image_surface_get_data(s), cairo_image_surface_get_stride(s));
    /* black around the image if the display is larger; the image keeps its
     * pixels 1:1 from the top-left (projector.json is in these pixels) */
    SDL_SetRenderDrawColor(ow->ren, 0, 0, 0, 255);
    SDL_RenderClear(ow->ren);
    SDL_Rect dst = {0, 0, ow->w, ow->h};
    SDL_RenderCopy(ow->ren, ow->tex, NULL, &dst);
    SDL_RenderPresent(ow->ren);
    return TT_OK;
}

overlay_window_event overlay_window_poll(overlay_window *ow)
{
    SDL_Event ev;
    if (!ow)
        return OVERLAY_WIN_NONE;
    while (SDL_PollEvent(&ev)) {
        if (ev.type == SDL_QUIT || (ev.type == SDL_WINDOWEVENT && ev.window.event == SDL_WINDOWEVENT_CLOSE))
            return OVERLAY_WIN_CLOSED;
        if (ev.type != SDL_KEYDOWN || ev.key.repeat)
            continue;
        switch (ev.key.keysym.sym) {
        case SDLK_ESCAPE:
            return OVERLAY_WIN_ESC;
        case SDLK_f:
            return OVERLAY_WIN_KEY_F;
        case SDLK_h:
            return OVERLAY_WIN_KEY_H;
        default:
            return OVERLAY_WIN_KEY_OTHER;
        }
    }
    return OVERLAY_WIN_NONE;
}

void overlay_window_toggle_fullscreen(overlay_window *ow)
{
    if (!ow || ow->xdpy) /* a screen of its own is always covered */
        return;
    Uint32 fs = SDL_GetWindowFlags(ow->win) & SDL_WINDOW_FULLSCREEN_DESKTOP;
    SDL_SetWindowFullscreen(ow->win, fs ? 0 : SDL_WINDOW_FULLSCREEN_DESKTOP);
}

void overlay_window_close(overlay_window *ow)
{
    if (!ow)
        return;
    if (ow->tex)
        SDL_DestroyTexture(ow->tex);
    if (ow->ren)
        SDL_DestroyRenderer(ow->ren);
    if (ow->win)
        SDL_DestroyWindow(ow->win);
    if (ow->xdpy) {
        XDestroyWindow(ow->xdpy, ow->xwin);
        XCloseDisplay(ow->xdpy);
    }
    free(ow);
    /* SDL's video stays initialised until the program ends: SDL_Quit
     * would unload the X11 extension libraries it opened while data they
     * allocated is still referenced (reported as leaks from an unknown
     * module); SDL_Init again is a no-op for the next window. */
}

tt_status overlay_window_show(cairo_surface_t *s, const char *display, int hold_ms, tt_err *err)
{
    overlay_window *ow = NULL;
    tt_status st = overlay_window_open(display, cairo_image_surface_get_width(s), cairo_image_surface_get_height(s),
                                       &ow, err);
    if (st != TT_OK)
        return st;
    Uint32 t0 = SDL_GetTicks();
    for (;;) {
        tt_err e2 = {0};
        if (overlay_window_present(ow, s, &e2) != TT_OK || overlay_window_poll(ow) != OVERLAY_WIN_NONE)
            break; /* a key, or closed by the user */
        if (hold_ms >= 0 && SDL_GetTicks() - t0 >= (Uint32)hold_ms)
            break;
        SDL_Delay(15);
    }
    overlay_window_close(ow);
    return TT_OK;
}

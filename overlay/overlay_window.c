/* overlay_window.c - show the projector image fullscreen with SDL2. */
#include "overlay.h"

#include <SDL.h>
#include <stdlib.h>

struct overlay_window {
    SDL_Window *win;
    SDL_Renderer *ren;
    SDL_Texture *tex;
    int w, h;
};

tt_status overlay_window_open(const char *display, int w, int h, overlay_window **out, tt_err *err)
{
    overlay_window *ow = NULL;
    tt_status st;
    *out = NULL;
    if (display && display[0])
        setenv("DISPLAY", display, 1);
    SDL_SetHint(SDL_HINT_VIDEO_MINIMIZE_ON_FOCUS_LOSS, "0");
    /* the image is drawn by cairo; the window only shows it: no GL driver */
    SDL_SetHint(SDL_HINT_RENDER_DRIVER, "software");
    if (SDL_Init(SDL_INIT_VIDEO) != 0)
        return tt_err_set(err, TT_ERR_DEVICE, "cannot open display %s: %s (is the projector's display connected?)",
                          display && display[0] ? display : "$DISPLAY", SDL_GetError());
    ow = calloc(1, sizeof *ow);
    if (!ow) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    ow->w = w;
    ow->h = h;
    ow->win = SDL_CreateWindow("tabletrack overlay", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, w, h,
                               SDL_WINDOW_FULLSCREEN_DESKTOP | SDL_WINDOW_BORDERLESS);
    if (!ow->win) {
        st = tt_err_set(err, TT_ERR_DEVICE, "cannot open a fullscreen window: %s", SDL_GetError());
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
    if (!ow)
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

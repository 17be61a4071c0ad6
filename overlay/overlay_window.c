/* overlay_window.c - show the projector image fullscreen with SDL2. */
#include "overlay.h"

#include <SDL.h>
#include <stdlib.h>

tt_status overlay_window_show(cairo_surface_t *s, const char *display, int hold_ms, tt_err *err)
{
    SDL_Window *win = NULL;
    SDL_Renderer *ren = NULL;
    SDL_Texture *tex = NULL;
    tt_status st = TT_OK;
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);

    if (display && display[0])
        setenv("DISPLAY", display, 1);
    SDL_SetHint(SDL_HINT_VIDEO_MINIMIZE_ON_FOCUS_LOSS, "0");
    if (SDL_Init(SDL_INIT_VIDEO) != 0)
        return tt_err_set(err, TT_ERR_DEVICE, "cannot open display %s: %s (is the projector's display connected?)",
                          display && display[0] ? display : "$DISPLAY", SDL_GetError());
    win = SDL_CreateWindow("tabletrack overlay", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, w, h,
                           SDL_WINDOW_FULLSCREEN_DESKTOP | SDL_WINDOW_BORDERLESS);
    if (!win) {
        st = tt_err_set(err, TT_ERR_DEVICE, "cannot open a fullscreen window: %s", SDL_GetError());
        goto done;
    }
    ren = SDL_CreateRenderer(win, -1, 0);
    if (!ren) {
        st = tt_err_set(err, TT_ERR_DEVICE, "cannot draw in the window: %s", SDL_GetError());
        goto done;
    }
    tex = SDL_CreateTexture(ren, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STATIC, w, h);
    if (!tex) {
        st = tt_err_set(err, TT_ERR_DEVICE, "cannot make a %dx%d texture: %s", w, h, SDL_GetError());
        goto done;
    }
    cairo_surface_flush(s);
    SDL_UpdateTexture(tex, NULL, cairo_image_surface_get_data(s), cairo_image_surface_get_stride(s));
    SDL_ShowCursor(SDL_DISABLE);
    Uint32 t0 = SDL_GetTicks();
    for (int quit = 0; !quit;) {
        SDL_Event ev;
        while (SDL_PollEvent(&ev))
            if (ev.type == SDL_QUIT || ev.type == SDL_KEYDOWN)
                quit = 1;
        /* black around the image if the display is larger; the image keeps
         * its pixels 1:1 from the top-left (projector.json is in these
         * pixels) */
        SDL_SetRenderDrawColor(ren, 0, 0, 0, 255);
        SDL_RenderClear(ren);
        SDL_Rect dst = {0, 0, w, h};
        SDL_RenderCopy(ren, tex, NULL, &dst);
        SDL_RenderPresent(ren);
        if (hold_ms >= 0 && SDL_GetTicks() - t0 >= (Uint32)hold_ms)
            quit = 1;
        SDL_Delay(15);
    }
done:
    if (tex)
        SDL_DestroyTexture(tex);
    if (ren)
        SDL_DestroyRenderer(ren);
    if (win)
        SDL_DestroyWindow(win);
    SDL_Quit();
    return st;
}

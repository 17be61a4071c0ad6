/* projector_internal.h - what projector_solve.c and projector_pinhole.c
 * share (not part of calib's interface). */
#ifndef TT_CALIB_PROJECTOR_INTERNAL_H
#define TT_CALIB_PROJECTOR_INTERNAL_H

#include "projector.h"

/* Rounds of fit, residuals, outlier threshold. */
#define CALIB_PROJECTOR__ROUNDS 5

/* One round of outlier rejection: inl[i] = 1 where the residual res[i]
 * (projector px) is within a threshold from the residuals' median (wide
 * at the first round: the first fit sees every outlier); tmp is n scratch
 * doubles; *ninl = the count.  Fewer than `need` -> TT_ERR_MISMATCH. */
tt_status calib_projector__keep(const double *res, double *tmp, int n, int round_, int need, unsigned char *inl,
                                int *ninl, tt_err *err);

/* 3x4 projection P (row-major) from table points (x, y: xy[2i..]; height
 * h[i]) to projector pixels (proj[2i..]) over the points with inl[i] set:
 * normalised DLT, reweighted by each point's depth a few times (close to
 * least squares in projector pixels).  Needs points off one plane. */
tt_status calib_projector__dlt(const double *xy, const double *h, const double *proj, const unsigned char *inl,
                               int n, double P[12], tt_err *err);

/* The same, robust: rounds of fit and outlier rejection; inl[i] = 1 for the
 * points kept (count in *ninl). */
tt_status calib_projector__fit_pinhole(const double *xy, const double *h, const double *proj, int n, double P[12],
                                       unsigned char *inl, int *ninl, tt_err *err);

/* Projector pixel of (x, y, h) under P; 0 if behind the projector. */
int calib_projector__apply_p(const double P[12], double x, double y, double h, double *u, double *v);

#endif

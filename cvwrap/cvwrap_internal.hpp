// cvwrap_internal.hpp - private to cvwrap/: the exception barrier every
// extern "C" body uses, so no C++ exception ever reaches C.
#ifndef CVWRAP_INTERNAL_HPP
#define CVWRAP_INTERNAL_HPP

#include <new>
#include <opencv2/core.hpp>

#include "tt_status.h"

#define CVW_TRY try {
#define CVW_CATCH(where_)                                                                          \
    }                                                                                              \
    catch (const cv::Exception &e)                                                                 \
    {                                                                                              \
        return tt_err_set(err, TT_ERR_CV, "%s: OpenCV: %s", where_, e.what());                     \
    }                                                                                              \
    catch (const std::bad_alloc &)                                                                 \
    {                                                                                              \
        return tt_err_set(err, TT_ERR_NOMEM, "%s: out of memory", where_);                         \
    }                                                                                              \
    catch (...)                                                                                    \
    {                                                                                              \
        return tt_err_set(err, TT_ERR_INTERNAL, "%s: unexpected exception", where_);               \
    }

#endif

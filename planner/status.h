/* Status codes and thread-local messages: the API's long-standing name for
 * hwdesc/status.h, where they sit so that hwdesc/ needs nothing from
 * planner/ (DESIGN §3). */
#ifndef LF_STATUS_H
#define LF_STATUS_H

#include "hwdesc/status.h"

#endif

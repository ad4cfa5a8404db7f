/* SPDX-License-Identifier: MIT */
/*
 * SIGINT and SIGTERM ask a measuring tool to stop: it ends the measurement under way where it
 * can, reports what it has measured and exits with 128 + the signal.
 */
#ifndef PMUSER_TOOL_STOP_H
#define PMUSER_TOOL_STOP_H

#include <signal.h>

/* The signal that asked to stop, 0 while none did; set from its handler. */
extern volatile sig_atomic_t tool_stop_signal;

/* Catches SIGINT and SIGTERM into tool_stop_signal from here on. */
void tool_stop_catch(void);

/* The exit status for a run a signal stopped: 128 + the signal, or status if none did. */
int tool_stop_status(int status);

#endif

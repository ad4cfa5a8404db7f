// SPDX-License-Identifier: MIT
#include "tool_stop.h"

volatile sig_atomic_t tool_stop_signal;

static void on_stop(int sig)
{
	tool_stop_signal = sig;
}

void tool_stop_catch(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int tool_stop_status(int status)
{
	return tool_stop_signal ? 128 + tool_stop_signal : status;
}

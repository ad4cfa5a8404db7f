/* SPDX-License-Identifier: MIT */
/*
 * pmu-overhead's real peers: Linux's libperf and PAPI reading the same three events as the
 * tool's other methods (cycles, INST_RETIRED user-only, INST_RETIRED user+kernel). Built with
 * PMUSER_HAVE_LIBPERF / PMUSER_HAVE_PAPI where the libraries are at hand; without them the
 * openers say so.
 */
#ifndef PMUSER_OVH_PEERS_H
#define PMUSER_OVH_PEERS_H

#include <stddef.h>

struct ovh_peer;

/* Opens the three events through the peer for the calling thread, or NULL with why. */
struct ovh_peer *ovh_libperf_open(char *why, size_t len);
struct ovh_peer *ovh_papi_open(char *why, size_t len);
/* One read of all three events through the peer's own read call. */
void ovh_peer_read(void *peer);
unsigned int ovh_peer_counters(const struct ovh_peer *p);
/* The peer's version and read path, for the table. */
const char *ovh_peer_detail(const struct ovh_peer *p);
void ovh_peer_close(struct ovh_peer *p);

#endif /* PMUSER_OVH_PEERS_H */

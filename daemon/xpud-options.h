/* SPDX-License-Identifier: Apache-2.0 */
/* xpud's command line: parsing only. Silent: a bad
 * option comes back as -EINVAL with one line naming the option and the fix in the caller's
 * buffer; main.c prints it and exits 2. User and group names are resolved here (NSS), so a typo
 * fails at start, not at the first request. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>

#define XPUD_SOCKET_DEFAULT "/run/xpud/xpud.sock"
#define XPUD_INTERVAL_DEFAULT_S 10u
#define XPUD_INTERVAL_MAX_S 86400u
#define XPUD_VENDOR_TIMEOUT_DEFAULT_S 10u
/* Entries of one --allow-uid / --allow-gid list (each option may be repeated; lists add up). */
#define XPUD_ALLOW_MAX 64
/* Longest ADDR:PORT accepted by --listen-tcp ("[" IPv6 "]:" port). */
#define XPUD_TCP_ADDR_MAX 64

enum xpud_action {
        XPUD_ACTION_RUN = 0,
        XPUD_ACTION_HELP,
        XPUD_ACTION_VERSION,
        XPUD_ACTION_QUERY, /* `xpud query`: a client of the socket (query.h) */
};

struct xpud_options {
        enum xpud_action action;
        const char *socket_path;   /* --socket (default XPUD_SOCKET_DEFAULT); points into argv */
        bool tcp;                  /* --listen-tcp given */
        struct sockaddr_storage tcp_addr; /* AF_INET or AF_INET6 address and port (network order) */
        socklen_t tcp_addr_len;
        char tcp_text[XPUD_TCP_ADDR_MAX]; /* the option's text, for messages */
        unsigned interval_s;       /* --interval, seconds, 1..XPUD_INTERVAL_MAX_S (default 10) */
        unsigned vendor_timeout_s; /* --vendor-timeout, seconds, 1..XPU_VENDOR_TIMEOUT_S_MAX (default 10) */
        uid_t allow_uids[XPUD_ALLOW_MAX]; /* --allow-uid, resolved (getpwnam_r) */
        size_t n_allow_uids;
        gid_t allow_gids[XPUD_ALLOW_MAX]; /* --allow-gid, resolved (getgrnam_r) */
        size_t n_allow_gids;
        const char *nfd_file;      /* --nfd-file or NULL */
        const char *cdi_dir;       /* --cdi-dir or NULL (absolute) */
        const char *cdi_host_root; /* --cdi-host-root or NULL (absolute) */
        const char *kmsg;          /* --kmsg: the kernel log (default XPUD_KMSG_DEFAULT), NULL for "none" */
        bool kmsg_set;             /* --kmsg given: a log that cannot be opened is an error, not a note */
        const char *sys_root;      /* --sys-root or NULL ("/") */
        const char *dev_root;      /* --dev-root or NULL ("/") */
        const char *driver_root;   /* --driver-root or NULL (as xpuinit picks it) */
        bool user_set;             /* --user given */
        char user[64];             /* --user's name as in the passwd entry (for initgroups) */
        uid_t user_uid;            /* its uid and primary gid (getpwnam_r / getpwuid_r) */
        gid_t user_gid;
        int log_level;             /* enum xpu_log_level from -v/--log-level; -1 = not given */
        const char *query_path;    /* `xpud query [PATH]`: the endpoint (default XPUD_QUERY_DEFAULT) */
        const char *pod_resources; /* --pod-resources: the kubelet's socket, "none", or NULL (the default
                                    * when it exists; workloads.h) */
        const char *cdi_spec_dirs; /* --cdi-spec-dirs: comma-separated absolute directories, or NULL
                                    * (XPUD_CDI_SPEC_DIRS_DEFAULT) */
        bool workload_labels;      /* --workload-labels */
        bool query_npd;            /* `xpud query --npd[=LEVEL]`: Node Problem Detector's protocol (query.h) */
        bool query_npd_degraded;   /* ... LEVEL "degraded": a degraded GPU is a problem too */
};

/* The kernel log xpud reads driver events from when --kmsg is not given. */
#define XPUD_KMSG_DEFAULT "/dev/kmsg"

/* The endpoint `xpud query` asks when none is given. */
#define XPUD_QUERY_DEFAULT "/v1/health"

/* Parse ARGV into *RET (defaults for what is not given). ARGV's strings must outlive *RET.
 * "xpud query [--socket PATH] [-v] [PATH]" (argv[1] "query") sets XPUD_ACTION_QUERY; PATH must be
 * absolute ("/v1/health"). "--npd[=unhealthy|degraded]" sets query_npd (and query_npd_degraded)
 * and takes no PATH.
 * Returns 0, or -EINVAL with one line in ERR (ERR_SIZE bytes) naming the option and the fix
 * ("--interval: \"0\" is not a whole number of seconds between 1 and 86400"). Uses getopt_long
 * (resets optind). -v raises the level one step (info, then debug). */
int xpud_options_parse(int argc, char **argv, struct xpud_options *ret, char *err, size_t err_size);

/* Parse one comma-separated list of user names or numeric uids ("root,1000,prometheus") into
 * UIDS (at most MAX, after the N already there; *N updated). Names are resolved with
 * getpwnam_r(); numbers need no passwd entry. Returns 0, -EINVAL (empty item, unknown name, the
 * invalid id 4294967295: message in ERR) or -E2BIG (more than MAX). */
int xpud_parse_uid_list(const char *list, uid_t *uids, size_t max, size_t *n, char *err, size_t err_size);
/* The same for group names or numeric gids (getgrnam_r()). */
int xpud_parse_gid_list(const char *list, gid_t *gids, size_t max, size_t *n, char *err, size_t err_size);

/* Parse "A.B.C.D:PORT" or "[IPv6]:PORT" (literal addresses only, port 1..65535) into *SA and
 * *LEN. Returns 0 or -EINVAL. */
int xpud_parse_tcp_address(const char *s, struct sockaddr_storage *sa, socklen_t *len);

/* Print the --help text to F. */
void xpud_options_usage(FILE *f);
/* Print `xpud query --help` to F. */
void xpud_query_usage(FILE *f);

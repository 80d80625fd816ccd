/* SPDX-License-Identifier: Apache-2.0 */
/* xpud's command line (xpud-options.h). */
#include "xpud-options.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/str.h"
#include "rich.h"

void xpud_options_usage(FILE *f) {
        fputs("Usage: xpud [OPTIONS]\n"
              "       xpud query [--socket PATH] [PATH]   print an endpoint's answer (xpud query --help)\n"
              "       xpud query --npd[=degraded]          Node Problem Detector's custom-plugin check\n"
              "Serve the accelerators' inventory, health and metrics over a UNIX socket (HTTP/1.1).\n"
              "\n"
              "  --socket PATH          UNIX socket (default " XPUD_SOCKET_DEFAULT "); ignored when\n"
              "                         systemd passes one (LISTEN_FDS)\n"
              "  --listen-tcp ADDR:PORT also serve /metrics, and nothing else, on TCP (unauthenticated;\n"
              "                         e.g. 127.0.0.1:9400 or [::1]:9400)\n"
              "  --interval SECONDS     time between samples (default 10, at least 1)\n"
              "  --allow-uid LIST       users allowed on the socket (names or numbers, comma-separated;\n"
              "                         root is always allowed)\n"
              "  --allow-gid LIST       groups allowed (the client's primary or supplementary groups)\n"
              "  --nfd-file PATH        write Node Feature Discovery labels there after each sample\n"
              "  --cdi-dir DIR          keep this node's CDI spec (kind xpuinit.dev/gpu) in DIR/xpuinit.json\n"
              "                         (e.g. /var/run/cdi); removed when xpud stops\n"
              "  --cdi-host-root DIR    where the host's / is mounted here (a pod: /host); the spec\n"
              "                         names host paths\n"
              "  --pod-resources PATH|none  the kubelet's pod-resources socket: which pod holds which\n"
              "                         GPU (default /var/lib/kubelet/pod-resources/kubelet.sock when it\n"
              "                         exists)\n"
              "  --cdi-spec-dirs DIR[,DIR...]  CDI specs naming the devices of DRA claims (default\n"
              "                         /etc/cdi,/var/run/cdi; node paths in them under --dev-root)\n"
              "  --workload-labels      namespace, pod and container labels on every device series\n"
              "  --kmsg PATH|none       kernel log to read GPU driver events from (Xid, amdgpu resets\n"
              "                         and RAS; default /dev/kmsg, skipped with a note when unreadable)\n"
              "  --sys-root DIR         prefix for /sys and /proc reads (default /)\n"
              "  --dev-root DIR         prefix of dev/ device nodes (default /)\n"
              "  --driver-root DIR      host driver files (default: first of /run/nvidia/driver, /host, /)\n"
              "  --user NAME            run as NAME after binding the sockets\n"
              "  --vendor-timeout S     bound on each vendor-library call (default 10)\n"
              "  -v, --log-level L      error, warning, info, debug (-v: info, -vv: debug)\n"
              "  --version              print the version\n"
              "  --help                 print this text\n"
              "\n"
              "Endpoints: /healthz /readyz /v1/version /v1/devices /v1/devices/{index|uuid|pci_bus_id}\n"
              "/v1/health /v1/events /metrics. See docs/xpud.md.\n",
              f);
}

/* An id given as a number: all digits, below (id_t)-1 (the "no id" value of setresuid). Returns
 * 1 and *RET, 0 when S is not all digits, -EINVAL when out of range. */
static int parse_id_number(const char *s, uint32_t *ret) {
        if (!*s || strspn(s, "0123456789") != strlen(s))
                return 0;
        uint64_t v;
        if (xpu_parse_u64(s, 10, &v) < 0 || v >= UINT32_MAX)
                return -EINVAL;
        *ret = (uint32_t)v;
        return 1;
}

/* Resolve one item of an --allow-uid/--allow-gid list: a number, else a user (GROUP false) or
 * group name through NSS. Returns 0 and *RET, -EINVAL for a bad number, -ENOENT for an unknown
 * name. */
static int resolve_id(const char *item, bool group, uint32_t *ret) {
        int r = parse_id_number(item, ret);
        if (r != 0)
                return r < 0 ? r : 0;
        char buf[16384]; /* glibc's entries are far smaller; ERANGE would mean "unknown" */
        if (group) {
                struct group g, *res = NULL;
                if (getgrnam_r(item, &g, buf, sizeof buf, &res) != 0 || !res)
                        return -ENOENT;
                *ret = (uint32_t)g.gr_gid;
        } else {
                struct passwd pw, *res = NULL;
                if (getpwnam_r(item, &pw, buf, sizeof buf, &res) != 0 || !res)
                        return -ENOENT;
                *ret = (uint32_t)pw.pw_uid;
        }
        return 0;
}

/* The list parser behind xpud_parse_uid_list()/xpud_parse_gid_list(). */
static int parse_id_list(const char *list, bool group, uint32_t *ids, size_t max, size_t *n, char *err,
                         size_t err_size) {
        const char *opt = group ? "--allow-gid" : "--allow-uid", *what = group ? "group" : "user";
        if (!list || !*list) {
                xpu_format_error(err, err_size, "%s: empty list (give %s names or numbers, comma-separated)", opt,
                                 what);
                return -EINVAL;
        }
        for (const char *p = list;;) {
                size_t len = strcspn(p, ",");
                char item[256];
                if (len == 0 || len >= sizeof item) {
                        xpu_format_error(err, err_size, "%s: empty or overlong item in \"%s\" (give %s names or "
                                         "numbers, comma-separated, no spaces)", opt, list, what);
                        return -EINVAL;
                }
                memcpy(item, p, len);
                item[len] = '\0';
                uint32_t id;
                int r = resolve_id(item, group, &id);
                if (r == -ENOENT && group && strcmp(item, "xpud") == 0) {
                        xpu_format_error(err, err_size, "%s: no group named \"xpud\" (create it: systemd-sysusers "
                                         "$PWD/packaging/systemd/xpud.sysusers in the source tree, or groupadd "
                                         "--system xpud)",
                                         opt);
                        return -EINVAL;
                }
                if (r == -ENOENT) {
                        xpu_format_error(err, err_size, "%s: no %s named \"%s\" (check the name, or give the "
                                         "numeric id)", opt, what, item);
                        return -EINVAL;
                }
                if (r < 0) {
                        xpu_format_error(err, err_size, "%s: \"%s\" is not a valid %s id (0 to 4294967294)", opt,
                                         item, what);
                        return -EINVAL;
                }
                if (*n >= max) {
                        xpu_format_error(err, err_size, "%s: more than %zu entries (allow a group instead)", opt,
                                         max);
                        return -E2BIG;
                }
                ids[(*n)++] = id;
                if (!p[len])
                        return 0;
                p += len + 1;
        }
}

int xpud_parse_uid_list(const char *list, uid_t *uids, size_t max, size_t *n, char *err, size_t err_size) {
        _Static_assert(sizeof(uid_t) == sizeof(uint32_t), "uid_t is 32 bits on Linux");
        return parse_id_list(list, false, (uint32_t *)uids, max, n, err, err_size);
}

int xpud_parse_gid_list(const char *list, gid_t *gids, size_t max, size_t *n, char *err, size_t err_size) {
        _Static_assert(sizeof(gid_t) == sizeof(uint32_t), "gid_t is 32 bits on Linux");
        return parse_id_list(list, true, (uint32_t *)gids, max, n, err, err_size);
}

int xpud_parse_tcp_address(const char *s, struct sockaddr_storage *sa, socklen_t *len) {
        char host[INET6_ADDRSTRLEN + 2];
        const char *colon, *port_s;
        bool v6 = s && s[0] == '[';
        if (!s)
                return -EINVAL;
        if (v6) {
                const char *close = strchr(s, ']');
                if (!close || close[1] != ':' || (size_t)(close - s - 1) >= sizeof host)
                        return -EINVAL;
                memcpy(host, s + 1, (size_t)(close - s - 1));
                host[close - s - 1] = '\0';
                port_s = close + 2;
        } else {
                colon = strrchr(s, ':');
                if (!colon || (size_t)(colon - s) >= sizeof host)
                        return -EINVAL;
                memcpy(host, s, (size_t)(colon - s));
                host[colon - s] = '\0';
                port_s = colon + 1;
        }
        uint64_t port;
        if (strspn(port_s, "0123456789") != strlen(port_s) || xpu_parse_u64(port_s, 10, &port) < 0 || port < 1 ||
            port > 65535)
                return -EINVAL;
        memset(sa, 0, sizeof *sa);
        if (v6) {
                struct sockaddr_in6 *a = (struct sockaddr_in6 *)sa;
                if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
                        return -EINVAL;
                a->sin6_family = AF_INET6;
                a->sin6_port = htons((uint16_t)port);
                *len = sizeof *a;
        } else {
                struct sockaddr_in *a = (struct sockaddr_in *)sa;
                if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
                        return -EINVAL;
                a->sin_family = AF_INET;
                a->sin_port = htons((uint16_t)port);
                *len = sizeof *a;
        }
        return 0;
}

/* Whole seconds between MIN and MAX. */
static int parse_seconds(const char *s, unsigned min, unsigned max, unsigned *ret) {
        uint64_t v;
        if (strspn(s, "0123456789") != strlen(s) || xpu_parse_u64(s, 10, &v) < 0 || v < min || v > max)
                return -EINVAL;
        *ret = (unsigned)v;
        return 0;
}

/* --user NAME (or a numeric uid with a passwd entry): the account xpud switches to. */
static int parse_user(const char *s, struct xpud_options *o, char *err, size_t err_size) {
        char buf[16384];
        struct passwd pw, *res = NULL;
        uint32_t id;
        int r = parse_id_number(s, &id);
        if (r > 0)
                r = getpwuid_r((uid_t)id, &pw, buf, sizeof buf, &res);
        else if (r == 0)
                r = getpwnam_r(s, &pw, buf, sizeof buf, &res);
        if (r != 0 || !res) {
                xpu_format_error(err, err_size, "--user: no user named \"%s\" (create it, e.g. with "
                                 "systemd-sysusers, or give an existing one)", s);
                return -EINVAL;
        }
        if (xpu_strlcpy(o->user, pw.pw_name, sizeof o->user) < 0) {
                xpu_format_error(err, err_size, "--user: the name \"%s\" is longer than %zu bytes", pw.pw_name,
                                 sizeof o->user - 1);
                return -EINVAL;
        }
        o->user_set = true;
        o->user_uid = pw.pw_uid;
        o->user_gid = pw.pw_gid;
        return 0;
}

enum {
        OPT_SOCKET = 0x100,
        OPT_LISTEN_TCP,
        OPT_INTERVAL,
        OPT_ALLOW_UID,
        OPT_ALLOW_GID,
        OPT_NFD_FILE,
        OPT_SYS_ROOT,
        OPT_DEV_ROOT,
        OPT_DRIVER_ROOT,
        OPT_USER,
        OPT_VENDOR_TIMEOUT,
        OPT_CDI_DIR,
        OPT_KMSG,
        OPT_CDI_HOST_ROOT,
        OPT_LOG_LEVEL,
        OPT_POD_RESOURCES,
        OPT_CDI_SPEC_DIRS,
        OPT_WORKLOAD_LABELS,
        OPT_VERSION,
        OPT_HELP,
        OPT_NPD,
};

/* A path option's value: non-empty. */
static int set_path(const char **target, const char *value, const char *opt, char *err, size_t err_size) {
        if (!*value) {
                xpu_format_error(err, err_size, "%s: empty path (give a path or leave the option out)", opt);
                return -EINVAL;
        }
        *target = value;
        return 0;
}

/* --socket's value: a path that fits a UNIX socket address. */
static int set_socket(const char **target, const char *value, char *err, size_t err_size) {
        int r = set_path(target, value, "--socket", err, err_size);
        if (r == 0 && strlen(value) >= sizeof(((struct sockaddr_un *)NULL)->sun_path)) {
                xpu_format_error(err, err_size, "--socket: \"%s\" is longer than %zu bytes (a limit of UNIX "
                                 "sockets); choose a shorter path", value,
                                 sizeof(((struct sockaddr_un *)NULL)->sun_path) - 1);
                r = -EINVAL;
        }
        return r;
}

static int set_log_level(int *target, const char *value, char *err, size_t err_size) {
        int l = xpu_log_level_from_string(value);
        if (l < 0) {
                xpu_format_error(err, err_size, "--log-level: unknown level \"%s\" (use error, warning, info or "
                                 "debug)", value);
                return -EINVAL;
        }
        *target = l;
        return 0;
}

void xpud_query_usage(FILE *f) {
        fputs("Usage: xpud query [--socket PATH] [PATH]\n"
              "       xpud query [--socket PATH] --npd[=unhealthy|degraded]\n"
              "Print the answer of xpud's endpoint PATH (default " XPUD_QUERY_DEFAULT "); exit 0 when it is\n"
              "healthy (HTTP 2xx, and a \"status\" of healthy, ok or ready where the answer has one), else 1.\n"
              "\n"
              "  --socket PATH   xpud's UNIX socket (default " XPUD_SOCKET_DEFAULT ")\n"
              "  --npd[=LEVEL]   Node Problem Detector's custom-plugin protocol: one line of at most 80\n"
              "                  characters naming the worst GPU and its reason; exit 0 when no GPU is\n"
              "                  at LEVEL or worse, 1 when one is, 2 when xpud cannot be reached or\n"
              "                  does not answer (before its first sample). LEVEL: unhealthy (the\n"
              "                  default) or degraded\n"
              "  --help          print this text\n"
              "\n"
              "e.g. xpud query /readyz (a readiness probe), xpud query /metrics, xpud query /v1/devices/0\n",
              f);
}

/* ARGV after "query": [--socket PATH] [PATH]. */
static int parse_query(int argc, char **argv, struct xpud_options *o, char *err, size_t err_size) {
        static const struct option options[] = {
                { "socket", required_argument, NULL, OPT_SOCKET },
                { "log-level", required_argument, NULL, OPT_LOG_LEVEL },
                { "help", no_argument, NULL, OPT_HELP },
                { "npd", optional_argument, NULL, OPT_NPD },
                {},
        };
        o->action = XPUD_ACTION_QUERY;
        o->query_path = XPUD_QUERY_DEFAULT;
        opterr = 0;
        optind = 0;
        for (;;) {
                int c = getopt_long(argc, argv, "+:vh", options, NULL);
                if (c == -1)
                        break;
                int r = 0;
                switch (c) {
                case OPT_SOCKET:
                        r = set_socket(&o->socket_path, optarg, err, err_size);
                        break;
                case OPT_LOG_LEVEL:
                        r = set_log_level(&o->log_level, optarg, err, err_size);
                        break;
                case 'v':
                        o->log_level = o->log_level < XPU_LOG_INFO ? XPU_LOG_INFO : XPU_LOG_DEBUG;
                        break;
                case 'h':
                case OPT_HELP:
                        o->action = XPUD_ACTION_HELP;
                        break;
                case OPT_NPD:
                        o->query_npd = true;
                        if (!optarg || strcmp(optarg, "unhealthy") == 0)
                                o->query_npd_degraded = false;
                        else if (strcmp(optarg, "degraded") == 0)
                                o->query_npd_degraded = true;
                        else {
                                xpu_format_error(err, err_size, "--npd: unknown level \"%.64s\" (use --npd, "
                                                 "--npd=unhealthy or --npd=degraded)", optarg);
                                return -EINVAL;
                        }
                        break;
                case ':':
                        xpu_format_error(err, err_size, "option %s needs a value; see xpud query --help",
                                         argv[optind - 1]);
                        return -EINVAL;
                case '?':
                default:
                        xpu_format_error(err, err_size, "unknown option \"%s\" of xpud query; see xpud query --help",
                                         argv[optind - 1]);
                        return -EINVAL;
                }
                if (r < 0)
                        return -EINVAL;
        }
        if (optind < argc && o->query_npd) {
                xpu_format_error(err, err_size, "xpud query --npd: unexpected argument \"%.64s\" (--npd reads "
                                 "/v1/health itself; give the level as --npd=degraded)", argv[optind]);
                return -EINVAL;
        }
        if (optind < argc) {
                const char *p = argv[optind];
                if (p[0] != '/' || strpbrk(p, " \t\r\n") || strlen(p) > 512) {
                        xpu_format_error(err, err_size, "xpud query: \"%.64s\" is not an endpoint path (give one "
                                         "that starts with /, e.g. /v1/health or /metrics)", p);
                        return -EINVAL;
                }
                o->query_path = p;
                optind++;
        }
        if (optind < argc) {
                xpu_format_error(err, err_size, "xpud query: unexpected argument \"%s\" (one PATH at most; see "
                                 "xpud query --help)", argv[optind]);
                return -EINVAL;
        }
        return 0;
}

/* --cdi-spec-dirs: 1 to 8 absolute directories, comma-separated, none empty. Returns 0 or -EINVAL. */
static int check_dir_list(const char *list, char *err, size_t err_size) {
        size_t n = 0;
        for (const char *p = list;; n++) {
                size_t len = strcspn(p, ",");
                if (len == 0 || p[0] != '/' || len >= PATH_MAX || n == 8) {
                        xpu_format_error(err, err_size, "--cdi-spec-dirs: \"%s\" %s", list,
                                         n == 8 ? "names more than 8 directories"
                                                : "is not a comma-separated list of absolute directories (give e.g. "
                                                  "/etc/cdi,/var/run/cdi)");
                        return -EINVAL;
                }
                if (!p[len])
                        return 0;
                p += len + 1;
        }
}

int xpud_options_parse(int argc, char **argv, struct xpud_options *ret, char *err, size_t err_size) {
        static const struct option options[] = {
                { "socket", required_argument, NULL, OPT_SOCKET },
                { "listen-tcp", required_argument, NULL, OPT_LISTEN_TCP },
                { "interval", required_argument, NULL, OPT_INTERVAL },
                { "allow-uid", required_argument, NULL, OPT_ALLOW_UID },
                { "allow-gid", required_argument, NULL, OPT_ALLOW_GID },
                { "nfd-file", required_argument, NULL, OPT_NFD_FILE },
                { "cdi-dir", required_argument, NULL, OPT_CDI_DIR },
                { "kmsg", required_argument, NULL, OPT_KMSG },
                { "cdi-host-root", required_argument, NULL, OPT_CDI_HOST_ROOT },
                { "sys-root", required_argument, NULL, OPT_SYS_ROOT },
                { "dev-root", required_argument, NULL, OPT_DEV_ROOT },
                { "driver-root", required_argument, NULL, OPT_DRIVER_ROOT },
                { "user", required_argument, NULL, OPT_USER },
                { "vendor-timeout", required_argument, NULL, OPT_VENDOR_TIMEOUT },
                { "log-level", required_argument, NULL, OPT_LOG_LEVEL },
                { "pod-resources", required_argument, NULL, OPT_POD_RESOURCES },
                { "cdi-spec-dirs", required_argument, NULL, OPT_CDI_SPEC_DIRS },
                { "workload-labels", no_argument, NULL, OPT_WORKLOAD_LABELS },
                { "version", no_argument, NULL, OPT_VERSION },
                { "help", no_argument, NULL, OPT_HELP },
                {},
        };
        struct xpud_options o = {
                .action = XPUD_ACTION_RUN,
                .socket_path = XPUD_SOCKET_DEFAULT,
                .interval_s = XPUD_INTERVAL_DEFAULT_S,
                .vendor_timeout_s = XPUD_VENDOR_TIMEOUT_DEFAULT_S,
                .kmsg = XPUD_KMSG_DEFAULT,
                .log_level = -1,
        };
        if (argc > 1 && strcmp(argv[1], "query") == 0) {
                if (parse_query(argc - 1, argv + 1, &o, err, err_size) < 0)
                        return -EINVAL;
                *ret = o;
                return 0;
        }
        int r = 0;
        opterr = 0;
        optind = 0; /* 0: getopt re-initialises (several parses in one process: the tests) */
        for (;;) {
                int c = getopt_long(argc, argv, ":vh", options, NULL);
                if (c == -1)
                        break;
                switch (c) {
                case OPT_SOCKET:
                        r = set_socket(&o.socket_path, optarg, err, err_size);
                        break;
                case OPT_LISTEN_TCP:
                        if (o.tcp) {
                                xpu_format_error(err, err_size, "--listen-tcp: given twice (\"%s\" and \"%s\"); xpud "
                                                 "serves one TCP address", o.tcp_text, optarg);
                                r = -EINVAL;
                                break;
                        }
                        if (xpud_parse_tcp_address(optarg, &o.tcp_addr, &o.tcp_addr_len) < 0 ||
                            xpu_strlcpy(o.tcp_text, optarg, sizeof o.tcp_text) < 0) {
                                xpu_format_error(err, err_size, "--listen-tcp: \"%s\" is not ADDR:PORT with a literal "
                                                 "address (e.g. 127.0.0.1:9400 or [::1]:9400) and a port 1-65535",
                                                 optarg);
                                r = -EINVAL;
                        }
                        o.tcp = r == 0;
                        break;
                case OPT_INTERVAL:
                        if (parse_seconds(optarg, 1, XPUD_INTERVAL_MAX_S, &o.interval_s) < 0) {
                                xpu_format_error(err, err_size, "--interval: \"%s\" is not a whole number of seconds "
                                                 "between 1 and %u", optarg, XPUD_INTERVAL_MAX_S);
                                r = -EINVAL;
                        }
                        break;
                case OPT_VENDOR_TIMEOUT:
                        if (parse_seconds(optarg, 1, XPU_VENDOR_TIMEOUT_S_MAX, &o.vendor_timeout_s) < 0) {
                                xpu_format_error(err, err_size, "--vendor-timeout: \"%s\" is not a whole number of "
                                                 "seconds between 1 and %u", optarg, XPU_VENDOR_TIMEOUT_S_MAX);
                                r = -EINVAL;
                        }
                        break;
                case OPT_ALLOW_UID:
                        r = xpud_parse_uid_list(optarg, o.allow_uids, XPUD_ALLOW_MAX, &o.n_allow_uids, err, err_size);
                        break;
                case OPT_ALLOW_GID:
                        r = xpud_parse_gid_list(optarg, o.allow_gids, XPUD_ALLOW_MAX, &o.n_allow_gids, err, err_size);
                        break;
                case OPT_NFD_FILE: {
                        const char *slash = strrchr(optarg, '/'), *name = slash ? slash + 1 : optarg;
                        r = set_path(&o.nfd_file, optarg, "--nfd-file", err, err_size);
                        if (r == 0 && (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
                                       strlen(name) + 2 > 256)) {
                                xpu_format_error(err, err_size, "--nfd-file: \"%s\" does not end in a file name "
                                                 "(give a file, e.g. /etc/kubernetes/node-feature-discovery/"
                                                 "features.d/xpud)", optarg);
                                r = -EINVAL;
                        }
                        break;
                }
                case OPT_KMSG:
                        r = set_path(&o.kmsg, optarg, "--kmsg", err, err_size);
                        o.kmsg_set = true;
                        if (r == 0 && strcmp(optarg, "none") == 0)
                                o.kmsg = NULL;
                        break;
                case OPT_CDI_DIR:
                case OPT_CDI_HOST_ROOT: {
                        const char *opt = c == OPT_CDI_DIR ? "--cdi-dir" : "--cdi-host-root";
                        r = set_path(c == OPT_CDI_DIR ? &o.cdi_dir : &o.cdi_host_root, optarg, opt, err, err_size);
                        if (r == 0 && (optarg[0] != '/' || strlen(optarg) > PATH_MAX - 64)) {
                                xpu_format_error(err, err_size, "%s: \"%s\" is not an absolute path (give one, e.g. "
                                                 "%s)", opt, optarg, c == OPT_CDI_DIR ? "/var/run/cdi" : "/host");
                                r = -EINVAL;
                        }
                        break;
                }
                case OPT_POD_RESOURCES:
                        r = set_path(&o.pod_resources, optarg, "--pod-resources", err, err_size);
                        if (r == 0 && optarg[0] != '/' && strcmp(optarg, "none") != 0) {
                                xpu_format_error(err, err_size, "--pod-resources: \"%s\" is neither an absolute "
                                                 "path nor none (give e.g. /var/lib/kubelet/pod-resources/"
                                                 "kubelet.sock)", optarg);
                                r = -EINVAL;
                        } else if (r == 0 && strlen(optarg) >= sizeof(((struct sockaddr_un *)NULL)->sun_path)) {
                                xpu_format_error(err, err_size, "--pod-resources: \"%s\" is longer than %zu bytes "
                                                 "(a limit of UNIX sockets)", optarg,
                                                 sizeof(((struct sockaddr_un *)NULL)->sun_path) - 1);
                                r = -EINVAL;
                        }
                        break;
                case OPT_CDI_SPEC_DIRS:
                        r = check_dir_list(optarg, err, err_size);
                        if (r == 0)
                                o.cdi_spec_dirs = optarg;
                        break;
                case OPT_WORKLOAD_LABELS:
                        o.workload_labels = true;
                        break;
                case OPT_SYS_ROOT:
                        r = set_path(&o.sys_root, optarg, "--sys-root", err, err_size);
                        break;
                case OPT_DEV_ROOT:
                        r = set_path(&o.dev_root, optarg, "--dev-root", err, err_size);
                        break;
                case OPT_DRIVER_ROOT:
                        r = set_path(&o.driver_root, optarg, "--driver-root", err, err_size);
                        break;
                case OPT_USER:
                        r = parse_user(optarg, &o, err, err_size);
                        break;
                case OPT_LOG_LEVEL:
                        r = set_log_level(&o.log_level, optarg, err, err_size);
                        break;
                case 'v':
                        o.log_level = o.log_level < XPU_LOG_INFO ? XPU_LOG_INFO : XPU_LOG_DEBUG;
                        break;
                case 'h':
                case OPT_HELP:
                        o.action = XPUD_ACTION_HELP;
                        break;
                case OPT_VERSION:
                        o.action = XPUD_ACTION_VERSION;
                        break;
                case ':':
                        xpu_format_error(err, err_size, "option %s needs a value; see xpud --help", argv[optind - 1]);
                        r = -EINVAL;
                        break;
                case '?':
                default:
                        xpu_format_error(err, err_size, "unknown option \"%s\"; see xpud --help", argv[optind - 1]);
                        r = -EINVAL;
                        break;
                }
                if (r < 0)
                        return -EINVAL;
        }
        if (optind < argc) {
                xpu_format_error(err, err_size, "unexpected argument \"%s\" (xpud takes options only; see xpud "
                                 "--help)", argv[optind]);
                return -EINVAL;
        }
        if (o.cdi_host_root && !o.cdi_dir) {
                xpu_format_error(err, err_size, "--cdi-host-root goes with --cdi-dir (it says how the spec names host "
                                 "paths)");
                return -EINVAL;
        }
        *ret = o;
        return 0;
}

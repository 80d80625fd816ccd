/* SPDX-License-Identifier: Apache-2.0 */
/* The device node, the one type the vendor-neutral device model and the vendors' own facts
 * (probes/<vendor>/<vendor>-facts.h) share. Plain data. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* A character device node a workload needs. */
struct xpu_devnode {
        char path[64];  /* absolute container path, also its place under the dev root: "/dev/nvidia0" */
        uint32_t major; /* valid when have_major */
        uint32_t minor;
        bool have_major; /* false when a dynamic major was not found in /proc/devices */
        bool present;    /* found under the dev root as a character device */
        bool optional;   /* a workload can run without it (nvidia-uvm-tools, nvidia-modeset) */
        bool any_number; /* major and minor unknown (a Jetson's dynamic nodes): only a character device */
};

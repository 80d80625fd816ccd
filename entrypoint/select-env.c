/* SPDX-License-Identifier: Apache-2.0 */
/* The selection's variables from the environment: see xpu_selection_env_read() in select.h. */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/macro.h"
#include "select.h"

void xpu_selection_env_read(const struct xpu_inventory *inv, struct xpu_selection_env *env) {
        /* A vendor's own variable means nothing on a host without that vendor's driver: one image
         * for both vendors may carry both variables. The CDI mark is the variable the vendor's CDI
         * spec sets beside the devices and driver files it gives (select.h): */
        static const struct {
                enum xpu_vendor vendor;
                const char *name;
                const char *cdi_mark;       /* variable set by the vendor's CDI specs */
                const char *cdi_mark_value; /* the value it must have, NULL: any non-empty one */
                bool cdi_mark_is_libdir;    /* its value is where CDI mounted the libraries */
        } vendor_vars[] = {
                /* nvidia-ctk cdi generate, the device plugin's CDI modes and the DRA driver (all
                 * NVIDIA's nvcdi library): NVIDIA_VISIBLE_DEVICES=void and the directory that holds
                 * the mounted libcuda (NVIDIA/nvidia-container-toolkit pkg/nvcdi/wrapper.go,
                 * GetCommonEdits). */
                { XPU_VENDOR_NVIDIA, "NVIDIA_VISIBLE_DEVICES", "NVIDIA_CTK_LIBCUDA_DIR", NULL, true },
                /* AMD's DRA driver's common edits (ROCm/k8s-gpu-dra-driver cmd/gpu-kubeletplugin/cdi.go);
                 * amd-ctk's spec sets
                 * no variable at all, and AMD_VISIBLE_DEVICES unset takes the given nodes anyway. */
                { XPU_VENDOR_AMD, "AMD_VISIBLE_DEVICES", "DRA_RESOURCE_DRIVER_NAME", "gpu.amd.com", false },
        };
        *env = (struct xpu_selection_env){
                .xpu_visible = secure_getenv("XPU_VISIBLE_DEVICES"),
                .mig_config = secure_getenv("NVIDIA_MIG_CONFIG_DEVICES"),
                .mig_monitor = secure_getenv("NVIDIA_MIG_MONITOR_DEVICES"),
        };
        for (size_t i = 0; i < ELEMENTSOF(vendor_vars); i++) {
                enum xpu_vendor v = vendor_vars[i].vendor;
                const char *value = secure_getenv(vendor_vars[i].name);
                if (xpu_inventory_count(inv, v) == 0 && !inv->vendors[v].driver_loaded) {
                        if (value)
                                log_info("%s=%s ignored: no %s driver on this host", vendor_vars[i].name, value,
                                         xpu_vendor_to_string(v));
                        continue;
                }
                env->visible[v] = value;
                const char *mark = secure_getenv(vendor_vars[i].cdi_mark);
                if (mark && *mark && (!vendor_vars[i].cdi_mark_value || strcmp(mark, vendor_vars[i].cdi_mark_value) == 0)) {
                        env->cdi_mark[v] = vendor_vars[i].cdi_mark;
                        env->cdi_libdir[v] = vendor_vars[i].cdi_mark_is_libdir ? mark : NULL;
                        log_debug("%s=%s: the container was made from %s's CDI spec", vendor_vars[i].cdi_mark, mark,
                                  xpu_vendor_to_string(v));
                }
        }
}

/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA's vendor descriptor (vendor.h): what each step of a start, `cdi generate` and xpud take
 * from NVIDIA — its fast path (nvidia.c), rich readers (NVML, CUDA), views, MIG, requirements,
 * injection, device-code targets, readings, Kubernetes names, WSL2, a Jetson's host lists, fabric
 * sets and kernel-log rules — as data and hooks, with the source of each fact. */
#include "nvidia/nvidia.h"
#include "nvidia/nvidia-tegra.h" /* and nvidia-csv.h */
#include "nvidia/nvidia-cuda.h"
#include "nvidia/nvidia-nvml.h"
#include "cdi-spec.h"
#include "devcode/libraries.h"
#include "rich.h"
#include "vendor.h"
#include "base/str.h"


/* What `xpuinit cdi generate` gives with every NVIDIA GPU besides its nodes (vendor.h). */
static const char *const nvidia_libraries[] = {
        /* The running driver's libraries: libcuda, libcudadebugger, every libnv* (libnvidia-ml,
         * libnvidia-ptxjitcompiler, libnvcuvid, libnvoptix, ...) and the GL/EGL/Vulkan vendor
         * libraries named *_nvidia (libGLX_nvidia, libEGL_nvidia, libvdpau_nvidia, ...). */
        "libcuda.so", "libcudadebugger.so", "libnv*.so", "lib*_nvidia.so", NULL,
};
static const char *const nvidia_programs[] = {
        "nvidia-smi", "nvidia-debugdump", "nvidia-persistenced", "nvidia-cuda-mps-control", "nvidia-cuda-mps-server",
        NULL,
};
static const char *const nvidia_files[] = {
        /* what the nvidia-cuda profile's "files" name, for every capability at once */
        "/lib/firmware/nvidia/${DRIVER_VERSION}/gsp*.bin",
        "/run/nvidia-persistenced/socket",
        "/run/nvidia-fabricmanager/socket",
        "/tmp/nvidia-mps",
        "/usr/share/glvnd/egl_vendor.d/10_nvidia.json",
        "/etc/glvnd/egl_vendor.d/10_nvidia.json",
        "/usr/share/egl/egl_external_platform.d/*nvidia*.json",
        "/usr/share/vulkan/icd.d/nvidia_icd*.json",
        "/etc/vulkan/icd.d/nvidia_icd*.json",
        "/usr/share/vulkan/implicit_layer.d/nvidia_layers.json",
        "/etc/vulkan/implicit_layer.d/nvidia_layers.json",
        "/usr/lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so.${DRIVER_VERSION}",
        "/usr/lib64/vdpau/libvdpau_nvidia.so.${DRIVER_VERSION}",
        "/usr/lib/xorg/modules/drivers/nvidia_drv.so",
        "/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so.${DRIVER_VERSION}",
        "/usr/lib/nvidia/xorg/nvidia_drv.so",
        "/usr/lib/nvidia/xorg/libglxserver_nvidia.so.${DRIVER_VERSION}",
        NULL,
};
static const char *const nvidia_env[] = {
        "XPUINIT_DRIVER_ROOT=" XPU_CDI_DRIVER_ROOT,
        /* NVIDIA's runtime hook, where the engine has one, does nothing for "void". */
        "NVIDIA_VISIBLE_DEVICES=void",
        NULL,
};

static const struct xpu_vendor_cdi nvidia_cdi = {
        .libraries = nvidia_libraries, .programs = nvidia_programs, .files = nvidia_files, .env = nvidia_env
};

static void nvidia_code_target(const struct xpu_device *d, char *spec, size_t size) {
        xpu_strlcpy(spec, xpu_nvidia_facts(d)->compute_capability, size); /* "9.0": a --for spelling */
}

static const char *nvidia_partition(const struct xpu_device *d) {
        if (!(d->have & XPU_HAVE_MIG_MODE))
                return NULL;
        return xpu_nvidia_facts(d)->mig_enabled ? "mig" : "none";
}


static const struct xpu_rich_ops *const nvidia_rich[] = {
        &xpu_rich_nvml, /* NVML first: the fullest view of an NVIDIA GPU */
        &xpu_rich_cuda, /* then what an image's CUDA runtime will see */
        NULL,
};

/* The per-device requirement keys of the NVIDIA Container Toolkit's grammar. */
static const struct xpu_fact_label nvidia_require_facts[] = {
        { "arch", XPU_NVIDIA_FACT(compute_capability) }, /* "9.0": NVML, CUDA */
        { "brand", XPU_NVIDIA_FACT(brand) },             /* "Tesla": NVML */
        { "l4t", XPU_NVIDIA_FACT(l4t_release) },         /* "36.4.3": a Jetson's fast path */
        { NULL, 0 },
};

static const struct xpu_fact_label nvidia_info_labels[] = {
        { "brand", XPU_NVIDIA_FACT(brand) },                           /* NVML */
        { "compute_capability", XPU_NVIDIA_FACT(compute_capability) }, /* NVML, CUDA */
        { "vbios_version", XPU_NVIDIA_FACT(vbios_version) },           /* procfs */
        { "memory_numa_node", XPU_NVIDIA_FACT(memory_numa_label) },    /* sysfs, NVML */
        { "memory_coherent", XPU_NVIDIA_FACT(memory_coherent) },       /* sysfs, NVML */
        { "addressing_mode", XPU_NVIDIA_FACT(addressing_mode) },       /* NVML */
        { NULL, 0 },
};

/* The directory of D's MIG capabilities below /proc/driver/nvidia/capabilities: gpu<minor>, the
 * minor procfs gave (the descriptor's mig.caps_gpu). */
static void nvidia_mig_caps_gpu(const struct xpu_device *d, char *buf, size_t size) {
        if (d->have & XPU_HAVE_MINOR)
                snprintf(buf, size, "gpu%u", xpu_nvidia_facts(d)->minor);
        else
                snprintf(buf, size, "gpu<minor>");
}

extern const struct xpu_fabric_set *const xpu_nvidia_fabric[]; /* nvidia-fabric.c: its fabric sets */
extern const struct xpu_fabric_alias xpu_nvidia_fabric_aliases[]; /* and its toolkit's names of the neutral ones */
const struct xpu_vendor_ops xpu_vendor_nvidia = {
        .vendor = XPU_VENDOR_NVIDIA,
        .name = "nvidia",
        .display_name = "NVIDIA",
        /* The NVIDIA Container Toolkit's docs/ and internal/config/image/; its CDI specs (nvidia-ctk
         * cdi generate, the device plugin's CDI modes and the DRA driver, all NVIDIA's nvcdi
         * library) set NVIDIA_VISIBLE_DEVICES=void and NVIDIA_CTK_LIBCUDA_DIR, the directory that
         * holds the mounted libcuda (pkg/nvcdi/wrapper.go, GetCommonEdits). */
        .visibility = { .variable = "NVIDIA_VISIBLE_DEVICES",
                        .cdi_kind = "nvidia.com/gpu",
                        .cdi_mark = "NVIDIA_CTK_LIBCUDA_DIR",
                        .cdi_mark_is_libdir = true },
        .probe = { .fast = xpu_nvidia_probe, .rich = nvidia_rich, .cuda_driver = true,
                   .driver_root = xpu_nvidia_tegra_driver_root /* a Jetson's L4T release */ },
        .view = { .facts_json = xpu_nvidia_facts_json,
                  .facts_text = xpu_nvidia_facts_text,
                  .subdevices_text = xpu_nvidia_subdevices_text,
                  .partition = nvidia_partition,
                  .info_labels = nvidia_info_labels },
        /* The NVIDIA Container Toolkit's MIG variables (docs: "Possible values: all") and the
         * driver's capability directory, /proc/driver/nvidia/capabilities/gpu<minor>/mig. */
        .mig = { .devices = xpu_nvidia_mig,
                 .rich_uuids = true,
                 .config_variable = "NVIDIA_MIG_CONFIG_DEVICES",
                 .monitor_variable = "NVIDIA_MIG_MONITOR_DEVICES",
                 .proc_dir = "/proc/driver/nvidia",
                 .caps_dir = "/proc/driver/nvidia/capabilities",
                 .caps_gpu = nvidia_mig_caps_gpu },
        .require = { .facts = nvidia_require_facts,
                     /* an image's cuda-compat libraries (the profile's forward_compat) run on an older driver */
                     .advice = "update the driver or use CUDA forward compatibility",
                     .env_prefix = "NVIDIA_REQUIRE_",
                     .env_disable = "NVIDIA_DISABLE_REQUIRE",
                     .env_skip = xpu_nvidia_require_skip },
        /* the NVIDIA Container Toolkit's capability variable (docs/: "driver capabilities") */
        .plan = { .cdi = &nvidia_cdi, .capabilities_variable = "NVIDIA_DRIVER_CAPABILITIES",
                  .host_list = xpu_nvidia_csv_host_list /* a Jetson's CSV files */ },
        .code = { .vendor = XPU_CODE_VENDOR_NVIDIA,
                  .target_name = "compute capability",
                  .target = nvidia_code_target,
                  /* procfs has no compute capability: NVML or the CUDA driver API gives it */
                  .target_sources = (1u << XPU_SOURCE_NVML) | (1u << XPU_SOURCE_CUDA) },
        .readings = &xpu_readings_nvml,
        .k8s = &xpu_k8s_nvidia,
        .wsl = &xpu_wsl_nvidia,
        .kernel_log = xpu_nvidia_kernel_log,
        .fabric = xpu_nvidia_fabric,
        .fabric_aliases = xpu_nvidia_fabric_aliases,
};

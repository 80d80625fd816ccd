/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML reader, helper side: the functions the isolated helper child runs (nvidia-nvml.c
 * starts them through probes/sandbox/; nvidia-nvml.h describes the read). They dlopen
 * libnvidia-ml from the job's driver root (sandbox/helper-job.h), call NVML and answer in the
 * wire format described at the top of nvidia-nvml-parse.c. Never called in the parent. */
#pragma once

#include <stdbool.h>

#include "sandbox/helper-job.h"

/* What an NVIDIA reader's helper (NVML, the CUDA driver API) is handed: the shared frame, and on
 * WSL2 the folders its library is looked for in (no kernel module there to check a file name's
 * version against; nvidia-nvml.h, struct xpu_nvidia_lib). */
struct xpu_nvidia_job {
        struct xpu_helper_job base; /* first: the helper gets a pointer to it */
        bool wsl;
        char dirs[2][192]; /* WSL2: /usr/lib/wsl/lib, then the driver store folder ("" none) */
};

/* Helper side: the folders of JOB as xpu_helper_job_load()'s EXTRA_DIRS into LIST (NULL-terminated),
 * or NULL when JOB is no WSL2 job. */
const char *const *xpu_nvidia_job_dirs(const struct xpu_nvidia_job *job, const char *list[3]);

/* The one-shot helper of xpu_nvml_read() (an xpu_isolate_fn): load the library of JOB (a struct
 * xpu_nvidia_job), nvmlInit_v2, read the system and every device, nvmlShutdown; one reply on
 * OUT_FD, an "error ERRNO TEXT" line when loading, init or a required call fails. Returns the
 * helper's exit status. */
int xpu_nvml_helper(void *job, int out_fd);

/* The session helper of struct xpu_nvml_session (an xpu_isolate_session_fn): load and
 * nvmlInit_v2 once, then one framed reply (the text xpu_nvml_helper() sends) per "sample"
 * request read from FD, until the parent closes the session; then nvmlShutdown. A failed load or
 * init is answered at once and ends the helper; another request is answered with an error.
 * Returns the helper's exit status. */
int xpu_nvml_session_helper(void *job, int fd);

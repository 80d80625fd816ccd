/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML reader, helper side: the functions the isolated helper child runs (nvidia-nvml.c
 * starts them through probes/sandbox/; nvidia-nvml.h describes the read). They dlopen
 * libnvidia-ml from the job's driver root (sandbox/helper-job.h), call NVML and answer in the
 * wire format described at the top of nvidia-nvml-parse.c. Never called in the parent. */
#pragma once

/* The one-shot helper of xpu_nvml_read() (an xpu_isolate_fn): load the library of JOB (a struct
 * xpu_helper_job), nvmlInit_v2, read the system and every device, nvmlShutdown; one reply on
 * OUT_FD, an "error ERRNO TEXT" line when loading, init or a required call fails. Returns the
 * helper's exit status. */
int xpu_nvml_helper(void *job, int out_fd);

/* The session helper of struct xpu_nvml_session (an xpu_isolate_session_fn): load and
 * nvmlInit_v2 once, then one framed reply (the text xpu_nvml_helper() sends) per "sample"
 * request read from FD, until the parent closes the session; then nvmlShutdown. A failed load or
 * init is answered at once and ends the helper; another request is answered with an error.
 * Returns the helper's exit status. */
int xpu_nvml_session_helper(void *job, int fd);

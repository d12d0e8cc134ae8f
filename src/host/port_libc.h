/* port_libc.h — the core's environment on a host with libc. */
#ifndef DC_PORT_LIBC_H
#define DC_PORT_LIBC_H

#include "core/port.h"

/* malloc/free; the labels are ignored.  The env is static and shared. */
const struct dc_env *dc_env_libc(void);

#endif

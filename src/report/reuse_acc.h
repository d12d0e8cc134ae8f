/* reuse_acc.h — dcprof reuse --accuracy: how close the converted and the
 * sampled histograms come to the exact ones (seeds/003 §V.A, Fig. 5). */
#ifndef DC_REPORT_REUSE_ACC_H
#define DC_REPORT_REUSE_ACC_H

#include "report/header.h"
#include "report/render.h"
#include "store/rhist.h"

/* Prints the comparison of object's histograms (NULL: the whole program)
 * in format; on error err holds the whole message. */
int reuse_accuracy(struct profile *p, const struct header *h, const struct reuse_info *ri,
		   const char *object, enum out_format format, char *err, size_t errlen);

#endif

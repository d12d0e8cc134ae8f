/* cli.h — the dcprof subcommands (one file each: cmd_<name>.c).
 *
 * run gets the command's arguments with argv[0] = the command's name and
 * returns the process exit status.  usage prints the help text listing every
 * option with its default.
 */
#ifndef DC_CLI_CLI_H
#define DC_CLI_CLI_H

#include <stdio.h>

struct cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *f);
};

int cmd_record(int argc, char **argv);
void cmd_record_usage(FILE *f);
int cmd_report(int argc, char **argv);
void cmd_report_usage(FILE *f);
int cmd_annotate(int argc, char **argv);
void cmd_annotate_usage(FILE *f);
int cmd_diff(int argc, char **argv);
void cmd_diff_usage(FILE *f);
int cmd_finalize(int argc, char **argv);
void cmd_finalize_usage(FILE *f);
int cmd_accuracy(int argc, char **argv);
void cmd_accuracy_usage(FILE *f);
int cmd_approx(int argc, char **argv);
void cmd_approx_usage(FILE *f);
int cmd_evictions(int argc, char **argv);
void cmd_evictions_usage(FILE *f);
int cmd_reuse(int argc, char **argv);
void cmd_reuse_usage(FILE *f);
int cmd_export(int argc, char **argv);
void cmd_export_usage(FILE *f);
int cmd_footprint(int argc, char **argv);
void cmd_footprint_usage(FILE *f);
int cmd_mrc(int argc, char **argv);
void cmd_mrc_usage(FILE *f);
int cmd_merge(int argc, char **argv);
void cmd_merge_usage(FILE *f);
int cmd_html(int argc, char **argv);
void cmd_html_usage(FILE *f);

#endif

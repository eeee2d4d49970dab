package main

// The window library (GLFW, started by ebiten's package initialisation)
// panics without a display, before main runs. This C constructor runs
// earlier still, when the program is loaded: it prints the help for -h,
// -help or --help (help_text.h, generated from internal/cli), and without a
// display says how to get one, exiting 2, instead of the panic.

/*
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "help_text.h"

static int lbsim_empty(const char *s) { return s == NULL || *s == 0; }

__attribute__((constructor)) static void lbsim_check_display(int argc, char **argv) {
	for (int i = 1; i < argc && argv != NULL; i++) {
		if (strcmp(argv[i], "--") == 0) {
			break;
		}
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "-help") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(lbsim_help_text, stdout);
			exit(0);
		}
	}
	if (lbsim_empty(getenv("DISPLAY")) && lbsim_empty(getenv("WAYLAND_DISPLAY"))) {
		fputs("lbsim-desktop: no display: DISPLAY is not set, and the window needs one.\n"
			"Run it under a virtual display with `xvfb-run -a bin/lbsim-desktop ...` (make deps installs xvfb),\n"
			"or open the page instead (make serve). `lbsim-desktop --help` lists the flags.\n", stderr);
		exit(2);
	}
}
*/
import "C"

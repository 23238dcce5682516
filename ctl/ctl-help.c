/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>

#include "ctl-help.h"
#include "ctl-suggest.h"

#define ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

static const CtlVerbHelp verbs[] = {
        { "status", "status", "per-CPU idle states, shares, misses, wakeups, the plan (default)",
          "status [--interval DURATION]",
          "The daemon's view: driver, governor, profile, mode, calibration, consolidation,\n"
          "the knobs it changed; per CPU its utilisation, wakeups, the plan in force and why,\n"
          "and a table of its idle states with their shares of the entries and of the time\n"
          "and the share of entries that were too deep or too shallow.\n"
          "\n"
          "Without --interval the rates are the daemon's last tick.  With --interval the\n"
          "shares and misses come from the kernel's counters over that window, and the\n"
          "utilisation and wakeups are the mean of the ticks read in it.\n"
          "\n"
          "      --interval=DURATION  average over DURATION (10s, 500ms, 2min; a number: seconds)\n"
          "      --json               the same as one JSON object\n"
          "\n"
          "  idlepolicyctl status --interval 10s\n" },
        { "idle-info", "idle-info", "every idle state's totals since boot, like cpupower idle-info",
          "idle-info [--cpu LIST]",
          "Per CPU and idle state, the kernel's counters since boot: entries, time, the\n"
          "share of the CPU's idle time spent there, too deep (above), too shallow (below),\n"
          "rejected, with the state's exit latency and target residency.\n"
          "\n"
          "  -c --cpu=LIST  the CPUs (\"0-3,5\" or \"all\", the default: all online CPUs)\n"
          "     --json      the same as one JSON object\n" },
        { "governor", "governor [NAME]", "show the cpuidle governor, or switch to NAME",
          "governor [NAME]",
          "Without NAME, the governor in use and the ones the kernel offers.  With NAME,\n"
          "switch to it (put back when the daemon exits or on 'idlepolicyctl restore').\n" },
        { "state", "state enable|disable STATE", "enable/disable an idle state (by name or index)",
          "state enable|disable STATE [--cpu LIST]",
          "STATE is a name as 'idlepolicyctl status' shows it (quote one with a space:\n"
          "\"haltpoll idle\") or a decimal index.  The daemon journals the original and puts\n"
          "it back on exit, after a crash and on 'idlepolicyctl restore'.\n"
          "\n"
          "  -c --cpu=LIST  the CPUs (\"0-3,5\" or \"all\", the default: all online CPUs)\n"
          "\n"
          "  idlepolicyctl state disable POLL --cpu 1\n" },
        { "resume-latency", "resume-latency USEC|n/a", "set the PM QoS resume latency (0 = no constraint)",
          "resume-latency USEC|n/a [--cpu LIST]",
          "0 removes the constraint, 1..2147483646 allows only states that exit faster than\n"
          "that many microseconds, n/a only states with no exit latency (polling).\n"
          "\n"
          "  -c --cpu=LIST  the CPUs (\"0-3,5\" or \"all\", the default: all online CPUs)\n" },
        { "latency-limit", "latency-limit USEC", "disable the states above USEC exit latency (cpupower idle-set -D)",
          "latency-limit USEC [--cpu LIST]",
          "Disables, on the CPUs of --cpu, every idle state whose exit latency is above USEC\n"
          "microseconds (exactly USEC stays enabled) and enables the others, as 'cpupower\n"
          "idle-set -D USEC' does, then shows per CPU the states enabled and disabled; put\n"
          "back like every knob (exit, crash, 'idlepolicyctl restore').\n"
          "\n"
          "  -c --cpu=LIST  the CPUs (\"0-3,5\" or \"all\", the default: all online CPUs)\n" },
        { "restore", "restore", "put every knob the daemon changed back",
          "restore",
          "Puts back every knob the daemon changed and forgets the manual settings (in\n"
          "enforce mode the plan applies again from the next tick).\n" },
        { "profile", "profile [NAME]", "list the profiles (* = active), or switch to NAME",
          "profile [NAME [--dry-run]]",
          "Without NAME, the loaded profiles, the active one marked *.  With NAME, switch\n"
          "to it (kept across restarts); a profile that makes every CPU poll while idle is\n"
          "said before the switch.  With --dry-run nothing changes: per CPU the plan the\n"
          "profile would put in force, the knobs the switch would write and the CPU time a\n"
          "CPU that polls may burn.\n"
          "\n"
          "     --dry-run  show what a switch would do, switch nothing\n"
          "\n"
          "  idlepolicyctl profile latency --dry-run\n" },
        { "mode", "mode [observe|enforce]", "show the mode, or switch it",
          "mode [observe|enforce]",
          "observe learns and shows the plan but writes nothing (and puts back what the\n"
          "plan changed); enforce applies the plan.\n" },
        { "calibrate", "calibrate", "measure every idle state's real wakeup cost (takes a while)",
          "calibrate",
          "Measures each idle state's wakeup cost over polling on every online CPU (the\n"
          "knobs change meanwhile, and are put back), then prints the table.\n" },
        { "monitor", "monitor", "live view, redrawn every tick until Ctrl-C",
          "monitor",
          "Per CPU its utilisation, wakeups, the plan's cap and floor and each state's share\n"
          "of the entries (too deep / too shallow), redrawn every tick; fits the terminal\n"
          "(80 columns and more: a CPU's states go on the lines below its plan when narrow).\n"
          "With --json one status object per line and tick.\n" },
        { "weights", "weights --cpu N", "the model's weight matrix of CPU N",
          "weights --cpu N",
          "For each state entered (rows), the share of its entries for which each state\n"
          "(columns) was right; in companion mode the wteo governor's own matrix.\n"
          "\n"
          "  -c --cpu=N  one CPU\n" },
        { "pin", "pin TARGET --profile NAME", "pin pid:N, cgroup:PATH, unit:NAME, exe:PATH or comm:NAME to --cpus",
          "pin TARGET --profile NAME [--cpus LIST] [--reason TEXT]",
          "Runs the workload on --cpus (without: where it runs) with the profile NAME there,\n"
          "until it ends or 'idlepolicyctl unpin'; its CPUs then come back as they were.\n"
          "TARGET: pid:N, cgroup:PATH (below the cgroup mount), unit:NAME, exe:PATH, comm:NAME.\n"
          "\n"
          "     --cpus=LIST    the CPUs\n"
          "     --profile=NAME the profile on them\n"
          "     --reason=TEXT  why, shown by 'idlepolicyctl pins'\n"
          "\n"
          "  idlepolicyctl pin pid:1234 --cpus 1 --profile latency\n" },
        { "unpin", "unpin PIN|ID", "end a pin (its object path or number)",
          "unpin PIN|ID",
          "Ends a pin, given by its number (the ID column of 'idlepolicyctl pins') or its\n"
          "object path.\n" },
        { "pins", "pins", "list the pins and the holds",
          "pins",
          "The pins (target, CPUs, profile, state, processes, reason) and the holds\n"
          "(profile, CPUs, who holds it, reason).\n" },
        { "hold", "hold PROFILE", "hold a profile (on --cpus) until Ctrl-C",
          "hold PROFILE [--cpus LIST] [--reason TEXT] [--app-id ID]",
          "Holds the profile until Ctrl-C, SIGTERM or SIGHUP (the daemon also releases it\n"
          "when idlepolicyctl goes away), like powerprofilesctl's hold.\n"
          "\n"
          "     --cpus=LIST    the CPUs (default: all)\n"
          "     --reason=TEXT  why\n"
          "     --app-id=ID    the application holding it\n" },
        { "launch", "launch --profile NAME -- CMD", "run CMD pinned to --cpus with NAME, holding it",
          "launch --profile NAME [--cpus LIST] [--reason TEXT] [--app-id ID] -- COMMAND [ARGS...]",
          "Runs COMMAND with the profile held and COMMAND pinned by its PID before it\n"
          "starts; the pin ends with the command.  Exits with the command's status.\n"
          "\n"
          "  idlepolicyctl launch --cpus 1 --profile latency -- sleep 5\n" },
        { "consolidate", "consolidate [0|1|2]", "show the consolidation (set, utilisation, why), or set its level",
          "consolidate [0|1|2]",
          "Without a level: the level and where it comes from, the CPUs the configured\n"
          "background is packed onto and those freed, the utilisation, why.  With one: 0 off,\n"
          "1 pack the background (consolidation_background in idlepolicyd.conf(5)),\n"
          "2 also steer device interrupts off the freed CPUs.\n" },
        { "metrics", "metrics [FORMAT]", "the daemon's metrics: openmetrics (default) or prometheus",
          "metrics [openmetrics|prometheus]",
          "The daemon's metrics as OpenMetrics text, or with 'prometheus' the Prometheus text\n"
          "format node_exporter's textfile collector reads.  Takes no --json.\n" },
        { "record", "record --seconds N --output F", "record idle intervals from tracefs (idlepolicy-record(8))",
          "record --seconds N --output FILE",
          "Runs idlepolicy-record; 'idlepolicyctl record --help' shows its options.\n" },
        { "simulate", "simulate ARGS...", "replay traces or workloads through governors (idlepolicy-sim(1))",
          "simulate ARGS...",
          "Runs idlepolicy-sim; 'idlepolicyctl simulate --help' shows its options.  A trace\n"
          "recorded here carries the advertised costs; --calibration FILE (the daemon's\n"
          "calibration.json) replays it with the measured ones.\n" },
        { "help", "help [COMMAND]", "this list, or what COMMAND does and takes",
          "help [COMMAND]",
          "'idlepolicyctl COMMAND --help' shows the same.\n" },
};

const CtlVerbHelp *ctl_help_verbs(size_t *ret_n) {
        *ret_n = ELEMENTS(verbs);
        return verbs;
}

const CtlVerbHelp *ctl_help_find(const char *name) {
        for (size_t i = 0; i < ELEMENTS(verbs); i++)
                if (strcmp(verbs[i].name, name) == 0)
                        return &verbs[i];
        return NULL;
}

const char *ctl_help_suggest(const char *word) {
        const char *names[ELEMENTS(verbs)];

        for (size_t i = 0; i < ELEMENTS(verbs); i++)
                names[i] = verbs[i].name;
        return ctl_suggest(word, names, ELEMENTS(verbs));
}

void ctl_help_print_all(void) {
        printf("Usage: idlepolicyctl [OPTIONS] COMMAND [ARGS]\n"
               "\n"
               "Query and steer idlepolicyd, the cpuidle policy daemon.\n"
               "\n"
               "Commands:\n");
        for (size_t i = 0; i < ELEMENTS(verbs); i++)
                printf("  %-30s %s\n", verbs[i].brief, verbs[i].summary);
        printf("\n"
               "Options:\n"
               "  -c --cpu=LIST                  CPUs for state/resume-latency/latency-limit/idle-info:\n"
               "                                 \"0-3,5\" or \"all\" (default: all online CPUs); one CPU\n"
               "                                 for weights\n"
               "     --cpus=LIST                 pin/hold/launch: the CPUs (default: the workload's;\n"
               "                                 a hold: all)\n"
               "     --profile=NAME              pin/launch: the profile\n"
               "     --reason=TEXT               pin/hold/launch: why, shown in status\n"
               "     --app-id=ID                 hold/launch: the application holding\n"
               "     --dry-run                   profile: show what a switch would do, change nothing\n"
               "     --interval=DURATION         status: rates over DURATION (10s, 500ms)\n"
               "     --json                      print machine-readable JSON\n"
               "     --no-ask-password           do not ask for polkit authentication\n"
               "  -h --help                      show this help ('COMMAND --help': that command's)\n"
               "     --version                   show the version\n"
               "\n"
               "No daemon?  'systemctl start idlepolicyd', or from a checkout 'sudo ./scripts/run-here'.\n"
               "See idlepolicyctl(1).\n");
}

void ctl_help_print_verb(const CtlVerbHelp *h) {
        printf("Usage: idlepolicyctl [OPTIONS] %s\n\n%c%s.\n\n%s\nSee idlepolicyctl(1).\n", h->usage,
               h->summary[0] >= 'a' && h->summary[0] <= 'z' ? h->summary[0] - 'a' + 'A' : h->summary[0],
               h->summary + 1, h->text);
}

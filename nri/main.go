// nri-idlepolicy: the NRI plugin of idlepolicyd.  Pod annotations
// (idlepolicy.io/profile, CRI-O's cpu-c-states.crio.io) become cgroup
// pins of the containers through the daemon's D-Bus API; see README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/containerd/nri/pkg/stub"

	"github.com/idlepolicy/idlepolicyd/nri/internal/annot"
	"github.com/idlepolicy/idlepolicyd/nri/internal/daemon"
	"github.com/idlepolicy/idlepolicyd/nri/internal/plugin"
)

func main() {
	name := flag.String("name", "idlepolicy", "plugin name to register to NRI")
	idx := flag.String("idx", "50", "plugin index to register to NRI (two digits)")
	socket := flag.String("socket", "", "NRI socket (default: the runtime's, /var/run/nri/nri.sock)")
	bus := flag.String("bus", "system", "D-Bus address of idlepolicyd (\"system\": the system bus)")
	verbose := flag.Bool("v", false, "log every request and its duration")
	crio := annot.DefaultCRIO
	flag.StringVar(&crio.Enable, "crio-enable", crio.Enable, "profile for cpu-c-states.crio.io: enable")
	flag.StringVar(&crio.Disable, "crio-disable", crio.Disable, "profile for cpu-c-states.crio.io: disable")
	flag.StringVar(&crio.MaxLatencyBase, "crio-max-latency-base", crio.MaxLatencyBase,
		"cpu-c-states.crio.io: max_latency:N pins with this profile and a latency limit of exactly N us "+
			"(BASE:latency_limit_us=N)")
	timeout := flag.Duration("call-timeout", plugin.CallTimeout, "the longest a daemon call may take")
	flag.Parse()

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if err := run(log, *name, *idx, *socket, *bus, crio, *timeout); err != nil {
		log.Error("exiting", "error", err)
		os.Exit(1)
	}
}

func run(log *slog.Logger, name, idx, socket, bus string, crio annot.CRIO, timeout time.Duration) error {
	d, err := daemon.Connect(bus)
	if err != nil {
		return fmt.Errorf("connecting to D-Bus %s: %w", bus, err)
	}
	defer d.Close()
	p := plugin.New(d, log)
	p.CRIO = crio
	p.CallTimeout = timeout
	opts := []stub.Option{stub.WithPluginName(name), stub.WithPluginIdx(idx),
		stub.WithOnClose(func() { log.Error("the runtime closed the connection"); os.Exit(1) })}
	if socket != "" {
		opts = append(opts, stub.WithSocketPath(socket))
	}
	s, err := stub.New(p, opts...)
	if err != nil {
		return fmt.Errorf("creating the NRI stub: %w", err)
	}
	return s.Run(context.Background())
}

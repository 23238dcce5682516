// Package plugin is the NRI plugin: annotated containers pinned through
// idlepolicyd at StartContainer, unpinned at StopContainer and
// RemoveContainer, reconciled at Synchronize.
package plugin

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/containerd/nri/pkg/api"

	"github.com/idlepolicy/idlepolicyd/nri/internal/annot"
	"github.com/idlepolicy/idlepolicyd/nri/internal/daemon"
)

// Defaults of Plugin's durations.
const (
	// ProfilesMaxAge: StartContainer reads the daemon's profiles again when
	// its list is older (an administrator may add one, the daemon restart).
	ProfilesMaxAge = 2 * time.Second
	// RefreshMinAge: a profile missing from a list at least this old is
	// looked for again at once.
	RefreshMinAge = 100 * time.Millisecond
	// CallTimeout bounds one call to the daemon: a container never waits
	// longer for its pin (it starts without one then).
	CallTimeout = time.Second
	// SyncBudget is how long Synchronize reconciles before it answers
	// (NRI's request timeout is 2 s); what is left goes on in the background.
	SyncBudget = time.Second
)

// Plugin holds the pins it made, by container id.
type Plugin struct {
	Daemon      daemon.Client
	CRIO        annot.CRIO
	Log         *slog.Logger
	CallTimeout time.Duration
	SyncBudget  time.Duration

	mu       sync.Mutex // one daemon call at a time; guards what follows
	pinned   map[string]pinned
	profiles map[string]bool   // nil: not known (any name is tried)
	readAt   time.Time         // when profiles was read
	syncDone chan struct{}     // closed when the last Synchronize's reconciliation ended
	gone     map[string]bool   // while it runs: containers stopped meanwhile (not to be pinned)
	reported map[string]string // container id → the source of its report in the daemon's status
}

type pinned struct {
	target, path string
}

// New returns a plugin talking to d.
func New(d daemon.Client, log *slog.Logger) *Plugin {
	done := make(chan struct{})
	close(done)
	return &Plugin{Daemon: d, CRIO: annot.DefaultCRIO, Log: log, CallTimeout: CallTimeout, SyncBudget: SyncBudget,
		pinned: map[string]pinned{}, reported: map[string]string{}, syncDone: done}
}

func (p *Plugin) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, p.CallTimeout)
}

// refreshProfiles reads the daemon's profiles (p.mu held).  On failure
// the list is unknown and every name is tried.
func (p *Plugin) refreshProfiles(ctx context.Context) {
	cctx, cancel := p.call(ctx)
	defer cancel()
	names, err := p.Daemon.Profiles(cctx)
	p.readAt = time.Now()
	if err != nil {
		p.Log.Warn("cannot read the daemon's profiles, annotations are checked when pinning", "error", err)
		p.profiles = nil
		return
	}
	p.profiles = map[string]bool{}
	for _, n := range names {
		p.profiles[n] = true
	}
}

func (p *Plugin) loaded() func(string) bool {
	if p.profiles == nil {
		return nil
	}
	profiles := p.profiles
	return func(name string) bool { return profiles[name] }
}

// resolve is annot.Resolve against the daemon's profiles; when they may
// be stale for this answer (an unknown profile) and were read more than
// RefreshMinAge ago, it reads them again and resolves once more (p.mu
// held).
func (p *Plugin) resolve(pod map[string]string, name string) (annot.Want, error) {
	want, err := annot.Resolve(pod, name, p.CRIO, p.loaded())
	if err == nil || time.Since(p.readAt) < RefreshMinAge {
		return want, err
	}
	p.refreshProfiles(context.Background())
	return annot.Resolve(pod, name, p.CRIO, p.loaded())
}

// desired returns what ctr of pod should get, or ok false (no pin, or a
// bad annotation: logged, and the container starts all the same).
func (p *Plugin) desired(pod *api.PodSandbox, ctr *api.Container) (Desired, bool) {
	who := pod.GetNamespace() + "/" + pod.GetName() + "/" + ctr.GetName()
	want, err := p.resolve(pod.GetAnnotations(), ctr.GetName())
	if err != nil {
		p.Log.Error("container starts without a pin", "container", who, "error", err)
		p.report(ctr.GetId(), Reason(pod.GetNamespace(), pod.GetName(), ctr.GetName()), err.Error())
		return Desired{}, false
	}
	if want.Profile == "" {
		return Desired{}, false
	}
	path := ctr.GetLinux().GetCgroupsPath()
	if path == "" {
		p.Log.Error("container starts without a pin: the runtime gave no cgroup path", "container", who)
		return Desired{}, false
	}
	return Desired{ID: ctr.GetId(), Target: daemon.NormalTarget(path), Want: want,
		Reason: Reason(pod.GetNamespace(), pod.GetName(), ctr.GetName())}, true
}

// pin pins d (p.mu held): a leftover pin of the target is taken over when
// it gives the same, replaced when it is the plugin's and gives something
// else.
func (p *Plugin) pin(ctx context.Context, d Desired) {
	cctx, cancel := p.call(ctx)
	defer cancel()
	path, err := p.Daemon.Pin(cctx, d.Target, d.Want.CPUs, d.Want.Profile, d.Reason)
	if daemon.IsError(err, "DuplicateTarget") {
		p.takeOver(ctx, d)
		return
	}
	if err != nil {
		level := slog.LevelError
		if daemon.IsError(err, "UnknownProfile") || daemon.IsError(err, "InvalidCPUs") ||
			daemon.IsError(err, "UnknownCPU") {
			err = &annot.Error{Key: d.Want.From, Value: d.Want.Profile + " " + d.Want.CPUs, Why: err.Error()}
		} else if daemon.IsError(err, "NoSuchProcess") {
			level = slog.LevelWarn // the container already ended
		}
		p.Log.Log(ctx, level, "container not pinned", "container", d.Reason, "target", d.Target, "error", err)
		if level == slog.LevelError {
			p.report(d.ID, d.Reason, "not pinned: "+err.Error())
		}
		return
	}
	p.pinned[d.ID] = pinned{target: d.Target, path: path}
	p.Log.Info("pinned", "container", d.Reason, "profile", d.Want.Profile, "cpus", d.Want.CPUs, "pin", path)
}

// report shows message in the daemon's status under source, the
// container's reason (p.mu held); the container's stop clears it.
func (p *Plugin) report(id, source, message string) {
	ctx, cancel := context.WithTimeout(context.Background(), p.CallTimeout)
	defer cancel()
	if err := p.Daemon.Report(ctx, source, message); err != nil {
		p.Log.Warn("cannot report to the daemon", "source", source, "error", err)
		return
	}
	p.reported[id] = source
}

// clearReport clears container id's report, if any (p.mu held).
func (p *Plugin) clearReport(ctx context.Context, id string) {
	source, ok := p.reported[id]
	if !ok {
		return
	}
	delete(p.reported, id)
	cctx, cancel := p.call(ctx)
	defer cancel()
	if err := p.Daemon.Report(cctx, source, ""); err != nil {
		p.Log.Warn("cannot clear a report", "source", source, "error", err)
	}
}

// takeOver handles a Pin refused as DuplicateTarget (p.mu held).
func (p *Plugin) takeOver(ctx context.Context, d Desired) {
	cctx, cancel := p.call(ctx)
	defer cancel()
	pins, err := p.Daemon.Pins(cctx)
	if err != nil {
		p.Log.Error("container not pinned", "container", d.Reason, "error", err)
		return
	}
	for _, a := range Plan([]Desired{d}, pins) {
		p.apply(ctx, a, false)
	}
}

// unpin ends the pin of container id (p.mu held).  Returns whether one
// was ended.
func (p *Plugin) unpin(ctx context.Context, id, why string) bool {
	pn, ok := p.pinned[id]
	if !ok {
		return false
	}
	delete(p.pinned, id)
	cctx, cancel := p.call(ctx)
	defer cancel()
	err := p.Daemon.Unpin(cctx, pn.path)
	if err != nil && !daemon.IsError(err, "NoSuchPin") { // NoSuchPin: it ended with its cgroup
		p.Log.Error("unpin failed", "pin", pn.path, "target", pn.target, "error", err)
		return false
	}
	p.Log.Info("unpinned", "target", pn.target, "pin", pn.path, "why", why)
	return true
}

// apply carries out one step of a plan (p.mu held); a Pin that meets a
// duplicate again is not retried (retry false).
func (p *Plugin) apply(ctx context.Context, a Action, retry bool) {
	switch a.Kind {
	case Adopt:
		p.pinned[a.Desired.ID] = pinned{target: a.Desired.Target, path: a.Current.Path}
	case Unpin:
		cctx, cancel := p.call(ctx)
		defer cancel()
		if err := p.Daemon.Unpin(cctx, a.Current.Path); err != nil && !daemon.IsError(err, "NoSuchPin") {
			p.Log.Error("unpin failed", "pin", a.Current.Path, "error", err)
		}
		for id, pn := range p.pinned {
			if pn.path == a.Current.Path {
				delete(p.pinned, id)
			}
		}
	case Pin:
		if retry {
			p.pin(ctx, a.Desired)
			return
		}
		cctx, cancel := p.call(ctx)
		defer cancel()
		path, err := p.Daemon.Pin(cctx, a.Desired.Target, a.Desired.Want.CPUs, a.Desired.Want.Profile, a.Desired.Reason)
		if err != nil {
			p.Log.Error("container not pinned", "container", a.Desired.Reason, "error", err)
			return
		}
		p.pinned[a.Desired.ID] = pinned{target: a.Desired.Target, path: path}
	case Conflict:
		p.Log.Warn("container not pinned: its cgroup is pinned by someone else", "container", a.Desired.Reason,
			"pin", a.Current.Path, "reason", a.Current.Reason)
	}
}

package plugin

import (
	"context"
	"strings"
	"time"

	"github.com/containerd/nri/pkg/api"
)

// observe logs how long an NRI request took (at debug level: the
// benchmark reads these lines).
func (p *Plugin) observe(request string, start time.Time) {
	p.Log.Debug("request", "name", request, "ms", float64(time.Since(start).Microseconds())/1000)
}

// Configure reads the daemon's profiles and subscribes to the events the
// plugin handles.
func (p *Plugin) Configure(ctx context.Context, config, runtime, version string) (api.EventMask, error) {
	p.Log.Info("connected", "runtime", runtime, "version", version)
	p.mu.Lock()
	p.refreshProfiles(ctx)
	p.mu.Unlock()
	return api.MustParseEventMask("startcontainer", "stopcontainer", "removecontainer"), nil
}

// running reports whether a container of Synchronize's list should hold
// a pin now (a created one gets its pin from StartContainer).
func running(c *api.Container) bool {
	s := c.GetState()
	return s == api.ContainerState_CONTAINER_RUNNING || s == api.ContainerState_CONTAINER_PAUSED
}

// Synchronize reconciles the daemon's pins with the running containers
// (after a plugin restart: pins of containers gone are ended, annotated
// containers without a pin get one).  It answers after SyncBudget at most;
// the rest of the plan is carried out in the background, one daemon call
// at a time between the other requests.
func (p *Plugin) Synchronize(ctx context.Context, pods []*api.PodSandbox, containers []*api.Container) ([]*api.ContainerUpdate, error) {
	defer p.observe("Synchronize", time.Now())
	byID := map[string]*api.PodSandbox{}
	for _, pod := range pods {
		byID[pod.GetId()] = pod
	}
	p.mu.Lock()
	p.refreshProfiles(ctx)
	var desired []Desired
	for _, c := range containers {
		if pod := byID[c.GetPodSandboxId()]; pod != nil && running(c) {
			if d, ok := p.desired(pod, c); ok {
				desired = append(desired, d)
			}
		}
	}
	cctx, cancel := p.call(ctx)
	current, err := p.Daemon.Pins(cctx)
	cancel()
	if err != nil {
		p.mu.Unlock()
		p.Log.Error("cannot reconcile: the daemon's pins are not readable (the daemon keeps its pins and ends them with their cgroups)", "error", err)
		return nil, nil
	}
	plan := Plan(desired, current)
	p.clearStaleReports(ctx, pods, containers)
	p.pinned = map[string]pinned{}
	p.gone = map[string]bool{}
	done := make(chan struct{})
	p.syncDone = done
	p.mu.Unlock()
	p.Log.Info("synchronizing", "containers", len(containers), "annotated", len(desired), "pins", len(current), "steps", len(plan))
	go p.carryOut(plan, done)
	select {
	case <-done:
	case <-time.After(p.SyncBudget):
		p.Log.Info("synchronize answers, reconciliation goes on in the background")
	}
	return nil, nil
}

// clearStaleReports clears the reports of the plugin's sources ("k8s …")
// that no container of the runtime has any more (p.mu held): reports
// made before a plugin restart for containers removed meanwhile.
func (p *Plugin) clearStaleReports(ctx context.Context, pods []*api.PodSandbox, containers []*api.Container) {
	cctx, cancel := p.call(ctx)
	sources, err := p.Daemon.Reports(cctx)
	cancel()
	if err != nil {
		return
	}
	live := map[string]bool{}
	byID := map[string]*api.PodSandbox{}
	for _, pod := range pods {
		byID[pod.GetId()] = pod
	}
	for _, c := range containers {
		if pod := byID[c.GetPodSandboxId()]; pod != nil {
			live[Reason(pod.GetNamespace(), pod.GetName(), c.GetName())] = true
		}
	}
	for _, s := range sources {
		if strings.HasPrefix(s, ReasonPrefix) && !live[s] {
			cctx, cancel := p.call(ctx)
			_ = p.Daemon.Report(cctx, s, "")
			cancel()
		}
	}
}

// carryOut applies plan step by step, then closes done.
func (p *Plugin) carryOut(plan []Action, done chan struct{}) {
	defer close(done)
	ctx := context.Background()
	counts := map[ActionKind]int{}
	for _, a := range plan {
		p.mu.Lock()
		if !(a.Kind == Pin || a.Kind == Adopt) || !p.gone[a.Desired.ID] {
			p.apply(ctx, a, true)
			counts[a.Kind]++
		}
		p.mu.Unlock()
	}
	p.mu.Lock()
	p.gone = nil
	p.mu.Unlock()
	p.Log.Info("reconciled", "adopted", counts[Adopt], "unpinned", counts[Unpin], "pinned", counts[Pin], "conflicts", counts[Conflict])
}

// WaitSynchronized waits until the last Synchronize's reconciliation ended
// or ctx is done.
func (p *Plugin) WaitSynchronized(ctx context.Context) error {
	p.mu.Lock()
	done := p.syncDone
	p.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// StartContainer pins an annotated container before it runs.  It never
// fails the container: a bad annotation or a daemon that does not answer
// is logged and the container starts without a pin.
func (p *Plugin) StartContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	defer p.observe("StartContainer", time.Now())
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.pinned[ctr.GetId()]; ok {
		return nil
	}
	if time.Since(p.readAt) > ProfilesMaxAge {
		p.refreshProfiles(ctx)
	}
	if d, ok := p.desired(pod, ctr); ok {
		p.pin(ctx, d)
	}
	return nil
}

// stopped ends a container's pin.
func (p *Plugin) stopped(ctx context.Context, ctr *api.Container, why string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone != nil {
		p.gone[ctr.GetId()] = true
	}
	p.clearReport(ctx, ctr.GetId())
	p.unpin(ctx, ctr.GetId(), why)
}

// StopContainer ends the container's pin: its CPUs' cpuset and profile
// come back at once, not when the daemon sees the cgroup empty.
func (p *Plugin) StopContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) ([]*api.ContainerUpdate, error) {
	defer p.observe("StopContainer", time.Now())
	p.stopped(ctx, ctr, "stopped")
	return nil, nil
}

// RemoveContainer ends the pin if StopContainer did not (a container
// that exited by itself is removed without a stop).
func (p *Plugin) RemoveContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	defer p.observe("RemoveContainer", time.Now())
	p.stopped(ctx, ctr, "removed")
	return nil
}

// Pinned returns the container ids the plugin holds a pin for and their pins' paths.
func (p *Plugin) Pinned() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]string{}
	for id, pn := range p.pinned {
		out[id] = pn.path
	}
	return out
}

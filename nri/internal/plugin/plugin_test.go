package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/containerd/nri/pkg/api"

	"github.com/idlepolicy/idlepolicyd/nri/internal/annot"
	"github.com/idlepolicy/idlepolicyd/nri/internal/daemon"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func pod(id string, anns map[string]string) *api.PodSandbox {
	return &api.PodSandbox{Id: id, Name: "pod-" + id, Namespace: "ns", Annotations: anns}
}

func ctr(podID, id, name string, state api.ContainerState) *api.Container {
	return &api.Container{Id: id, PodSandboxId: podID, Name: name, State: state,
		Linux: &api.LinuxContainer{CgroupsPath: "/kubepods/pod" + podID + "/" + id}}
}

func pinsOf(t *testing.T, f *daemon.Fake) map[string]daemon.Pin {
	t.Helper()
	pins, err := f.Pins(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]daemon.Pin{}
	for _, p := range pins {
		out[p.Target] = p
	}
	return out
}

func TestStartStopRemove(t *testing.T) {
	f := daemon.NewFake()
	p := New(f, quiet())
	ctx := context.Background()
	pd := pod("1", map[string]string{annot.Profile: "latency", annot.ProfileContainer + "side": "none"})
	app, side := ctr("1", "a", "app", api.ContainerState_CONTAINER_CREATED), ctr("1", "s", "side", api.ContainerState_CONTAINER_CREATED)
	if err := p.StartContainer(ctx, pd, app); err != nil {
		t.Fatal(err)
	}
	if err := p.StartContainer(ctx, pd, side); err != nil {
		t.Fatal(err)
	}
	pins := pinsOf(t, f)
	got, ok := pins["cgroup:kubepods/pod1/a"]
	if len(pins) != 1 || !ok || got.Profile != "latency" || got.CPUs != "" || got.Reason != "k8s ns/pod-1/app" {
		t.Fatalf("pins after start: %+v", pins)
	}
	// a second StartContainer of the same container changes nothing
	_ = p.StartContainer(ctx, pd, app)
	if f.Calls["Pin"] != 1 {
		t.Errorf("Pin called %d times", f.Calls["Pin"])
	}
	if _, err := p.StopContainer(ctx, pd, app); err != nil {
		t.Fatal(err)
	}
	if len(pinsOf(t, f)) != 0 {
		t.Fatalf("pin left after stop")
	}
	// remove after stop: nothing to do, no error
	f.Reset()
	if err := p.RemoveContainer(ctx, pd, app); err != nil || f.Calls["Unpin"] != 0 {
		t.Fatalf("remove after stop: %v, %v", err, f.Calls)
	}
}

func TestRemoveWithoutStopAndPinEndedByTheDaemon(t *testing.T) {
	f := daemon.NewFake()
	p := New(f, quiet())
	ctx := context.Background()
	pd := pod("1", map[string]string{annot.Profile: "latency"})
	c := ctr("1", "a", "app", api.ContainerState_CONTAINER_CREATED)
	_ = p.StartContainer(ctx, pd, c)
	// the daemon ended it (the cgroup emptied): NoSuchPin is no error
	for _, pin := range pinsOf(t, f) {
		_ = f.Unpin(ctx, pin.Path)
	}
	if err := p.RemoveContainer(ctx, pd, c); err != nil || len(p.Pinned()) != 0 {
		t.Fatalf("remove: %v, %v", err, p.Pinned())
	}
}

func TestBadAnnotationsStartTheContainer(t *testing.T) {
	f := daemon.NewFake()
	p := New(f, quiet())
	ctx := context.Background()
	_, _ = p.Configure(ctx, "", "test", "0")
	for i, anns := range []map[string]string{
		{annot.Profile: "no-such"},
		{annot.Profile: "latency", annot.CPUs: "1-0"},
		{annot.CRIOCStates: "sometimes"},
		{annot.Profile: "latency", annot.CPUs: "7"}, // refused by the daemon only (here: not at all)
	} {
		pd := pod(fmt.Sprint(i), anns)
		if err := p.StartContainer(ctx, pd, ctr(pd.Id, "c"+pd.Id, "app", api.ContainerState_CONTAINER_CREATED)); err != nil {
			t.Errorf("%v: StartContainer failed: %v", anns, err)
		}
	}
	if n := len(pinsOf(t, f)); n != 1 {
		t.Errorf("%d pins, want 1 (only the well-formed one)", n)
	}
	// the daemon's status shows each bad one under its container
	if got := f.ReportOf("k8s ns/pod-0/app"); !strings.Contains(got, "no-such") {
		t.Errorf("report of pod-0: %q", got)
	}
	if got := f.ReportOf("k8s ns/pod-2/app"); !strings.Contains(got, "cpu-c-states.crio.io") {
		t.Errorf("report of pod-2: %q", got)
	}
	// the container's removal clears its report
	_ = p.RemoveContainer(ctx, pod("0", nil), ctr("0", "c0", "app", api.ContainerState_CONTAINER_STOPPED))
	if got := f.ReportOf("k8s ns/pod-0/app"); got != "" {
		t.Errorf("report left after removal: %q", got)
	}
}

// Reports of containers removed while the plugin was away are cleared by
// Synchronize; an administrator's are not touched.
func TestSynchronizeClearsStaleReports(t *testing.T) {
	f := daemon.NewFake()
	ctx := context.Background()
	_ = f.Report(ctx, "k8s ns/pod-9/app", "bad annotation")
	_ = f.Report(ctx, "k8s ns/pod-1/app", "bad annotation")
	_ = f.Report(ctx, "admin", "something")
	p := New(f, quiet())
	pd := pod("1", map[string]string{annot.Profile: "no-such"})
	synchronize(t, p, []*api.PodSandbox{pd}, []*api.Container{ctr("1", "a", "app", api.ContainerState_CONTAINER_RUNNING)})
	if got, _ := f.Reports(ctx); fmt.Sprint(got) != "[admin k8s ns/pod-1/app]" {
		t.Errorf("reports after synchronize: %v", got)
	}
}

func TestDaemonDownStartsTheContainer(t *testing.T) {
	f := daemon.NewFake()
	f.Fail = errors.New("org.freedesktop.DBus.Error.ServiceUnknown")
	p := New(f, quiet())
	ctx := context.Background()
	pd := pod("1", map[string]string{annot.Profile: "latency"})
	if err := p.StartContainer(ctx, pd, ctr("1", "a", "app", api.ContainerState_CONTAINER_CREATED)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Synchronize(ctx, []*api.PodSandbox{pd}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestCRIOForm(t *testing.T) {
	f := daemon.NewFake()
	p := New(f, quiet())
	ctx := context.Background()
	_, _ = p.Configure(ctx, "", "test", "0")
	pd := pod("1", map[string]string{annot.CRIOCStates: "disable"})
	_ = p.StartContainer(ctx, pd, ctr("1", "a", "app", api.ContainerState_CONTAINER_CREATED))
	if got := pinsOf(t, f)["cgroup:kubepods/pod1/a"]; got.Profile != "latency" {
		t.Fatalf("disable gave %+v", got)
	}
}

// A profile added to the daemon after the plugin read the list is found
// at once, not after ProfilesMaxAge.
func TestNewProfileFoundAtOnce(t *testing.T) {
	f := daemon.NewFake()
	p := New(f, quiet())
	ctx := context.Background()
	_, _ = p.Configure(ctx, "", "test", "0")
	f.ProfileNames = append(f.ProfileNames, "custom")
	time.Sleep(RefreshMinAge)
	_ = p.StartContainer(ctx, pod("1", map[string]string{annot.Profile: "custom:latency_limit_us=7"}),
		ctr("1", "a", "app", api.ContainerState_CONTAINER_CREATED))
	_ = p.StartContainer(ctx, pod("2", map[string]string{annot.Profile: "custom"}),
		ctr("2", "b", "app", api.ContainerState_CONTAINER_CREATED))
	pins := pinsOf(t, f)
	if pins["cgroup:kubepods/pod1/a"].Profile != "custom:latency_limit_us=7" || pins["cgroup:kubepods/pod2/b"].Profile != "custom" {
		t.Fatalf("pins: %+v", pins)
	}
}

// CRI-O's max_latency:N is pinned with exactly that limit, whatever N and
// whether or not the daemon has a profile for it; a second Synchronize
// finds the pin right (the name is the daemon's, byte for byte).
func TestCRIOMaxLatencyIsExact(t *testing.T) {
	f := daemon.NewFake()
	p := New(f, quiet())
	ctx := context.Background()
	_, _ = p.Configure(ctx, "", "test", "0")
	var pods []*api.PodSandbox
	var ctrs []*api.Container
	for i, n := range []string{"1", "20", "37", "10000000"} {
		id := strconv.Itoa(i + 1)
		pd, c := pod(id, map[string]string{annot.CRIOCStates: "max_latency:" + n}),
			ctr(id, "c"+id, "app", api.ContainerState_CONTAINER_RUNNING)
		pods, ctrs = append(pods, pd), append(ctrs, c)
		_ = p.StartContainer(ctx, pd, c)
		if got := pinsOf(t, f)["cgroup:kubepods/pod"+id+"/c"+id].Profile; got != "balanced:latency_limit_us="+n {
			t.Errorf("max_latency:%s pinned with %q", n, got)
		}
	}
	calls := f.Calls["Pin"] + f.Calls["Unpin"]
	_, _ = p.Synchronize(ctx, pods, ctrs)
	if err := p.WaitSynchronized(ctx); err != nil {
		t.Fatal(err)
	}
	if f.Calls["Pin"]+f.Calls["Unpin"] != calls {
		t.Errorf("Synchronize pinned or unpinned again: %v", f.Calls)
	}
}

// A derived profile the daemon refuses (an N the plugin let through, an
// older daemon) is reported as a bad annotation, and the container starts.
func TestDerivedProfileRefusedIsReported(t *testing.T) {
	f := daemon.NewFake()
	p := New(f, quiet())
	ctx := context.Background()
	_, _ = p.Configure(ctx, "", "test", "0")
	f.ProfileNames = []string{"latency"} // balanced gone since the list was read
	err := p.StartContainer(ctx, pod("1", map[string]string{annot.CRIOCStates: "max_latency:20"}),
		ctr("1", "a", "app", api.ContainerState_CONTAINER_CREATED))
	if err != nil || len(pinsOf(t, f)) != 0 {
		t.Fatalf("err %v, pins %+v", err, pinsOf(t, f))
	}
	if r := f.ReportOf("k8s ns/pod-1/app"); !strings.Contains(r, "balanced:latency_limit_us=20") {
		t.Errorf("report %q", r)
	}
}

// A DuplicateTarget at start: the plugin's own leftover pin is taken over
// when it gives the same, replaced otherwise.
func TestStartTakesOverALeftoverPin(t *testing.T) {
	f := daemon.NewFake()
	ctx := context.Background()
	old, _ := f.Pin(ctx, "cgroup:kubepods/pod1/a", "", "power-saver", "k8s ns/pod-1/app")
	p := New(f, quiet())
	pd := pod("1", map[string]string{annot.Profile: "latency"})
	_ = p.StartContainer(ctx, pd, ctr("1", "a", "app", api.ContainerState_CONTAINER_CREATED))
	got := pinsOf(t, f)["cgroup:kubepods/pod1/a"]
	if got.Profile != "latency" || got.Path == old || p.Pinned()["a"] != got.Path {
		t.Fatalf("after start: %+v, plugin holds %v", got, p.Pinned())
	}
}

func synchronize(t *testing.T, p *Plugin, pods []*api.PodSandbox, ctrs []*api.Container) {
	t.Helper()
	if _, err := p.Synchronize(context.Background(), pods, ctrs); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.WaitSynchronized(ctx); err != nil {
		t.Fatal("reconciliation did not end")
	}
}

func TestSynchronizeReconciles(t *testing.T) {
	f := daemon.NewFake()
	ctx := context.Background()
	running := api.ContainerState_CONTAINER_RUNNING
	// before the plugin (re)starts: a pin whose container is gone, one
	// that is right, one with the wrong profile, an administrator's pin
	_, _ = f.Pin(ctx, "cgroup:kubepods/pod9/gone", "", "latency", "k8s ns/pod-9/app")
	kept, _ := f.Pin(ctx, "cgroup:kubepods/pod1/a", "", "latency", "k8s ns/pod-1/app")
	_, _ = f.Pin(ctx, "cgroup:kubepods/pod2/b", "", "latency", "k8s ns/pod-2/app")
	admin, _ := f.Pin(ctx, "cgroup:system.slice/db.service", "1", "latency", "database")
	pods := []*api.PodSandbox{
		pod("1", map[string]string{annot.Profile: "latency"}),
		pod("2", map[string]string{annot.Profile: "power-saver"}),
		pod("3", map[string]string{annot.Profile: "latency"}),
		pod("4", map[string]string{}),
	}
	ctrs := []*api.Container{
		ctr("1", "a", "app", running), ctr("2", "b", "app", running), ctr("3", "c", "app", running),
		ctr("3", "d", "app2", api.ContainerState_CONTAINER_CREATED), ctr("4", "e", "app", running),
	}
	p := New(f, quiet())
	synchronize(t, p, pods, ctrs)
	pins := pinsOf(t, f)
	if len(pins) != 4 || pins["cgroup:kubepods/pod1/a"].Path != kept || pins["cgroup:kubepods/pod2/b"].Profile != "power-saver" ||
		pins["cgroup:kubepods/pod3/c"].Profile != "latency" || pins["cgroup:system.slice/db.service"].Path != admin {
		t.Fatalf("after synchronize: %+v", pins)
	}
	if held := p.Pinned(); len(held) != 3 || held["a"] != kept {
		t.Fatalf("plugin holds %v", held)
	}
	// idempotent: a second Synchronize calls neither Pin nor Unpin
	f.Reset()
	synchronize(t, p, pods, ctrs)
	if f.Calls["Pin"] != 0 || f.Calls["Unpin"] != 0 {
		t.Fatalf("second synchronize: %v", f.Calls)
	}
	// and the plugin can unpin what it adopted
	_, _ = p.StopContainer(ctx, pods[0], ctrs[0])
	if _, ok := pinsOf(t, f)["cgroup:kubepods/pod1/a"]; ok {
		t.Fatal("the adopted pin survived its container's stop")
	}
}

// Hundreds of containers: Synchronize answers within its budget whatever
// the daemon's speed, and the background finishes the job.
func TestSynchronizeHundredsWithinBudget(t *testing.T) {
	f := &slowDaemon{Fake: daemon.NewFake(), delay: 5 * time.Millisecond}
	p := New(f, quiet())
	p.SyncBudget = 200 * time.Millisecond
	var pods []*api.PodSandbox
	var ctrs []*api.Container
	for i := 0; i < 300; i++ {
		pd := pod(fmt.Sprint(i), map[string]string{annot.Profile: "latency"})
		pods = append(pods, pd)
		ctrs = append(ctrs, ctr(pd.Id, "c"+pd.Id, "app", api.ContainerState_CONTAINER_RUNNING))
	}
	start := time.Now()
	if _, err := p.Synchronize(context.Background(), pods, ctrs); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("Synchronize took %v with a budget of 200ms", took)
	}
	// a container stopped while the reconciliation runs is not pinned after
	_, _ = p.StopContainer(context.Background(), pods[299], ctrs[299])
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.WaitSynchronized(ctx); err != nil {
		t.Fatal("reconciliation did not end")
	}
	pins := pinsOf(t, f.Fake)
	if len(pins) != 299 {
		t.Fatalf("%d pins after reconciliation, want 299", len(pins))
	}
	if _, ok := pins["cgroup:kubepods/pod299/c299"]; ok {
		t.Fatal("a container stopped during the reconciliation was pinned")
	}
}

type slowDaemon struct {
	*daemon.Fake
	delay time.Duration
}

func (s *slowDaemon) Pin(ctx context.Context, target, cpus, profile, reason string) (string, error) {
	time.Sleep(s.delay)
	return s.Fake.Pin(ctx, target, cpus, profile, reason)
}

func TestReason(t *testing.T) {
	if r := Reason("ns", "pod", "ctr"); r != "k8s ns/pod/ctr" {
		t.Error(r)
	}
	long := Reason(strings.Repeat("n", 63), strings.Repeat("p", 60)+"é", strings.Repeat("c", 63))
	if len(long) > reasonMax || !strings.HasPrefix(long, ReasonPrefix) {
		t.Errorf("%d bytes: %q", len(long), long)
	}
	if r := Reason("ns", strings.Repeat("p", 118)+"é", "c"); strings.ContainsRune(r, '\uFFFD') || len(r) > reasonMax {
		t.Errorf("cut inside a character: %q", r)
	}
}

func TestPlanOrder(t *testing.T) {
	want := annot.Want{Profile: "latency"}
	plan := Plan([]Desired{{ID: "a", Target: "cgroup:a", Want: want, Reason: "k8s x"}},
		[]daemon.Pin{{Path: "/p/1", Target: "cgroup:a", Profile: "balanced", Reason: "k8s x"},
			{Path: "/p/2", Target: "cgroup:b", Profile: "latency", Reason: "k8s y"}})
	kinds := []ActionKind{}
	for _, a := range plan {
		kinds = append(kinds, a.Kind)
	}
	if fmt.Sprint(kinds) != fmt.Sprint([]ActionKind{Unpin, Unpin, Pin}) {
		t.Fatalf("plan %v", kinds)
	}
}

func TestNormalTarget(t *testing.T) {
	for in, out := range map[string]string{
		"/kubepods/burstable/pod1/abc":           "cgroup:kubepods/burstable/pod1/abc",
		"//kubepods//x/":                         "cgroup:kubepods/x",
		"kubepods-pod1.slice:cri-containerd:abc": "cgroup:kubepods-pod1.slice:cri-containerd:abc",
	} {
		if got := daemon.NormalTarget(in); got != out {
			t.Errorf("NormalTarget(%q) = %q, want %q", in, got, out)
		}
	}
}
